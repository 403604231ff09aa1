package io.kollect.core;

import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ProfileValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's view of one profile: the spec it was given last, and the last spec that compiled.
 * When the latest spec is invalid, {@code compiled} still holds the previous valid one so targets
 * keep exporting with it, and {@code error} says what is wrong with the latest.
 *
 * @param spec the latest spec given
 * @param compiled the last valid compiled version, or {@code null} if there never was one
 * @param error the validation message of the latest spec, or {@code null} when it is valid
 */
record ProfileVersion(ProfileSpec spec, CompiledProfile compiled, String error) {

  /**
   * Compiles {@code spec}, the successor of {@code old} ({@code null}: the first). Never throws:
   * an invalid spec keeps {@code old}'s last valid version and carries the validation message.
   */
  static ProfileVersion compile(String name, ProfileSpec spec, ProfileVersion old,
      ExtractOptions options) {
    CompiledProfile lastValid = old == null ? null : old.compiled();
    try {
      return new ProfileVersion(spec, ProfileCompiler.compile(name, spec, options), null);
    } catch (ProfileValidationException e) {
      return new ProfileVersion(spec, lastValid, e.getMessage());
    } catch (RuntimeException e) {
      // A compiler bug must not take the engine down; report it like a validation problem.
      Logger log = LoggerFactory.getLogger(KollectEngine.class);
      log.warn("compiling profile {} failed unexpectedly", name, e);
      return new ProfileVersion(spec, lastValid, "profile " + name + " cannot be compiled: " + e);
    }
  }
}

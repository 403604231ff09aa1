package io.kollect.operator.cli;

import io.kollect.operator.DigestKeySource;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the Secret digest key comes from: the {@code kollect run} flags of its {@link DigestKeySource}. */
final class DigestKeyOptions {

  @Option(names = "--digest-key-secret", paramLabel = "NAME",
      description = "Secret in the operator's namespace whose key 'key' keys the HMAC-SHA256 "
          + "digests of Secret values (default: no digests, key names and lengths only).")
  String digestKeySecret;

  @Option(names = "--digest-key-file", paramLabel = "FILE",
      description = "File holding the digest key, instead of --digest-key-secret.")
  Path digestKeyFile;

  /** The source; both flags at once, or a bad value, is bad input (exit 2). */
  DigestKeySource source() {
    try {
      if (digestKeySecret != null && digestKeyFile != null) {
        throw new IllegalArgumentException(
            "--digest-key-secret, --digest-key-file: give at most one of them");
      }
      if (digestKeySecret != null) {
        return DigestKeySource.secret(digestKeySecret);
      }
      return digestKeyFile == null ? DigestKeySource.none() : DigestKeySource.file(digestKeyFile);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage(), e);
    }
  }
}

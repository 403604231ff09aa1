package io.kollect.operator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ExtractionException;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.Record;
import io.kollect.extract.RecordContext;
import io.kollect.extract.golden.GoldenSuite;
import io.kollect.extract.golden.ManifestException;
import io.kollect.extract.golden.Manifests;
import java.nio.file.Files;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kollect diff}: what a candidate profile would deliver compared with the current one, over
 * manifests, offline: the same summary and samples a shadow experiment shows, for review in CI.
 */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    description = {
      "Compare what two profiles deliver over the same manifests, offline.",
      "For CI review of profile changes: records added, removed and changed, fields changed,",
      "extraction errors, scrub hits, bytes, and samples of changed records (scrubbed)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:no difference",
      "1:the candidate delivers something different",
      "2:unreadable input, invalid YAML/JSON or invalid profile"
    })
final class DiffCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = {"-p", "--profile"}, required = true, paramLabel = "FILE",
      description = "The current profile: a KollectProfile object or just its spec.")
  Path profile;

  // no -c: that is --cases in `kollect test`, and one letter must not mean two things
  @Option(names = "--candidate", required = true, paramLabel = "FILE",
      description = "The candidate profile: a KollectProfile object or just its spec.")
  Path candidate;

  @Option(names = "--samples", paramLabel = "N", defaultValue = "20",
      description = "Changed records to show (default: ${DEFAULT-VALUE}).")
  int samples;

  @Option(names = "--digest-key-file", paramLabel = "FILE",
      description = "Key of the HMAC-SHA256 digests of Secret values (without it: key names and "
          + "lengths only).")
  Path digestKeyFile;

  @Parameters(paramLabel = "MANIFESTS", arity = "1..*",
      description = "Manifest files or folders (YAML or JSON, multi-document, List kinds).")
  List<Path> manifests = new ArrayList<>();

  @Override
  public Integer call() {
    if (samples < 0) {
      throw new BadInputException("--samples: must not be negative");
    }
    Optional<byte[]> key = ExtractCommand.digestKey(digestKeyFile);
    CompiledProfile current = ExtractCommand.compile(profile, key);
    CompiledProfile next = ExtractCommand.compile(candidate, key);
    PrintWriter err = spec.commandLine().getErr();
    // a candidate field that can never have a value (under a scrubbed key) shows no difference
    // in the diff, so its warning must be said here
    next.warnings().forEach(w -> err.println("kollect: warning: candidate: " + w));
    err.flush();
    ProfileDiff diff = diff(current, next, read(), samples);
    DiffPrinter.print(diff, spec.commandLine().getOut());
    return diff.differs() ? 1 : 0;
  }

  /**
   * Both profiles over every object, as an engine's shadow evaluation compares them: a baseline
   * that fails is bad input (the current profile must work), a candidate that fails is counted.
   */
  static ProfileDiff diff(CompiledProfile current, CompiledProfile candidate,
      List<JsonNode> objects, int samples) {
    RecordContext ctx = GoldenSuite.offlineContext();
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(samples);
    for (JsonNode o : objects) {
      Record before;
      try {
        before = current.extract(o, ctx).orElse(null);
      } catch (ExtractionException e) {
        throw new BadInputException("--profile: " + e.getMessage(), e);
      }
      Record after = null;
      boolean failed = false;
      try {
        after = candidate.extract(o, ctx).orElse(null);
      } catch (ExtractionException e) {
        failed = true;
      }
      if (before != null || after != null || failed) {
        acc.add(before, after, failed);
      }
    }
    return acc.result();
  }

  private List<JsonNode> read() {
    List<JsonNode> objects = new ArrayList<>();
    for (Path p : manifests) {
      if (!Files.exists(p)) {
        throw new BadInputException(p + ": no such file or folder");
      }
      try {
        objects.addAll(Manifests.read(p));
      } catch (ManifestException e) {
        throw new BadInputException(e.getMessage(), e);
      }
    }
    return objects;
  }
}

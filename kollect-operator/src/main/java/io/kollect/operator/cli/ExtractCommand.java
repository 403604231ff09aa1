package io.kollect.operator.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.ExtractionException;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileValidationException;
import io.kollect.extract.Record;
import io.kollect.extract.RecordContext;
import io.kollect.extract.Records;
import io.kollect.extract.golden.InputSummary;
import io.kollect.extract.golden.ManifestException;
import io.kollect.extract.golden.Manifests;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kollect extract}: runs a profile over manifest files offline and prints the records,
 * sorted by key, exactly as a sink would receive them.
 */
@Command(
    name = "extract",
    mixinStandardHelpOptions = true,
    description = {
      "Extract records from manifest files with a profile, offline (no cluster needed).",
      "Reads YAML or JSON, multi-document files and kind: List; a folder is read recursively.",
      "Prints one record per line (jsonl) or YAML documents, sorted by record key; on standard",
      "error, what was read and what the profile skipped. A kind: List is read item by item."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:records printed", "2:unreadable input, invalid YAML/JSON or invalid profile"})
final class ExtractCommand implements Callable<Integer> {

  enum Format { jsonl, yaml }

  @Spec CommandSpec spec;

  @Option(names = {"-p", "--profile"}, required = true, paramLabel = "FILE",
      description = "Profile file: a KollectProfile object or just its spec (YAML or JSON).")
  Path profile;

  @Option(names = {"-i", "--input"}, required = true, paramLabel = "FILE|DIR|-",
      description = "Manifest file, folder of manifests, or - for standard input.")
  String input;

  @Option(names = {"-o", "--format"}, defaultValue = "jsonl", paramLabel = "jsonl|yaml",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format format;

  @Option(names = "--cluster", defaultValue = "offline", description = "Cluster name written into records (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Option(names = "--target", defaultValue = "offline", description = "Target id written into records (default: ${DEFAULT-VALUE}).")
  String target;

  @Option(names = "--digest-key-file", paramLabel = "FILE",
      description = "Key of the HMAC-SHA256 digests of Secret values (without it: key names and "
          + "lengths only). Use the key the operator uses, so digests match.")
  Path digestKeyFile;

  @Override
  public Integer call() {
    CompiledProfile compiled = compile(profile, digestKey(digestKeyFile));
    PrintWriter err = spec.commandLine().getErr();
    compiled.warnings().forEach(w -> err.println("kollect: warning: " + w));
    RecordContext ctx = new RecordContext(cluster, target, Instant.now().truncatedTo(ChronoUnit.SECONDS));
    InputSummary read = new InputSummary(compiled);
    // objects are extracted as they are read, so a large list costs one item and the records
    List<Record> records = new ArrayList<>();
    readInput(o -> {
      read.object(o);
      try {
        compiled.extract(o, ctx).ifPresent(records::add);
      } catch (ExtractionException e) {
        throw new BadInputException(e.getMessage(), e);
      }
    }, read);
    records.sort(Comparator.comparing(Record::key));
    err.println("kollect: " + read.line());
    err.flush();
    PrintWriter out = spec.commandLine().getOut();
    if (format == Format.jsonl) {
      for (Record r : records) {
        out.println(Records.toJsonLine(r));
      }
    } else {
      ObjectMapper yaml = YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          // "3", "true", "1.0" stay strings when read back
          .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
          .build();
      for (Record r : records) {
        try {
          out.print("---\n" + yaml.writeValueAsString(Records.toTree(r)));
        } catch (JsonProcessingException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    out.flush();
    return 0;
  }

  private void readInput(Consumer<JsonNode> each, InputSummary read) {
    try {
      if (input.equals("-")) {
        read.file();
        Manifests.forEach(System.in, "<stdin>", each);
        return;
      }
      Path p = Path.of(input);
      if (!Files.exists(p)) {
        throw new BadInputException(input + ": no such file or folder");
      }
      for (Path file : Files.isDirectory(p) ? Manifests.manifestFiles(p) : List.of(p)) {
        read.file();
        Manifests.forEach(file, each);
      }
    } catch (ManifestException e) {
      throw new BadInputException(e.getMessage(), e);
    }
  }

  /**
   * The key of {@code --digest-key-file}, read and checked now so that a missing file is exit 2
   * with one line; shared with {@code kollect test}.
   */
  static java.util.Optional<byte[]> digestKey(Path file) {
    if (file == null) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(io.kollect.operator.DigestKeySource.readFile(file));
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage(), e);
    }
  }

  /**
   * Compiles a profile with the digest key, so Secret values get their {@code hmac-sha256}
   * digests; a profile problem is bad input, reported on one line.
   */
  static CompiledProfile compile(Path profile, java.util.Optional<byte[]> digestKey) {
    try {
      return ProfileCompiler.compile(profile,
          digestKey.map(ExtractOptions::new).orElse(ExtractOptions.none()));
    } catch (ProfileValidationException e) {
      throw new BadInputException(e.getMessage(), e);
    }
  }

  /** Shared with {@code kollect test}: a profile problem is bad input, reported on one line. */
  static CompiledProfile compile(Path profile) {
    return compile(profile, java.util.Optional.empty());
  }
}

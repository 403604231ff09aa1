package io.kollect.operator.cli;

import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ExtractionException;
import io.kollect.extract.golden.GoldenReport;
import io.kollect.extract.golden.GoldenSuite;
import io.kollect.extract.golden.InputSummary;
import io.kollect.extract.golden.ManifestException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kollect test}: golden tests for a profile. Each case is a folder with {@code input/}
 * manifests and the {@code expected.jsonl} records; a mismatch prints a diff and exits 1.
 */
@Command(
    name = "test",
    mixinStandardHelpOptions = true,
    description = {
      "Run a profile over golden cases and compare the records with expected.jsonl.",
      "A case is a folder with input/ (manifests) and expected.jsonl (records sorted by key);",
      "CASES may be one case or a folder of cases. observedAt is never compared."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:all cases match (or --update wrote them)",
      "1:records differ (a diff is printed)",
      "2:unreadable input, invalid YAML/JSON or invalid profile"
    })
final class TestCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = {"-p", "--profile"}, required = true, paramLabel = "FILE",
      description = "Profile file: a KollectProfile object or just its spec.")
  Path profile;

  @Option(names = {"-c", "--cases"}, required = true, paramLabel = "DIR", description = "One case, or a folder of cases.")
  Path cases;

  @Option(names = "--update", description = "Rewrite every expected.jsonl with the records produced now.")
  boolean update;

  @Option(names = "--allow-empty",
      description = "With --update, also write a case whose input yields no record (refused by default: "
          + "a profile that matches nothing would empty every golden file).")
  boolean allowEmpty;

  @Option(names = "--ignore-field", paramLabel = "FIELD",
      description = "Record key not to compare, repeatable: uid, resourceVersion, cluster, contentHash, fields.<name>, labels.<key>, annotations.<key>, ...")
  List<String> ignoreFields = new ArrayList<>();

  @Option(names = "--digest-key-file", paramLabel = "FILE",
      description = "Key of the HMAC-SHA256 digests of Secret values (without it: key names and lengths only).")
  Path digestKeyFile;

  /** The record's top-level keys; fields, labels and annotations also take one entry after a dot. */
  static final List<String> RECORD_KEYS = List.of("op", "cluster", "target", "profile", "resource",
      "namespace", "name", "uid", "resourceVersion", "observedAt", "sequence", "contentHash",
      "fields", "labels", "annotations");

  private static final List<String> ENTRY_PARENTS = List.of("fields", "labels", "annotations");

  @Override
  public Integer call() {
    ignoreFields.forEach(TestCommand::checkIgnoredField);
    CompiledProfile compiled = ExtractCommand.compile(profile, ExtractCommand.digestKey(digestKeyFile));
    PrintWriter err = spec.commandLine().getErr();
    compiled.warnings().forEach(w -> err.println("kollect: warning: " + w));
    GoldenSuite suite = GoldenSuite.of(compiled).ignoreFields(ignoreFields.toArray(String[]::new));
    if (allowEmpty) {
      suite = suite.allowEmpty();
    }
    PrintWriter out = spec.commandLine().getOut();
    GoldenReport report;
    try {
      report = update ? suite.update(cases) : suite.run(cases);
    } catch (ManifestException | ExtractionException e) {
      throw new BadInputException(e.getMessage(), e);
    }
    if (update) {
      List<String> changed = report.cases().stream().filter(c -> !c.matches()).map(GoldenReport.CaseResult::name).toList();
      out.println(changed.isEmpty()
          ? "up to date: " + report.summary()
          : "updated " + changed.size() + " of " + report.cases().size() + " cases: " + String.join(", ", changed));
      out.flush();
      return 0;
    }
    if (report.matches()) {
      out.println("ok: " + report.summary());
      out.flush();
      if (report.cases().stream().allMatch(c -> c.matchingRecords() + c.differingRecords() == 0)) {
        err.println("kollect: warning: no case has a record, expected or produced: the profile's "
            + "resources (" + InputSummary.resources(compiled)
            + ") may not match the inputs' apiVersion and kind");
        err.flush();
      }
      return 0;
    }
    out.print(report.diff());
    out.println("FAILED: " + report.summary());
    out.println("(run with --update to accept the new records)");
    out.flush();
    return 1;
  }

  /** An --ignore-field that names nothing a record has would silently compare everything. */
  private static void checkIgnoredField(String field) {
    int dot = field.indexOf('.');
    boolean known = dot < 0
        ? RECORD_KEYS.contains(field)
        : ENTRY_PARENTS.contains(field.substring(0, dot)) && dot < field.length() - 1;
    if (!known) {
      throw new BadInputException("--ignore-field " + field + ": not a record key; use one of "
          + String.join(", ", RECORD_KEYS) + ", or fields.<name>, labels.<key>, annotations.<key>");
    }
  }
}

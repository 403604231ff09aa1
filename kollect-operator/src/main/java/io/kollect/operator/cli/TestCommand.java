package io.kollect.operator.cli;

import io.kollect.extract.ExtractionException;
import io.kollect.extract.golden.GoldenReport;
import io.kollect.extract.golden.GoldenSuite;
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

  @Option(names = "--ignore-field", paramLabel = "FIELD",
      description = "Record key not to compare, repeatable: uid, resourceVersion, cluster, contentHash, fields.<name>, ...")
  List<String> ignoreFields = new ArrayList<>();

  @Option(names = "--digest-key-file", paramLabel = "FILE",
      description = "Key of the HMAC-SHA256 digests of Secret values (without it: key names and lengths only).")
  Path digestKeyFile;

  @Override
  public Integer call() {
    GoldenSuite suite = GoldenSuite.of(ExtractCommand.compile(profile, ExtractCommand.digestKey(digestKeyFile))).ignoreFields(ignoreFields.toArray(String[]::new));
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
      return 0;
    }
    out.print(report.diff());
    out.println("FAILED: " + report.summary());
    out.println("(run with --update to accept the new records)");
    out.flush();
    return 1;
  }
}

package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestCommandTest {

  @TempDir Path dir;
  Path profile;
  Path cases;

  @BeforeEach
  void layout() throws Exception {
    profile = Files.writeString(dir.resolve("profile.yaml"), ExtractCommandTest.PROFILE);
    cases = dir.resolve("cases");
    Files.createDirectories(cases.resolve("shop/input"));
    Files.writeString(cases.resolve("shop/input/deployments.yaml"), ExtractCommandTest.DEPLOYMENTS);
    Files.createDirectories(cases.resolve("empty/input"));
    Files.writeString(cases.resolve("empty/input/nothing.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
  }

  private CliRun test(String... extra) {
    String[] base = {"test", "--profile", profile.toString(), "--cases", cases.toString()};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return CliRun.of(all);
  }

  @Test
  void updateWritesExpectedFilesAndThenTheCasesPass() throws Exception {
    CliRun first = test();
    assertThat(first.exitCode()).isEqualTo(1);
    assertThat(first.out()).contains("expected.jsonl does not exist");

    // the ConfigMap-only case yields no record: an update refuses to write it unless asked
    CliRun refused = test("--update");
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err()).isEqualTo("kollect: case empty: no record to write (read 1 object in 1 file;"
        + " 0 matched the profile's resources (apps/v1 Deployment); skipped: 1 v1 ConfigMap);"
        + " not writing an empty expected.jsonl: fix the profile's resources, or allow empty cases (--allow-empty)\n");
    assertThat(cases.resolve("shop/expected.jsonl")).doesNotExist();

    CliRun update = test("--update", "--allow-empty");
    assertThat(update.exitCode()).isZero();
    assertThat(update.out()).isEqualTo("updated 2 of 2 cases: empty, shop\n");
    assertThat(Files.readAllLines(cases.resolve("shop/expected.jsonl"))).hasSize(2);
    assertThat(Files.readString(cases.resolve("empty/expected.jsonl"))).isEmpty();

    CliRun again = test();
    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).isEqualTo("ok: 2 cases: 2 match; 2 records: 2 match\n");
    assertThat(test("--update", "--allow-empty").out()).isEqualTo("up to date: 2 cases: 2 match; 2 records: 2 match\n");
  }

  @Test
  void casesWithoutAnyRecordPassWithAWarningNamingTheProfilesResources() throws Exception {
    Files.writeString(cases.resolve("shop/input/deployments.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n");
    test("--update", "--allow-empty");

    CliRun run = test();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("ok: 2 cases: 2 match; 0 records: 0 match\n");
    assertThat(run.err()).isEqualTo("kollect: warning: no case has a record, expected or produced: the profile's"
        + " resources (apps/v1 Deployment) may not match the inputs' apiVersion and kind\n");
  }

  @Test
  void anIgnoreFieldThatNamesNoRecordKeyIsBadInput() {
    CliRun run = test("--ignore-field", "replicas");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("kollect: --ignore-field replicas: not a record key; use one of op, cluster,")
        .endsWith(", or fields.<name>, labels.<key>, annotations.<key>\n");
    assertThat(test("--ignore-field", "fields.").exitCode()).isEqualTo(2);
  }

  @Test
  void anUnknownFlagIsOneLineAndAPointerToTheHelp() {
    CliRun run = test("--updte");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("kollect: Unknown option: '--updte'\n"
        + "kollect: did you mean --update?\n"
        + "kollect: see 'kollect test --help'\n");
  }

  @Test
  void aMismatchExitsOneWithADiffOnStdout() throws Exception {
    test("--update", "--allow-empty");
    Path in = cases.resolve("shop/input/deployments.yaml");
    Files.writeString(in, Files.readString(in).replace("nginx:1.25", "nginx:1.27"));
    CliRun run = test();
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("--- expected apps/Deployment/shop/web\n+++ actual apps/Deployment/shop/web\n")
        .contains("-    \"images\" : [ \"nginx:1.25\" ],\n+    \"images\" : [ \"nginx:1.27\" ],")
        .endsWith("FAILED: 2 cases: 1 match, 1 differs (shop); 2 records: 1 match, 1 differs\n(run with --update to accept the new records)\n");
  }

  @Test
  void ignoredFieldsAreNotCompared() throws Exception {
    test("--update", "--allow-empty");
    Path in = cases.resolve("shop/input/deployments.yaml");
    Files.writeString(in, Files.readString(in).replace("replicas: 3", "replicas: 4"));
    assertThat(test().exitCode()).isEqualTo(1);
    assertThat(test("--ignore-field", "fields.replicas", "--ignore-field", "contentHash").exitCode()).isZero();
  }

  @Test
  void aSingleCaseFolderCanBeGivenDirectly() throws Exception {
    test("--update", "--allow-empty");
    CliRun run = CliRun.of("test", "-p", profile.toString(), "-c", cases.resolve("shop").toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("ok: 1 case: 1 match; 2 records: 2 match\n");
  }

  @Test
  void badInputsAreExit2WithOneLine() throws Exception {
    CliRun noCases = CliRun.of("test", "-p", profile.toString(), "-c", dir.resolve("missing").toString());
    assertThat(noCases.exitCode()).isEqualTo(2);
    assertThat(noCases.err()).isEqualTo("kollect: " + dir.resolve("missing") + ": not a folder\n");

    Files.writeString(cases.resolve("shop/input/broken.json"), "{\"kind\": ");
    CliRun broken = test();
    assertThat(broken.exitCode()).isEqualTo(2);
    assertThat(broken.err()).startsWith("kollect: " + cases.resolve("shop/input/broken.json") + ": invalid YAML/JSON");
    assertThat(broken.err().lines()).hasSize(1);

    CliRun badProfile = CliRun.of("test", "-p", dir.resolve("nope.yaml").toString(), "-c", cases.toString());
    assertThat(badProfile.exitCode()).isEqualTo(2);
    assertThat(badProfile.err()).isEqualTo("kollect: profile " + dir.resolve("nope.yaml") + " is invalid: file not found\n");
  }

  @Test
  void aMalformedExpectedFileIsExit2() throws Exception {
    Files.writeString(cases.resolve("shop/expected.jsonl"), "not json\n");
    CliRun run = test();
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("kollect: " + cases.resolve("shop/expected.jsonl") + ": line 1: invalid YAML/JSON");
  }
}

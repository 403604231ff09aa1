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

    CliRun update = test("--update");
    assertThat(update.exitCode()).isZero();
    assertThat(update.out()).isEqualTo("updated 2 of 2 cases: empty, shop\n");
    assertThat(Files.readAllLines(cases.resolve("shop/expected.jsonl"))).hasSize(2);
    assertThat(Files.readString(cases.resolve("empty/expected.jsonl"))).isEmpty();

    CliRun again = test();
    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).isEqualTo("ok: 2 cases, 2 records: 2 match\n");
    assertThat(test("--update").out()).isEqualTo("up to date: 2 cases, 2 records: 2 match\n");
  }

  @Test
  void aMismatchExitsOneWithADiffOnStdout() throws Exception {
    test("--update");
    Path in = cases.resolve("shop/input/deployments.yaml");
    Files.writeString(in, Files.readString(in).replace("nginx:1.25", "nginx:1.27"));
    CliRun run = test();
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("--- expected apps/Deployment/shop/web\n+++ actual apps/Deployment/shop/web\n")
        .contains("-    \"images\" : [ \"nginx:1.25\" ],\n+    \"images\" : [ \"nginx:1.27\" ],")
        .endsWith("FAILED: 2 cases, 2 records: 1 match, 1 differ (shop)\n(run with --update to accept the new records)\n");
  }

  @Test
  void ignoredFieldsAreNotCompared() throws Exception {
    test("--update");
    Path in = cases.resolve("shop/input/deployments.yaml");
    Files.writeString(in, Files.readString(in).replace("replicas: 3", "replicas: 4"));
    assertThat(test().exitCode()).isEqualTo(1);
    assertThat(test("--ignore-field", "fields.replicas", "--ignore-field", "contentHash").exitCode()).isZero();
  }

  @Test
  void aSingleCaseFolderCanBeGivenDirectly() throws Exception {
    test("--update");
    CliRun run = CliRun.of("test", "-p", profile.toString(), "-c", cases.resolve("shop").toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("ok: 1 case, 2 records: 1 match\n");
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

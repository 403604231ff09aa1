package io.kollect.extract.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GoldenSuiteTest {

  static final Path GOLDEN = Path.of("src/test/resources/golden/deployments");
  static final Path PROFILE = GOLDEN.resolve("profile.yaml");

  @TempDir Path tmp;

  private Path copyOfGolden() throws IOException {
    Path dst = tmp.resolve("deployments");
    try (Stream<Path> s = Files.walk(GOLDEN)) {
      for (Path p : s.toList()) {
        Path t = dst.resolve(GOLDEN.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
    return dst;
  }

  @Test
  void theCommittedGoldenCasesMatch() {
    GoldenReport report = GoldenSuite.of(PROFILE).run(GOLDEN);
    report.assertMatches();
    assertThat(report.cases()).extracting(GoldenReport.CaseResult::name).containsExactly("empty-namespace", "rollout");
    assertThat(report.summary()).isEqualTo("2 cases: 2 match; 4 records: 4 match");
  }

  @Test
  void multiDocumentYamlAndListsAreReadAndOtherKindsSkipped() {
    List<Record> records = GoldenSuite.of(PROFILE).extract(Manifests.read(GOLDEN.resolve("rollout/input")));
    assertThat(records).extracting(Record::key).containsExactly(
        "/Service/shop/web", "apps/Deployment/shop/api", "apps/Deployment/shop/web");
    assertThat(records.get(0).cluster()).isEqualTo("offline");
    assertThat(records.get(0).target()).isEqualTo("offline");
  }

  @Test
  void aChangedFieldShowsAsAUnifiedDiffForThatRecordOnly() throws IOException {
    Path cases = copyOfGolden();
    Path input = cases.resolve("rollout/input/deployments.yaml");
    Files.writeString(input, Files.readString(input).replace("replicas: 2", "replicas: 5"));
    GoldenReport report = GoldenSuite.of(PROFILE).run(cases);
    assertThat(report.matches()).isFalse();
    // the other three records of the cases still match: cases and records are counted apart
    assertThat(report.summary()).isEqualTo("2 cases: 1 match, 1 differs (rollout); 4 records: 3 match, 1 differs");
    String diff = report.diff();
    assertThat(diff).startsWith("case rollout: 0 missing, 0 unexpected, 1 changed\n"
        + "--- expected apps/Deployment/shop/web\n+++ actual apps/Deployment/shop/web\n@@ ");
    assertThat(diff).contains("\n-    \"replicas\" : 2\n+    \"replicas\" : 5\n");
    assertThat(diff).contains("-  \"contentHash\" : ").doesNotContain("observedAt");
    assertThatThrownBy(report::assertMatches).isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("golden records differ: 2 cases")
        .hasMessageContaining("+    \"replicas\" : 5");
  }

  @Test
  void missingAndUnexpectedRecordsAreListedByKey() throws IOException {
    Path cases = copyOfGolden();
    Files.delete(cases.resolve("rollout/input/list.json"));
    Files.writeString(cases.resolve("rollout/input/extra.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata: {name: extra, namespace: shop}\n");
    String diff = GoldenSuite.of(PROFILE).run(cases).diff();
    assertThat(diff).startsWith("case rollout: 1 missing, 1 unexpected, 0 changed\n");
    assertThat(diff).contains("--- expected (no record)\n+++ actual /Service/shop/extra\n+{\n");
    assertThat(diff).contains("--- expected /Service/shop/web\n+++ actual (no record)\n-{\n");
  }

  @Test
  void ignoredFieldsAreNotCompared() throws IOException {
    Path cases = copyOfGolden();
    Path input = cases.resolve("rollout/input/deployments.yaml");
    Files.writeString(input, Files.readString(input).replace("replicas: 2", "replicas: 5"));
    assertThat(GoldenSuite.of(PROFILE).ignoreFields("fields.replicas", "contentHash").run(cases).matches()).isTrue();
    assertThat(GoldenSuite.of(PROFILE).ignoreFields("contentHash").run(cases).matches()).isFalse();
  }

  @Test
  void updateRewritesExpectedFilesSortedByKeyAndThenTheyMatch() throws IOException {
    Path cases = copyOfGolden();
    Path expected = cases.resolve("rollout/expected.jsonl");
    Files.delete(expected);
    GoldenReport before = GoldenSuite.of(PROFILE).update(cases);
    assertThat(before.diff()).contains("rollout/expected.jsonl does not exist");
    List<String> lines = Files.readAllLines(expected);
    assertThat(lines).hasSize(3);
    assertThat(lines).extracting(l -> Records.fromJson(l).key()).isSorted();
    assertThat(Files.readString(expected)).isEqualTo(Files.readString(GOLDEN.resolve("rollout/expected.jsonl")));
    GoldenSuite.of(PROFILE).run(cases).assertMatches();
  }

  @Test
  void updateRefusesToWriteAnEmptyGoldenFileAndWritesNothing() throws IOException {
    Path cases = copyOfGolden();
    Files.writeString(cases.resolve("rollout/input/deployments.yaml"), "apiVersion: v1\nkind: List\nitems: []\n");
    Files.delete(cases.resolve("rollout/input/list.json"));
    Files.writeString(cases.resolve("rollout/input/db.yaml"),
        "apiVersion: db.example.com/v1\nkind: Database\nmetadata: {name: orders}\n");
    Files.delete(cases.resolve("empty-namespace/expected.jsonl"));

    assertThatThrownBy(() -> GoldenSuite.of(PROFILE).update(cases)).isInstanceOf(ManifestException.class)
        .hasMessageStartingWith("case rollout: no record to write (read 1 object in 2 files; 0 matched the profile's resources (")
        .hasMessageContaining("; skipped: 1 db.example.com/v1 Database)")
        .hasMessageEndingWith("not writing an empty expected.jsonl: fix the profile's resources, or allow empty cases (--allow-empty)");
    // refused before any case was written, the earlier one (empty-namespace) included
    assertThat(cases.resolve("empty-namespace/expected.jsonl")).doesNotExist();
    assertThat(Files.readString(cases.resolve("rollout/expected.jsonl")))
        .isEqualTo(Files.readString(GOLDEN.resolve("rollout/expected.jsonl")));

    GoldenSuite.of(PROFILE).allowEmpty().update(cases);
    assertThat(cases.resolve("rollout/expected.jsonl")).isEmptyFile();
  }

  @Test
  void aCasesFolderWithInputIsItselfOneCase() {
    GoldenReport r = GoldenSuite.of(PROFILE).run(GOLDEN.resolve("rollout"));
    assertThat(r.cases()).singleElement().satisfies(c -> {
      assertThat(c.name()).isEqualTo("rollout");
      assertThat(c.expectedRecords()).isEqualTo(3);
      assertThat(c.actualRecords()).isEqualTo(3);
    });
  }

  @Test
  void secretsInInputsNeverReachExpectedFiles() throws IOException {
    assertThat(Files.readString(GOLDEN.resolve("rollout/expected.jsonl"))).doesNotContain("golden-leak-1").contains("********");
  }

  @Test
  void badInputsAreReportedByFileAndPositionWithoutContent() throws IOException {
    Path f = tmp.resolve("bad.yaml");
    Files.writeString(f, "apiVersion: v1\nkind: Service\nmetadata: {name: x\n  password: hunter2\n");
    assertThatThrownBy(() -> Manifests.read(f)).isInstanceOf(ManifestException.class)
        .hasMessageStartingWith(f + ": invalid YAML/JSON at line ")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> Manifests.read(tmp.resolve("nope.yaml"))).hasMessageEndingWith("nope.yaml: file not found");
    assertThatThrownBy(() -> Manifests.read(new ByteArrayInputStream("- a\n- b\n".getBytes(StandardCharsets.UTF_8)), "<stdin>"))
        .hasMessage("<stdin>: document 1 is not an object");
    assertThatThrownBy(() -> GoldenSuite.of(PROFILE).run(tmp)).hasMessageEndingWith("no cases (a case is a folder with an input/ folder)");
  }

  @Test
  void malformedExpectedLinesAreReportedWithTheirLineNumber() throws IOException {
    Path cases = copyOfGolden();
    Files.writeString(cases.resolve("rollout/expected.jsonl"), "{\"op\":\"UPSERT\"}\n");
    assertThatThrownBy(() -> GoldenSuite.of(PROFILE).run(cases)).isInstanceOf(ManifestException.class)
        .hasMessageEndingWith("expected.jsonl: line 1: not a record (needs resource and name)");
  }
}

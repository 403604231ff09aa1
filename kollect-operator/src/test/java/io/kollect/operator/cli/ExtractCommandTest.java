package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Record;
import io.kollect.extract.Records;
import io.kollect.extract.golden.Manifests;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExtractCommandTest {

  static final String PROFILE = """
      apiVersion: kollect.io/v1alpha1
      kind: KollectProfile
      metadata: {name: inventory}
      spec:
        resources:
        - group: apps
          version: v1
          kind: Deployment
          fields:
          - {name: replicas, path: "{.spec.replicas}", default: 1}
          - {name: images, path: "{.spec.template.spec.containers[*].image}"}
          - {name: env, path: "{.spec.template.spec.containers[0].env}"}
      """;

  static final String DEPLOYMENTS = """
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web, namespace: shop}
      spec:
        replicas: 3
        template:
          spec:
            containers:
            - name: web
              image: nginx:1.25
              env: [{name: API_TOKEN, value: cli-leak-1}]
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: api, namespace: shop}
      spec:
        template:
          spec:
            containers: [{name: api, image: api:1}]
      """;

  @TempDir Path dir;
  Path profile;
  Path input;

  @BeforeEach
  void files() throws Exception {
    profile = Files.writeString(dir.resolve("profile.yaml"), PROFILE);
    input = Files.writeString(dir.resolve("deployments.yaml"), DEPLOYMENTS);
  }

  @Test
  void printsOneScrubbedJsonRecordPerLineSortedByKey() {
    CliRun run = CliRun.of("extract", "--profile", profile.toString(), "--input", input.toString(),
        "--cluster", "prod-eu", "--target", "shop/inventory");
    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).isEqualTo("kollect: read 2 objects in 1 file; 2 matched the profile's resources (apps/v1 Deployment)\n");
    List<Record> records = run.out().lines().map(Records::fromJson).toList();
    assertThat(records).extracting(Record::key).containsExactly("apps/Deployment/shop/api", "apps/Deployment/shop/web");
    assertThat(records.get(0).fields().get("replicas").intValue()).isEqualTo(1);
    assertThat(records.get(1).fields().get("replicas").intValue()).isEqualTo(3);
    assertThat(records.get(1).cluster()).isEqualTo("prod-eu");
    assertThat(records.get(1).target()).isEqualTo("shop/inventory");
    assertThat(records.get(1).profile()).isEqualTo("inventory");
    assertThat(run.out()).doesNotContain("cli-leak-1").contains("********");
  }

  @Test
  void readsFoldersAndPrintsYamlOnRequest() {
    CliRun run = CliRun.of("extract", "-p", profile.toString(), "-i", dir.toString(), "--format", "yaml");
    assertThat(run.exitCode()).isZero();
    // the profile file itself is in the folder but is not a Deployment, so it yields no record
    assertThat(run.out()).startsWith("---\nop: UPSERT\ncluster: offline\ntarget: offline\nprofile: inventory\n");
    assertThat(run.out().split("---\n", -1)).hasSize(3);
    // read back, the YAML documents are the same records as the JSON lines
    List<JsonNode> docs = Manifests.read(new ByteArrayInputStream(run.out().getBytes(StandardCharsets.UTF_8)), "out");
    CliRun json = CliRun.of("extract", "-p", profile.toString(), "-i", dir.toString());
    List<JsonNode> lines = json.out().lines().map(l -> (JsonNode) Records.toTree(Records.fromJson(l))).toList();
    assertThat(docs).hasSize(2);
    for (int i = 0; i < 2; i++) {
      ((ObjectNode) docs.get(i)).remove("observedAt");
      ((ObjectNode) lines.get(i)).remove("observedAt");
    }
    assertThat(docs).isEqualTo(lines);
  }

  @Test
  void readsStandardInput() {
    InputStream saved = System.in;
    try {
      System.setIn(new ByteArrayInputStream(DEPLOYMENTS.getBytes(StandardCharsets.UTF_8)));
      CliRun run = CliRun.of("extract", "--profile", profile.toString(), "--input", "-");
      assertThat(run.exitCode()).isZero();
      assertThat(run.out().lines()).hasSize(2);
    } finally {
      System.setIn(saved);
    }
  }

  @Test
  void missingInputIsExit2WithOneLine() {
    CliRun run = CliRun.of("extract", "--profile", profile.toString(), "--input", dir.resolve("nope.yaml").toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("kollect: " + dir.resolve("nope.yaml") + ": no such file or folder\n");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void invalidYamlIsExit2WithFileLineAndColumnButNoContent() throws Exception {
    Path bad = Files.writeString(dir.resolve("bad.yaml"), "kind: Deployment\nmetadata: {name: x\n  token: hunter2\n");
    CliRun run = CliRun.of("extract", "--profile", profile.toString(), "--input", bad.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("kollect: " + bad + ": invalid YAML/JSON at line ").doesNotContain("hunter2");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void anInvalidProfileIsExit2ListingEveryProblemOnOneLine() throws Exception {
    Path p = Files.writeString(dir.resolve("p.yaml"), """
        resources:
        - version: v1
          kind: Pod
          fields:
          - {name: a, path: "{.spec.containers]}"}
          - {name: a, path: .spec.x, reduce: avg}
        """);
    CliRun run = CliRun.of("extract", "--profile", p.toString(), "--input", input.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("kollect: profile " + p + " is invalid: "
        + "resources[0].fields[0] \"a\": unexpected ']' at column 18; "
        + "resources[0].fields[1] \"a\": duplicate field name (also fields[0]); "
        + "resources[0].fields[1] \"a\": unknown reducer \"avg\" (known: count, sum, min, max, first, join)\n");
  }

  @Test
  void anUndecodableHelmReleaseIsExit2NamingTheObject() throws Exception {
    Path p = Files.writeString(dir.resolve("helm.yaml"),
        "resources: [{version: v1, kind: Secret, helmRelease: true, fields: [{name: chart, path: .release.chart.metadata.name}]}]\n");
    Path secret = Files.writeString(dir.resolve("release.yaml"), """
        apiVersion: v1
        kind: Secret
        type: helm.sh/release.v1
        metadata: {name: sh.helm.release.v1.db.v1, namespace: shop, labels: {owner: helm}}
        data: {release: "bm90LWd6aXAtcGFzc3dvcmQ9aHVudGVyMg=="}
        """);
    CliRun run = CliRun.of("extract", "--profile", p.toString(), "--input", secret.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo(
        "kollect: /Secret/shop/sh.helm.release.v1.db.v1: cannot decode Helm release: data.release is not valid base64\n");
  }

  @Test
  void anUnknownFormatIsAUsageError() {
    CliRun run = CliRun.of("extract", "--profile", profile.toString(), "--input", input.toString(), "--format", "xml");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Invalid value for option '--format'");
  }

  @Test
  void nothingMatchedSaysWhatWasReadAndSkippedByType() throws Exception {
    Path db = Files.writeString(dir.resolve("db.yaml"), """
        apiVersion: db.example.com/v1
        kind: Database
        metadata: {name: orders}
        ---
        apiVersion: db.example.com/v1
        kind: Database
        metadata: {name: users}
        """);
    CliRun run = CliRun.of("extract", "-p", profile.toString(), "-i", db.toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("kollect: read 2 objects in 1 file; 0 matched the profile's resources"
        + " (apps/v1 Deployment); skipped: 2 db.example.com/v1 Database\n");
  }

  @Test
  void aListLargerThanThreeMegabytesOfYamlIsExtracted() throws Exception {
    StringBuilder yaml = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
    String padding = "p".repeat(2000);
    int n = 0;
    while (yaml.length() < 4 * 1024 * 1024) {
      yaml.append("- {apiVersion: apps/v1, kind: Deployment, metadata: {name: d").append(n++)
          .append(", namespace: big, annotations: {pad: ").append(padding).append("}}}\n");
    }
    Path list = Files.writeString(dir.resolve("list.yaml"), yaml);

    CliRun run = CliRun.of("extract", "-p", profile.toString(), "-i", list.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines()).hasSize(n);
  }

  @Test
  void aPathThatCanNeverHaveAValueIsAWarningOnStandardError() throws Exception {
    Path p = Files.writeString(dir.resolve("auth.yaml"), """
        resources:
        - {group: apps, version: v1, kind: Deployment, fields: [{name: user, path: .spec.auth.username}]}
        """);
    CliRun run = CliRun.of("extract", "-p", p.toString(), "-i", input.toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).startsWith("kollect: warning: resources[0].fields \"user\": path .spec.auth.username"
        + " can never have a value: its ancestor key \"auth\" is scrubbed");
  }

  @Test
  void theTopLevelHelpShowsEveryCommandsSummaryAsAWholeSentence() {
    CliRun run = CliRun.of("--help");
    assertThat(run.exitCode()).isZero();
    // one entry per command; picocli wraps a long summary onto indented continuation lines
    List<String> commands = new java.util.ArrayList<>();
    run.out().lines().dropWhile(l -> !l.startsWith("Commands:")).skip(1).filter(l -> !l.isBlank())
        .forEach(l -> {
          if (l.matches("  \\S.*")) {
            commands.add(l.trim());
          } else {
            commands.set(commands.size() - 1, commands.get(commands.size() - 1) + " " + l.trim());
          }
        });
    assertThat(commands).extracting(l -> l.split("\\s+", 2)[0])
        .contains("run", "extract", "test", "diff", "experiment", "version");
    assertThat(commands).allSatisfy(l -> assertThat(l).endsWith("."));
  }
}

package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kollect.operator.LineCapture;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kollect run --stdout} end to end against a real API server. */
public class RunCommandIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static TestCluster cluster;

  @TempDir static Path tmp;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start();
    cluster.namespace("team-a");
    cluster.namespace("team-b");
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String deployment(String ns, String name, int replicas) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: %s
          namespace: %s
          labels: {app: %s}
        spec:
          replicas: %d
          selector: {matchLabels: {app: %s}}
          template:
            metadata: {labels: {app: %s}}
            spec:
              containers:
                - name: main
                  image: example.org/%s:1.0
        """.formatted(name, ns, name, replicas, name, name, name);
  }

  /** A running {@code kollect run}, stopped by interrupting its thread like Ctrl-C stops main. */
  private record Run(Thread thread, LineCapture out, LineCapture err, AtomicInteger exit) {
    void stop() throws InterruptedException {
      thread.interrupt();
      thread.join(30_000);
      assertThat(thread.isAlive()).as("kollect run stopped").isFalse();
    }
  }

  private static Run run(String... extra) {
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    AtomicInteger exit = new AtomicInteger(-1);
    Path kubeconfig = cluster.writeKubeconfig(tmp);
    List<String> args = new java.util.ArrayList<>(List.of("run", "--kubeconfig",
        kubeconfig.toString(),
        "--stdout", "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "0",
        "--cluster-name", "it", "--log-format", "text", "--checkpoint-dir",
        tmp.resolve("checkpoints-" + System.nanoTime()).toString(),
        // not a tenancy test: the platform trusts the namespaces of its targets
        "--cluster-wide-namespaces", "kollect-system,team-a,team-b,team-c"));
    args.addAll(List.of(extra));
    Thread thread = new Thread(() -> exit.set(KollectCommand.execute(out.printStream(),
        err.printStream(), args.toArray(String[]::new))), "kollect-run-it");
    thread.start();
    return new Run(thread, out, err, exit);
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new UncheckedIOException("stdout line is not JSON: " + line, e);
    }
  }

  private static List<JsonNode> records(Run run) {
    return run.out().lines().stream().map(RunCommandIT::parse).toList();
  }

  private static boolean is(JsonNode r, String op, String name, Integer replicas) {
    return r.get("op").asText().equals(op) && r.get("name").asText().equals(name)
        && (replicas == null || r.get("fields").get("replicas").asInt() == replicas);
  }

  /** {@code op name replicas} of a record, e.g. {@code UPSERT web 3} or {@code DELETE web}. */
  private static String summary(JsonNode r) {
    JsonNode replicas = r.get("fields").get("replicas");
    return r.get("op").asText() + " " + r.get("name").asText()
        + (replicas == null ? "" : " " + replicas.asInt());
  }

  private static final Pattern METRICS_ADDRESS =
      Pattern.compile("metrics listening on \\S*:(\\d+) ");
  private static final Pattern SENT_TO_STDOUT = Pattern.compile(
      "(?m)^kollect_export_records_sent_total\\{[^}]*sink=\"stdout\"[^}]*}\\s+(\\S+)$");

  /** Records the stdout sink has acknowledged, from the run's {@code /metrics}. */
  private static long sentToStdout(Run run) throws IOException, InterruptedException {
    Matcher address = METRICS_ADDRESS.matcher(run.err().text());
    assertThat(address.find()).as("the run logs its metrics address").isTrue();
    HttpResponse<String> metrics = HTTP.send(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + address.group(1) + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.statusCode()).isEqualTo(200);
    Matcher sent = SENT_TO_STDOUT.matcher(metrics.body());
    return sent.find() ? (long) Double.parseDouble(sent.group(1)) : 0;
  }

  /**
   * Waits for a record matching {@code marker} and for every batch written so far to be complete,
   * and returns the records up to then. The lines are read before the sink's acknowledged count
   * ({@code kollect_export_records_sent_total}, counted after a batch is written), so the two are
   * equal only when no batch was half-written when the lines were read.
   */
  private static List<JsonNode> delivered(Run run, Predicate<JsonNode> marker) {
    AtomicReference<List<JsonNode>> seen = new AtomicReference<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      List<JsonNode> lines = records(run);
      if (lines.stream().noneMatch(marker) || sentToStdout(run) != lines.size()) {
        return false;
      }
      seen.set(lines);
      return true;
    });
    return seen.get();
  }

  @Test
  void exportsOneRecordPerExtractedChangeOfInScopeObjectsOnly() throws Exception {
    cluster.apply(TestCluster.deploymentsProfile(
        "{name: image, path: \"{.spec.template.spec.containers[0].image}\"}") + """
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: team-a-deployments, namespace: team-a}
        spec:
          profileRef: deployments
          scope: {namespaces: [team-a]}
        """);
    cluster.apply(deployment("team-a", "web", 1));
    cluster.apply(deployment("team-b", "web", 1));

    Run run = run();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> !run.out().lines().isEmpty());
      JsonNode upsert = records(run).get(0);
      assertThat(upsert.get("op").asText()).isEqualTo("UPSERT");
      assertThat(upsert.get("namespace").asText()).isEqualTo("team-a");
      assertThat(upsert.get("name").asText()).isEqualTo("web");
      assertThat(upsert.get("cluster").asText()).isEqualTo("it");
      assertThat(upsert.get("target").asText()).isEqualTo("team-a/team-a-deployments");
      assertThat(upsert.get("resource").get("kind").asText()).isEqualTo("Deployment");
      assertThat(upsert.get("fields").get("replicas").asInt()).isEqualTo(1);
      assertThat(upsert.get("fields").get("image").asText()).isEqualTo("example.org/web:1.0");

      // The scale is the marker for the start-up: its record comes from a later reconcile than
      // every start-up one, so a wrongly exported out-of-scope object or duplicate would be a line
      // before it (or in its batch, which delivered() waits to be complete).
      deployments("team-a").withName("web").edit(d -> {
        d.getSpec().setReplicas(3);
        return d;
      });
      List<JsonNode> first = delivered(run, r -> is(r, "UPSERT", "web", 3));
      assertThat(first).hasSize(2);
      assertThat(first.get(0)).isEqualTo(upsert);
      JsonNode scaled = first.get(1);
      assertThat(scaled.get("op").asText()).isEqualTo("UPSERT");
      assertThat(scaled.get("fields").get("replicas").asInt()).isEqualTo(3);

      // An annotation the profile does not extract changes no record. Its processing shows
      // nowhere, so another object then changes twice: the watch delivers both after the
      // annotation, and the reconcile exporting the second starts after the one exporting the
      // first read the cache, which by then held the annotated web. So that reconcile, or an
      // earlier one, saw the annotated web: a record for it would be a line before the marker's
      // or in its batch.
      deployments("team-a").withName("web").edit(d -> {
        d.getMetadata().setAnnotations(Map.of("example.org/note", "not extracted"));
        return d;
      });
      cluster.apply(deployment("team-a", "marker", 1));
      delivered(run, r -> is(r, "UPSERT", "marker", 1));
      deployments("team-a").withName("marker").edit(d -> {
        d.getSpec().setReplicas(2);
        return d;
      });
      assertThat(delivered(run, r -> is(r, "UPSERT", "marker", 2)).stream()
          .map(RunCommandIT::summary)).containsExactly("UPSERT web 1", "UPSERT web 3",
              "UPSERT marker 1", "UPSERT marker 2");

      deployments("team-a").withName("web").edit(d -> {
        d.getSpec().setReplicas(4);
        return d;
      });
      List<JsonNode> afterScale = delivered(run, r -> is(r, "UPSERT", "web", 4));
      assertThat(afterScale).hasSize(5);
      assertThat(afterScale.get(4).get("fields").get("replicas").asInt()).isEqualTo(4);

      // The delete is the marker for the scale (exactly one record), and deleting the marker
      // object afterwards is the marker for the delete (exactly one tombstone).
      deployments("team-a").withName("web").delete();
      List<JsonNode> afterDelete = delivered(run, r -> is(r, "DELETE", "web", null));
      assertThat(afterDelete).hasSize(6);
      assertThat(afterDelete.get(5).get("op").asText()).isEqualTo("DELETE");
      assertThat(afterDelete.get(5).get("name").asText()).isEqualTo("web");
      deployments("team-a").withName("marker").delete();
      List<JsonNode> all = delivered(run, r -> is(r, "DELETE", "marker", null));
      assertThat(all.stream().map(RunCommandIT::summary)).containsExactly("UPSERT web 1",
          "UPSERT web 3", "UPSERT marker 1", "UPSERT marker 2", "UPSERT web 4", "DELETE web",
          "DELETE marker");
      assertThat(all).allSatisfy(r -> assertThat(r.get("namespace").asText()).isEqualTo("team-a"));
      // Logs went to stderr, not into the records.
      assertThat(run.err().text()).isNotBlank();
    } finally {
      run.stop();
    }
    assertThat(run.exit().get()).isZero();
  }

  @Test
  void badResourcesAreReportedInOneLineNamingTheObjectAndFieldWithoutStoppingTheOperator()
      throws Exception {
    cluster.namespace("team-c");
    Run run = run("--namespaces", "team-c");
    try {
      cluster.apply("""
          apiVersion: kollect.io/v1alpha1
          kind: KollectProfile
          metadata: {name: broken-path}
          spec:
            resources:
              - group: apps
                version: v1
                kind: Deployment
                fields:
                  - {name: replicas, path: "{.spec.replicas[}"}
          ---
          apiVersion: kollect.io/v1alpha1
          kind: KollectTarget
          metadata: {name: outside-namespaces-flag, namespace: team-b}
          spec:
            profileRef: no-such-profile
          ---
          apiVersion: kollect.io/v1alpha1
          kind: KollectTarget
          metadata: {name: names-missing-profile, namespace: team-c}
          spec:
            profileRef: no-such-profile
          ---
          apiVersion: kollect.io/v1alpha1
          kind: KollectTarget
          metadata: {name: bad-selector, namespace: team-c}
          spec:
            profileRef: broken-path
            scope:
              labelSelector:
                matchExpressions: [{key: tier, operator: Maybe}]
          """);
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(run.err().lines())
          .anySatisfy(line -> assertThat(line).contains("broken-path")
              .contains("resources[0].fields[0]")));
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(run.err().lines())
          .anySatisfy(line -> assertThat(line).contains("team-c/names-missing-profile")
              .contains("spec.profileRef").contains("no-such-profile")));

      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(run.err().lines())
          .anySatisfy(line -> assertThat(line).contains("team-c/bad-selector")
              .contains("scope.labelSelector.matchExpressions[0].operator")
              .contains("Maybe")));

      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        KollectProfile p = cluster.client().resources(KollectProfile.class)
            .withName("broken-path").get();
        assertThat(p.getStatus()).isNotNull();
        Condition degraded = condition(p.getStatus().conditions(), "Degraded");
        assertThat(degraded.getStatus()).isEqualTo("True");
        assertThat(degraded.getMessage()).contains("resources[0].fields[0]");
      });
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        KollectTarget t = cluster.client().resources(KollectTarget.class).inNamespace("team-c")
            .withName("names-missing-profile").get();
        assertThat(t.getStatus()).isNotNull();
        Condition ready = condition(t.getStatus().conditions(), "Ready");
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getMessage()).contains("no-such-profile");
      });
      // ... and kubectl describe shows them as Warning events.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(cluster.client().v1().events().inNamespace("default").list().getItems())
              .anySatisfy(e -> {
                assertThat(e.getInvolvedObject().getKind()).isEqualTo("KollectProfile");
                assertThat(e.getInvolvedObject().getName()).isEqualTo("broken-path");
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getReason()).isEqualTo("InvalidProfile");
                assertThat(e.getMessage()).contains("resources[0].fields[0]");
              }));
      assertThat(run.thread().isAlive()).isTrue();
      // --namespaces team-c: a target elsewhere is not handled at all.
      assertThat(run.err().text()).doesNotContain("outside-namespaces-flag");
      assertThat(cluster.client().resources(KollectTarget.class).inNamespace("team-b")
          .withName("outside-namespaces-flag").get().getStatus()).isNull();
      // Each problem is one line: no stack traces for bad input.
      assertThat(run.err().lines()).noneMatch(l -> l.startsWith("\tat "));
    } finally {
      run.stop();
    }
  }

  @Test
  void wrongFlagsExitWithOneLineAndAHintAndBadValuesWithOneLine() {
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    assertThat(KollectCommand.execute(out.printStream(), err.printStream(), "run",
        "--no-such-flag"))
        .isEqualTo(2);
    // one line and a pointer to the help, not the whole usage
    assertThat(err.lines()).containsExactly("kollect: Unknown option: '--no-such-flag'",
        "kollect: see 'kollect run --help'");

    LineCapture err2 = new LineCapture();
    assertThat(KollectCommand.execute(out.printStream(), err2.printStream(), "run", "--workers",
        "many"))
        .isEqualTo(2);
    assertThat(err2.lines()).hasSize(1);
    assertThat(err2.text()).contains("--workers").contains("many");

    LineCapture err3 = new LineCapture();
    assertThat(KollectCommand.execute(out.printStream(), err3.printStream(), "run",
        "--resync-period", "often")).isEqualTo(2);
    assertThat(err3.lines()).hasSize(1);
    assertThat(err3.text()).contains("--resync-period").contains("often");

    LineCapture err4 = new LineCapture();
    assertThat(KollectCommand.execute(out.printStream(), err4.printStream(), "run",
        "--kubeconfig", tmp.resolve("missing").toString())).isEqualTo(2);
    assertThat(err4.lines()).hasSize(1);
    assertThat(err4.text()).contains("--kubeconfig");
    assertThat(out.lines()).isEmpty();
  }

  private static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<Deployment,
      io.fabric8.kubernetes.api.model.apps.DeploymentList,
      io.fabric8.kubernetes.client.dsl.RollableScalableResource<Deployment>> deployments(String ns) {
    return cluster.client().apps().deployments().inNamespace(ns);
  }

  public static Condition condition(List<Condition> conditions, String type) {
    assertThat(conditions).isNotNull();
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst()
        .orElseThrow(() -> new AssertionError("no " + type + " condition in " + conditions));
  }
}

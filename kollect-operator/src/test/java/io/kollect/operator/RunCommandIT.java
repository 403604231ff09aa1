package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 2's first slice end to end: {@code kollect run --stdout} against a real API server. */
class RunCommandIT {

  private static final ObjectMapper JSON = new ObjectMapper();
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
    List<String> args = new java.util.ArrayList<>(List.of("run", "--kubeconfig", kubeconfig.toString(),
        "--stdout", "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
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

  @Test
  void exportsOneRecordPerExtractedChangeOfInScopeObjectsOnly() throws Exception {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: deployments}
        spec:
          resources:
            - group: apps
              version: v1
              kind: Deployment
              fields:
                - {name: replicas, path: "{.spec.replicas}"}
                - {name: image, path: "{.spec.template.spec.containers[0].image}"}
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
      // Give a wrongly exported out-of-scope object or duplicate time to show up.
      Thread.sleep(2000);
      List<JsonNode> first = records(run);
      assertThat(first).hasSize(1);
      JsonNode upsert = first.get(0);
      assertThat(upsert.get("op").asText()).isEqualTo("UPSERT");
      assertThat(upsert.get("namespace").asText()).isEqualTo("team-a");
      assertThat(upsert.get("name").asText()).isEqualTo("web");
      assertThat(upsert.get("cluster").asText()).isEqualTo("it");
      assertThat(upsert.get("target").asText()).isEqualTo("team-a/team-a-deployments");
      assertThat(upsert.get("resource").get("kind").asText()).isEqualTo("Deployment");
      assertThat(upsert.get("fields").get("replicas").asInt()).isEqualTo(1);
      assertThat(upsert.get("fields").get("image").asText()).isEqualTo("example.org/web:1.0");

      deployments("team-a").withName("web").edit(d -> {
        d.getSpec().setReplicas(3);
        return d;
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> run.out().lines().size() >= 2);
      JsonNode scaled = records(run).get(1);
      assertThat(scaled.get("op").asText()).isEqualTo("UPSERT");
      assertThat(scaled.get("fields").get("replicas").asInt()).isEqualTo(3);

      // An annotation the profile does not extract changes no record; the scale after it is the
      // next line, which proves the annotation change was seen and produced nothing.
      deployments("team-a").withName("web").edit(d -> {
        d.getMetadata().setAnnotations(Map.of("example.org/note", "not extracted"));
        return d;
      });
      Thread.sleep(1500);
      deployments("team-a").withName("web").edit(d -> {
        d.getSpec().setReplicas(4);
        return d;
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> run.out().lines().size() >= 3);
      Thread.sleep(1000);
      assertThat(records(run)).hasSize(3);
      assertThat(records(run).get(2).get("fields").get("replicas").asInt()).isEqualTo(4);

      deployments("team-a").withName("web").delete();
      await().atMost(Duration.ofSeconds(30)).until(() -> run.out().lines().size() >= 4);
      Thread.sleep(1000);
      List<JsonNode> all = records(run);
      assertThat(all).hasSize(4);
      assertThat(all.get(3).get("op").asText()).isEqualTo("DELETE");
      assertThat(all.get(3).get("name").asText()).isEqualTo("web");
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
        KollectProfile p = cluster.client().resources(KollectProfile.class).withName("broken-path").get();
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
  void wrongFlagsExitWithUsageAndBadValuesWithOneLine() {
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    assertThat(KollectCommand.execute(out.printStream(), err.printStream(), "run", "--no-such-flag"))
        .isEqualTo(2);
    assertThat(err.text()).contains("Unknown option: '--no-such-flag'").contains("Usage: kollect run");

    LineCapture err2 = new LineCapture();
    assertThat(KollectCommand.execute(out.printStream(), err2.printStream(), "run", "--workers", "many"))
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

  static Condition condition(List<Condition> conditions, String type) {
    assertThat(conditions).isNotNull();
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst()
        .orElseThrow(() -> new AssertionError("no " + type + " condition in " + conditions));
  }
}

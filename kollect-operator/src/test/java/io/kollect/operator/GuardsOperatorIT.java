package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.targets.ReconcileRequests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guards through the operator on a real API server: target and sink {@code suspend},
 * the cardinality warning and cap, and the {@code kollect.io/reconcile-requested-at} annotation.
 * (The circuit breaker's open/half-open/close is driven through the engine in core's GuardsIT:
 * an API call of a reconcile cannot be made to fail here without breaking the whole server.)
 */
class GuardsOperatorIT {

  static final Duration WAIT = Duration.ofSeconds(60);
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static TestOperator operator;
  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    cluster = TestCluster.start();
    client = cluster.client();
    cluster.namespace("kollect-system");
    cluster.namespace("guards");
    cluster.apply(TestCluster.deploymentsProfile());
    operator = TestOperator.on(cluster)
        .trusting("guards", "suspend-target", "suspend-sink", "card", "force")
        .configure(c -> c.toBuilder().statusWriteInterval(Duration.ofMillis(200))
            .guards(new GuardSettings(5, Duration.ofMinutes(10), 2)).build())
        .start();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void deployment(String ns, String name, int replicas) {
    client.apps().deployments().inNamespace(ns).resource(new DeploymentBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec().addNewContainer().withName("m").withImage("m:1").endContainer().endSpec()
        .endTemplate().endSpec().build()).create();
  }

  private static void scale(String ns, String name, int replicas) {
    client.apps().deployments().inNamespace(ns).withName(name).edit(d -> {
      d.getSpec().setReplicas(replicas);
      return d;
    });
  }

  private static void sink(String ns, String name, Path file, boolean suspend) {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: %s, namespace: %s}
        spec:
          type: file
          file: {path: %s}
          batch: {linger: 10ms}
          suspend: %s
        """.formatted(name, ns, file, suspend));
  }

  private static void target(String ns, String name, String sink, String extra) {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: %s, namespace: %s}
        spec:
          profileRef: deployments
          scope: {namespaces: [%s]}
          sinkRefs: [%s]
        %s""".formatted(name, ns, ns, sink, extra.indent(2)));
  }

  private static List<Record> records(Path file) {
    try {
      if (!Files.exists(file)) {
        return List.of();
      }
      return Files.readAllLines(file).stream().filter(l -> !l.isBlank())
          .map(Records::fromJson).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static KollectTargetStatus status(String ns, String name) {
    KollectTarget t = client.resources(KollectTarget.class).inNamespace(ns).withName(name).get();
    return t == null ? null : t.getStatus();
  }

  private static Condition condition(List<Condition> conditions, String type) {
    return conditions == null ? null
        : conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
  }

  private static boolean targetIs(String ns, String name, String type, String status,
      String reason) {
    KollectTargetStatus s = status(ns, name);
    Condition c = s == null ? null : condition(s.conditions(), type);
    return c != null && c.getStatus().equals(status) && c.getReason().equals(reason);
  }

  @Test
  void aSuspendedTargetExportsNothingAndResumingSendsOnlyWhatChanged() {
    cluster.namespace("suspend-target");
    deployment("suspend-target", "a", 1);
    deployment("suspend-target", "b", 1);
    Path file = dir.resolve("suspend-target.jsonl");
    sink("suspend-target", "file", file, false);
    target("suspend-target", "t", "file", "");
    await().atMost(WAIT).until(() -> records(file).size() == 2);

    target("suspend-target", "t", "file", "suspend: true");
    await().atMost(WAIT).until(() -> targetIs("suspend-target", "t", "Ready", "False",
        "Suspended"));
    scale("suspend-target", "a", 3);
    deployment("suspend-target", "c", 1);
    await().pollDelay(Duration.ofSeconds(1)).atMost(WAIT).until(() -> true);
    assertThat(records(file)).hasSize(2);

    target("suspend-target", "t", "file", "suspend: false");
    await().atMost(WAIT).until(() -> records(file).size() >= 4);
    await().pollDelay(Duration.ofMillis(500)).atMost(WAIT).until(() -> true);
    assertThat(records(file).subList(2, records(file).size()))
        .extracting(Record::name, Record::op)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("a", Op.UPSERT),
            org.assertj.core.groups.Tuple.tuple("c", Op.UPSERT));
  }

  @Test
  void aSuspendedSinkIsToldSoItsTargetsSaySoAndResumingSendsOnlyWhatChanged() {
    cluster.namespace("suspend-sink");
    deployment("suspend-sink", "a", 1);
    Path file = dir.resolve("suspend-sink.jsonl");
    sink("suspend-sink", "file", file, false);
    target("suspend-sink", "t", "file", "");
    await().atMost(WAIT).until(() -> records(file).size() == 1);

    sink("suspend-sink", "file", file, true);
    await().atMost(WAIT).untilAsserted(() -> {
      KollectSink s = client.resources(KollectSink.class).inNamespace("suspend-sink")
          .withName("file").get();
      Condition ready = condition(s.getStatus().conditions(), "Ready");
      assertThat(ready.getReason()).isEqualTo("Suspended");
      assertThat(ready.getStatus()).isEqualTo("False");
    });
    scale("suspend-sink", "a", 2);
    deployment("suspend-sink", "b", 1);
    await().atMost(WAIT).until(() -> targetIs("suspend-sink", "t", "Ready", "True",
        "Suspended"));
    await().pollDelay(Duration.ofSeconds(1)).atMost(WAIT).until(() -> true);
    assertThat(records(file)).hasSize(1);

    sink("suspend-sink", "file", file, false);
    await().atMost(WAIT).until(() -> records(file).size() >= 3);
    await().pollDelay(Duration.ofMillis(500)).atMost(WAIT).until(() -> true);
    List<Record> all = records(file);
    assertThat(all.subList(1, all.size())).extracting(Record::name)
        .containsExactlyInAnyOrder("a", "b");
    assertThat(all.get(all.size() - 1).op()).isEqualTo(Op.UPSERT);
  }

  @Test
  void aTargetOverTheThresholdWarnsAndItsCapLeavesTheLastKeysOut() {
    cluster.namespace("card");
    for (String name : List.of("a", "b", "c")) {
      deployment("card", name, 1);
    }
    Path file = dir.resolve("card.jsonl");
    sink("card", "file", file, false);
    target("card", "warn", "file", "");
    target("card", "cap", "file", "limits: {maxObjects: 1}");

    await().atMost(WAIT).until(() -> targetIs("card", "warn", "HighCardinality", "True",
        "TooManyObjects"));
    await().atMost(WAIT).until(() -> targetIs("card", "cap", "HighCardinality", "True",
        "ObjectsCapped"));
    KollectTargetStatus capped = status("card", "cap");
    assertThat(condition(capped.conditions(), "HighCardinality").getMessage())
        .contains("2 left out");
    assertThat(condition(capped.conditions(), "Ready").getStatus()).isEqualTo("True");
    assertThat(capped.objectCounts()).isEqualTo(Map.of("apps/v1/Deployment", 3));
    await().atMost(WAIT).until(() -> records(file).stream()
        .filter(r -> r.target().equals("card/cap")).count() == 1);
    assertThat(records(file).stream().filter(r -> r.target().equals("card/cap"))
        .map(Record::name)).containsExactly("a");
  }

  @Test
  void theReconcileRequestedAtAnnotationForcesAFullPassAndIsEchoedInStatus() {
    cluster.namespace("force");
    Path file = dir.resolve("force.jsonl");
    sink("force", "file", file, false);
    target("force", "t", "file", "");
    await().atMost(WAIT).until(() -> targetIs("force", "t", "Ready", "True", "Reconciled"));

    client.resources(KollectTarget.class).inNamespace("force").withName("t").edit(t -> {
      t.getMetadata().setAnnotations(Map.of(ReconcileRequests.ANNOTATION, "2024-05-01T10:00:00Z"));
      return t;
    });

    await().atMost(WAIT).until(() -> status("force", "t") != null
        && "2024-05-01T10:00:00Z".equals(status("force", "t").lastHandledReconcileAt()));
  }
}

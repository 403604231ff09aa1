package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.core.Shard;
import io.kollect.testing.SequencedRecordReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, "a shard count change", in the operator with its default checkpoint store
 * (ConfigMaps): two shards export to one http receiver and stop; while no operator runs, objects
 * are deleted (one that moves to the new shard 2, one that moves between the old indexes),
 * changed and created; then the old indexes start with three shards before the new shard 2
 * does. The receiver, folding by largest sequence, ends with exactly the cluster's objects: each
 * deleted object got its DELETE from its new owner, which took its checkpoint entry over from the
 * old owner's ConfigMaps.
 */
class ShardHandoverIT {

  private static final String APPS = "apps";
  private static final String NS = "handover";
  private static final int OBJECTS = 30;
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private static TestCluster cluster;
  private static SequencedRecordReceiver receiver;
  private static final List<TestOperator> operators = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start();
    receiver = new SequencedRecordReceiver();
    cluster.namespace("kollect-system");
    cluster.namespace(APPS);
    cluster.namespace(NS);
    for (int i = 0; i < OBJECTS; i++) {
      configMap("cm-" + i, "v" + i);
    }
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: hook, namespace: %s}
        spec:
          type: http
          http: {url: "%s"}
          batch: {linger: 50ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: %s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%s]}
          sinkRefs: [hook]
        """.formatted(NS, receiver.uri(), NS, APPS));
  }

  @AfterAll
  static void stop() {
    stopOperators();
    receiver.close();
    cluster.close();
  }

  private static void startShard(Shard shard) {
    operators.add(TestOperator.on(cluster).trusting(NS)
        .configure(c -> c.withShard(shard).withStatusWriteInterval(Duration.ofMillis(300)))
        .start());
  }

  private static void stopOperators() {
    operators.forEach(TestOperator::close);
    operators.clear();
  }

  private static void configMap(String name, String v) {
    cluster.client().configMaps().inNamespace(APPS).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).endMetadata().withData(Map.of("v", v)).build())
        .createOr(NonDeletingOperation::update);
  }

  /** The cluster's ConfigMaps in {@code apps}: name to {@code data.v}. */
  private static Map<String, String> clusterState() {
    Map<String, String> out = new HashMap<>();
    for (ConfigMap cm : cluster.client().configMaps().inNamespace(APPS).list().getItems()) {
      out.put(cm.getMetadata().getName(), cm.getData() == null ? null : cm.getData().get("v"));
    }
    return out;
  }

  /** What the receiver folded (largest sequence per key wins): name to field {@code v}. */
  private static Map<String, String> folded() {
    Map<String, String> out = new HashMap<>();
    receiver.byName().forEach((name, r) -> out.put(name,
        r.path("fields").path("v").isMissingNode() || r.path("fields").path("v").isNull()
            ? null : r.path("fields").path("v").asText()));
    return out;
  }

  private static boolean owns(Shard shard, String name) {
    return shard.owns("it", "", "ConfigMap", APPS, name);
  }

  private static int owner(int total, String name) {
    for (int i = 0; i < total; i++) {
      if (owns(new Shard(total, i), name)) {
        return i;
      }
    }
    throw new IllegalStateException(name);
  }

  @Test
  void objectsDeletedWhileTheShardCountChangedWithNoOperatorRunningGetTheirDeleteFromTheNewOwner() {
    startShard(new Shard(2, 0));
    startShard(new Shard(2, 1));
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(folded()).isEqualTo(clusterState()));
    stopOperators();

    List<String> names = new ArrayList<>(clusterState().keySet());
    names.sort(null);
    String toNewShard = names.stream().filter(n -> owner(3, n) == 2).findFirst().orElseThrow();
    String betweenOld = names.stream()
        .filter(n -> owner(3, n) < 2 && owner(3, n) != owner(2, n)).findFirst().orElseThrow();
    String changed = names.stream().filter(n -> owner(3, n) == 2 && !n.equals(toNewShard))
        .findFirst().orElseThrow();
    cluster.client().configMaps().inNamespace(APPS).withName(toNewShard).delete();
    cluster.client().configMaps().inNamespace(APPS).withName(betweenOld).delete();
    configMap(changed, "changed");
    configMap("cm-created", "new");
    await().atMost(CONVERGE).until(() -> !clusterState().containsKey(toNewShard)
        && !clusterState().containsKey(betweenOld));

    // the old indexes restart with the new count first: the object that moved between them is
    // deleted by its new owner, the one that moved to shard 2 waits in its old owner's checkpoint
    startShard(new Shard(3, 0));
    startShard(new Shard(3, 1));
    await().atMost(CONVERGE).until(() -> !folded().containsKey(betweenOld));
    assertThat(folded()).containsKey(toNewShard);

    startShard(new Shard(3, 2));
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(folded()).isEqualTo(clusterState()));
    assertThat(folded()).doesNotContainKeys(toNewShard, betweenOld)
        .containsEntry(changed, "changed").containsEntry("cm-created", "new");
    assertThat(receiver.unsequenced()).isZero();
  }
}

package io.kollect.operator.shard;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.core.Shard;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.testing.SequencedRecordReceiver;
import java.util.HashMap;
import java.util.Map;

/**
 * What the sharded-operator tests run against: one API server; ConfigMaps {@code cm-0..cm-(n-1)}
 * (field {@code v} = {@code data.v}) in namespace {@value #APPS}; the {@code configmaps} profile;
 * and, in a namespace of the test's own, an http KollectSink {@code hook} that delivers to a
 * {@link SequencedRecordReceiver} and a KollectTarget {@code t} that reads {@value #APPS}.
 */
final class ShardedConfigMaps implements AutoCloseable {

  static final String APPS = "apps";

  final TestCluster cluster;
  final SequencedRecordReceiver receiver;

  private ShardedConfigMaps(TestCluster cluster, SequencedRecordReceiver receiver) {
    this.cluster = cluster;
    this.receiver = receiver;
  }

  /**
   * Starts the API server and the receiver and creates the objects.
   *
   * @param namespace the target's and the sink's namespace
   * @param writeInventory whether the target also writes KollectInventory objects
   */
  static ShardedConfigMaps start(String namespace, int objects, boolean writeInventory)
      throws Exception {
    ShardedConfigMaps world = new ShardedConfigMaps(TestCluster.start(),
        new SequencedRecordReceiver());
    TestCluster cluster = world.cluster;
    cluster.namespace("kollect-system");
    cluster.namespace(APPS);
    cluster.namespace(namespace);
    for (int i = 0; i < objects; i++) {
      world.configMap("cm-" + i, "v" + i);
    }
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: hook, namespace: %1$s}
        spec:
          type: http
          http: {url: "%2$s"}
          batch: {linger: 50ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%3$s]}
          sinkRefs: [hook]
          writeInventory: %4$s
        """.formatted(namespace, world.receiver.uri(), APPS, writeInventory));
    return world;
  }

  /** Creates or updates ConfigMap {@code name} in {@value #APPS} with {@code data.v}. */
  void configMap(String name, String v) {
    cluster.client().configMaps().inNamespace(APPS).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).endMetadata().withData(Map.of("v", v)).build())
        .createOr(NonDeletingOperation::update);
  }

  /** The cluster's ConfigMaps in {@value #APPS}: name to {@code data.v}. */
  Map<String, String> clusterState() {
    Map<String, String> out = new HashMap<>();
    for (ConfigMap cm : cluster.client().configMaps().inNamespace(APPS).list().getItems()) {
      out.put(cm.getMetadata().getName(), cm.getData() == null ? null : cm.getData().get("v"));
    }
    return out;
  }

  /** What the receiver folded (largest sequence per key wins): name to field {@code v}. */
  Map<String, String> folded() {
    Map<String, String> out = new HashMap<>();
    receiver.byName().forEach((name, r) -> out.put(name,
        r.path("fields").path("v").isMissingNode() || r.path("fields").path("v").isNull()
            ? null : r.path("fields").path("v").asText()));
    return out;
  }

  /** Whether {@code shard} owns ConfigMap {@code name} of {@value #APPS} (cluster {@code it}). */
  static boolean owns(Shard shard, String name) {
    return shard.owns("it", "", "ConfigMap", APPS, name);
  }

  /** The index of the shard of {@code total} that owns ConfigMap {@code name}. */
  static int owner(int total, String name) {
    for (int i = 0; i < total; i++) {
      if (owns(new Shard(total, i), name)) {
        return i;
      }
    }
    throw new IllegalStateException(name);
  }

  @Override
  public void close() {
    receiver.close();
    cluster.close();
  }
}

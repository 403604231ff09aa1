package io.kollect.operator.shard;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.core.Shard;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.testing.SequencedRecordReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the sharded-operator tests run against, for one IT class (a JUnit extension: register it
 * as a static field): one API server; ConfigMaps {@code cm-0..cm-(n-1)} (field {@code v} = {@code
 * data.v}) in namespace {@value #APPS}; the {@code configmaps} profile; and, in a namespace of the
 * test's own, an http KollectSink {@code hook} that delivers to a {@link SequencedRecordReceiver}
 * and a KollectTarget {@code t} that reads {@value #APPS}. The shards' operators it starts are
 * stopped with it.
 */
final class ShardedConfigMaps implements BeforeAllCallback, AfterAllCallback {

  static final String APPS = "apps";

  private final String namespace;
  private final int objects;
  private final boolean writeInventory;
  private final List<TestOperator> operators = new ArrayList<>();
  private TestCluster cluster;
  private SequencedRecordReceiver receiver;

  /**
   * @param namespace the target's and the sink's namespace
   * @param writeInventory whether the target also writes KollectInventory objects
   */
  ShardedConfigMaps(String namespace, int objects, boolean writeInventory) {
    this.namespace = namespace;
    this.objects = objects;
    this.writeInventory = writeInventory;
  }

  TestCluster cluster() {
    return cluster;
  }

  SequencedRecordReceiver receiver() {
    return receiver;
  }

  /**
   * Starts the operator of {@code shard}, trusting the target's namespace, statuses written every
   * 300 ms, with what {@code more} changes.
   */
  TestOperator startShard(Shard shard, UnaryOperator<TestOperator> more) {
    TestOperator operator = more.apply(TestOperator.on(cluster).trusting(namespace)
        .configure(c -> c.toBuilder().shard(shard).statusWriteInterval(Duration.ofMillis(300))
            .build()));
    operators.add(operator.start());
    return operator;
  }

  /** Stops every shard's operator started so far. */
  void stopShards() {
    operators.forEach(TestOperator::close);
    operators.clear();
  }

  /** Starts the API server and the receiver and creates the objects. */
  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    receiver = new SequencedRecordReceiver();
    cluster = TestCluster.start();
    cluster.namespace("kollect-system");
    cluster.namespace(APPS);
    cluster.namespace(namespace);
    for (int i = 0; i < objects; i++) {
      configMap("cm-" + i, "v" + i);
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
        """.formatted(namespace, receiver.uri(), APPS, writeInventory));
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
  public void afterAll(ExtensionContext context) {
    stopShards();
    if (receiver != null) {
      receiver.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}

package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.kollect.core.Shard;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectTargetStatus.ShardEntry;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.targets.CrTranslation;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Per-shard status: in-process operators given {@code --total-shards N --shard I} over
 * one API server and one KollectTarget. Each shard writes its own {@code status.shards[]} entry
 * (server-side apply, field manager {@code kollect-shard-I}); shard 0 writes the top level: the
 * sum of the entries, and Ready only when every shard is.
 */
class ShardStatusIT {

  private static final String APPS = "apps";
  private static final String NS = "status";
  private static final int OBJECTS = 30;
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private static TestCluster cluster;
  /** Running operators by shard index. */
  private static final Map<Integer, TestOperator> running = new java.util.TreeMap<>();

  @BeforeAll
  static void start() {
    cluster = TestCluster.start();
    cluster.namespace("kollect-system");
    cluster.namespace(APPS);
    cluster.namespace(NS);
    for (int i = 0; i < OBJECTS; i++) {
      cluster.client().configMaps().inNamespace(APPS).resource(new ConfigMapBuilder()
          .withNewMetadata().withName("cm-" + i).endMetadata().withData(Map.of("v", "" + i))
          .build()).create();
    }
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: %s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%s]}
        """.formatted(NS, APPS));
  }

  @AfterAll
  static void stop() {
    running.values().forEach(TestOperator::close);
    cluster.close();
  }

  private static void startShard(Shard shard) {
    running.put(shard.index(), TestOperator.on(cluster).trusting(NS)
        .configure(c -> c.toBuilder().shard(shard).statusWriteInterval(Duration.ofMillis(300))
            .build())
        .stdout(new PrintStream(OutputStream.nullOutputStream(), true))
        .start());
  }

  private static void stopShard(int index) {
    running.remove(index).close();
  }

  private static GenericKubernetesResource target() {
    return cluster.client().genericKubernetesResources("kollect.io/v1alpha1", "KollectTarget")
        .inNamespace(NS).withName("t").get();
  }

  private static KollectTargetStatus status() {
    Object status = target().getAdditionalProperties().get("status");
    return status == null ? null
        : CrTranslation.lenient().convertValue(status, KollectTargetStatus.class);
  }

  private static List<ShardEntry> shards() {
    KollectTargetStatus s = status();
    return s == null || s.shards() == null ? List.of() : s.shards();
  }

  private static ShardEntry entry(int index) {
    return shards().stream().filter(e -> e.index() == index).findFirst().orElse(null);
  }

  private static io.fabric8.kubernetes.api.model.Condition ready() {
    KollectTargetStatus s = status();
    return s == null || s.conditions() == null ? null : s.conditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
  }

  private static int owned(Shard shard) {
    return (int) IntStream.range(0, OBJECTS)
        .filter(i -> shard.owns("it", "", "ConfigMap", APPS, "cm-" + i)).count();
  }

  /** The managedFields entry of a field manager on the target, or {@code null}. */
  private static ManagedFieldsEntry managed(String manager) {
    return target().getMetadata().getManagedFields().stream()
        .filter(m -> manager.equals(m.getManager())).findFirst().orElse(null);
  }

  @Test
  void eachShardReportsItsPartAndTheTargetIsReadyOnlyWhenEveryShardIs() {
    // ---- three shards configured, two running: shard 2 never reports ---------------------------
    startShard(new Shard(3, 0));
    startShard(new Shard(3, 1));
    await().atMost(CONVERGE).untilAsserted(() -> {
      for (int i = 0; i < 2; i++) {
        ShardEntry e = entry(i);
        assertThat(e).as("entry of shard %s", i).isNotNull();
        assertThat(e.ready()).isEqualTo("True");
        assertThat(e.objects()).isEqualTo(owned(new Shard(3, i)));
        assertThat(e.objectCounts()).isEqualTo(Map.of("v1/ConfigMap", owned(new Shard(3, i))));
      }
      assertThat(ready().getStatus()).isEqualTo("False");
      assertThat(ready().getReason()).isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
      assertThat(ready().getMessage()).isEqualTo("1 of 3 shards not ready: shard 2: no status yet");
      assertThat(status().objects()).isEqualTo(owned(new Shard(3, 0)) + owned(new Shard(3, 1)));
    });
    assertThat(owned(new Shard(3, 2))).as("shard 2's part is missing from the total").isPositive();
    for (int i = 0; i < 2; i++) {
      ManagedFieldsEntry m = managed(ShardStatuses.fieldManager(i));
      assertThat(m).as("field manager of shard %s", i).isNotNull();
      assertThat(m.getOperation()).isEqualTo("Apply");
      assertThat(m.getFieldsV1().getAdditionalProperties().toString())
          .contains("k:{\"index\":" + i + "}").doesNotContain("k:{\"index\":" + (1 - i) + "}");
      assertThat(Set.copyOf(((Map<?, ?>) m.getFieldsV1().getAdditionalProperties()
          .get("f:status")).keySet()))
          .as("shard %s owns its entry of status.shards and nothing else", i)
          .isEqualTo(Set.of("f:shards"));
    }

    // ---- the third shard starts: Ready, with every object counted -------------------------------
    startShard(new Shard(3, 2));
    await().atMost(CONVERGE).untilAsserted(() -> {
      assertThat(ready().getStatus()).isEqualTo("True");
      assertThat(ready().getMessage()).isEqualTo(OBJECTS + " objects in scope in 3 shards");
      assertThat(status().objects()).isEqualTo(OBJECTS);
      assertThat(status().objectCounts()).isEqualTo(Map.of("v1/ConfigMap", OBJECTS));
    });
    assertThat(shards()).extracting(ShardEntry::index).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(managed(ShardStatuses.fieldManager(2))).isNotNull();

    // ---- shard 1 stops, then the spec changes: its part is of an older generation ---------------
    stopShard(1);
    cluster.client().genericKubernetesResources("kollect.io/v1alpha1", "KollectTarget")
        .inNamespace(NS).withName("t").edit(t -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> spec = (Map<String, Object>) t.getAdditionalProperties().get("spec");
          spec.put("limits", Map.of("maxObjects", 1000));
          return t;
        });
    await().atMost(CONVERGE).untilAsserted(() -> {
      assertThat(entry(0).observedGeneration()).isEqualTo(2L);
      assertThat(entry(2).observedGeneration()).isEqualTo(2L);
      assertThat(ready().getStatus()).isEqualTo("False");
      assertThat(ready().getReason()).isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
      assertThat(ready().getMessage())
          .isEqualTo("1 of 3 shards not ready: shard 1: at generation 1, not yet 2");
    });
    assertThat(status().objects()).as("shard 1's last part still counts").isEqualTo(OBJECTS);

    // ---- shrink to two shards: shard 0 removes entry 2 --------------------------------------------
    List<Integer> indexes = new ArrayList<>(running.keySet());
    indexes.forEach(ShardStatusIT::stopShard);
    startShard(new Shard(2, 0));
    startShard(new Shard(2, 1));
    await().atMost(CONVERGE).untilAsserted(() -> {
      assertThat(shards()).extracting(ShardEntry::index).containsExactlyInAnyOrder(0, 1);
      assertThat(entry(0).objects()).isEqualTo(owned(new Shard(2, 0)));
      assertThat(entry(1).objects()).isEqualTo(owned(new Shard(2, 1)));
      assertThat(ready().getStatus()).isEqualTo("True");
      assertThat(status().objects()).isEqualTo(OBJECTS);
    });
    assertThat(shards().stream().map(ShardEntry::observedGeneration).collect(Collectors.toSet()))
        .containsExactly(2L);

    // ---- back to one operator: no shards list, the whole status is its own -----------------------
    new ArrayList<>(running.keySet()).forEach(ShardStatusIT::stopShard);
    startShard(Shard.NONE);
    await().atMost(CONVERGE).untilAsserted(() -> {
      assertThat(status().shards()).isNull();
      assertThat(ready().getStatus()).isEqualTo("True");
      assertThat(ready().getReason()).isEqualTo("Reconciled");
      assertThat(status().objects()).isEqualTo(OBJECTS);
    });
  }
}

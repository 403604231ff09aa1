package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectTargetStatus.ShardEntry;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.status.StatusWriter;
import io.kollect.operator.targets.CrTranslation;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The two kinds of write a sharded target's status gets, on a real API server with the generated
 * CRD: each shard's server-side apply of its own {@code status.shards[]} entry, and shard 0's PUT
 * of the top level. The CRD's map list makes the applies merge; the PUT, when its cached object
 * is behind, retries on a fresh read and aggregates the entries written meanwhile.
 */
class ShardEntryWritesIT {

  private static final String NS = "entries";
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static StatusWriter writer;

  @BeforeAll
  static void start() {
    cluster = TestCluster.start();
    client = cluster.client();
    cluster.namespace(NS);
    writer = new StatusWriter(client, Runnable::run);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static GenericKubernetesResource target(String name) {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: %s, namespace: %s}
        spec: {profileRef: p}
        """.formatted(name, NS));
    return read(name);
  }

  private static GenericKubernetesResource read(String name) {
    return client.genericKubernetesResources("kollect.io/v1alpha1", "KollectTarget")
        .inNamespace(NS).withName(name).get();
  }

  private static KollectTargetStatus status(GenericKubernetesResource o) {
    return CrTranslation.lenient().convertValue(o.getAdditionalProperties().get("status"),
        KollectTargetStatus.class);
  }

  private static ShardEntry entry(int index, int objects) {
    return new ShardEntry(index, "True", "Reconciled", objects + " objects in scope", objects,
        Map.of("v1/ConfigMap", objects), 1L, null);
  }

  private static Optional<GenericKubernetesResource> apply(GenericKubernetesResource cached,
      ShardEntry entry) {
    return writer.applyEntryNow(cached, ShardStatuses.fieldManager(entry.index()),
        ShardStatuses.LIST, ShardStatuses.KEY, entry);
  }

  @Test
  void eachShardsApplyMergesIntoTheListAndIsOwnedByThatShardsFieldManager() {
    GenericKubernetesResource t = target("merge");
    apply(t, entry(1, 5)).orElseThrow();
    GenericKubernetesResource after = apply(t, entry(0, 7)).orElseThrow();

    assertThat(status(read("merge")).shards()).extracting(ShardEntry::index, ShardEntry::objects)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(1, 5),
            org.assertj.core.groups.Tuple.tuple(0, 7));
    assertThat(after.getMetadata().getResourceVersion())
        .as("the apply answers with the object as stored")
        .isEqualTo(read("merge").getMetadata().getResourceVersion());
    for (int i = 0; i < 2; i++) {
      String manager = ShardStatuses.fieldManager(i);
      ManagedFieldsEntry owned = read("merge").getMetadata().getManagedFields().stream()
          .filter(m -> manager.equals(m.getManager())).findFirst().orElseThrow();
      assertThat(owned.getOperation()).isEqualTo("Apply");
      assertThat(owned.getFieldsV1().getAdditionalProperties().toString())
          .as("%s owns its own entry and no other", manager)
          .contains("k:{\"index\":" + i + "}").doesNotContain("k:{\"index\":" + (1 - i) + "}");
    }
  }

  @Test
  void anUnchangedEntryIsNotAppliedAgainAndAChangedOneReplacesOnlyThatShardsEntry() {
    GenericKubernetesResource t = target("again");
    apply(t, entry(0, 3)).orElseThrow();
    apply(t, entry(1, 4)).orElseThrow();
    GenericKubernetesResource stored = read("again");

    assertThat(apply(stored, entry(1, 4))).as("nothing to write").isEmpty();
    assertThat(read("again").getMetadata().getResourceVersion())
        .isEqualTo(stored.getMetadata().getResourceVersion());

    ShardEntry notReady = new ShardEntry(1, "False", "SinkDeliveryFailing", "down", 4,
        Map.of("v1/ConfigMap", 4), 1L, null);
    apply(stored, notReady).orElseThrow();
    assertThat(status(read("again")).shards()).containsExactlyInAnyOrder(entry(0, 3), notReady);
  }

  @Test
  void theTopLevelWriteFromAStaleCacheRetriesOnAFreshReadAndCountsTheEntryWrittenMeanwhile() {
    GenericKubernetesResource t = target("stale");
    apply(t, entry(0, 2)).orElseThrow();
    GenericKubernetesResource cached = read("stale");
    // shard 1 writes its part after shard 0's cache last saw the object
    apply(cached, entry(1, 6)).orElseThrow();

    KollectTargetStatus own = new KollectTargetStatus(1L, List.of(CrTranslation.condition(
        "Ready", "True", "Reconciled", "2 objects in scope", Instant.now(), 1)),
        Map.of("v1/ConfigMap", 2), List.of(), null, 2, null, null, null);
    writer.writeNowFrom(cached, base -> {
      KollectTargetStatus stored = status(base);
      return ShardStatuses.topLevel(own, stored.shards(), entry(0, 2), 2,
          base.getMetadata().getGeneration(), List.of(), Instant.now());
    });

    KollectTargetStatus written = status(read("stale"));
    assertThat(written.objects()).isEqualTo(8);
    assertThat(written.objectCounts()).isEqualTo(Map.of("v1/ConfigMap", 8));
    assertThat(written.conditions()).filteredOn(c -> c.getType().equals("Ready"))
        .singleElement().satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(written.shards()).as("the PUT kept shard 1's entry")
        .containsExactlyInAnyOrder(entry(0, 2), entry(1, 6));
  }

  @Test
  void theTopLevelWriteDropsTheEntriesOfShardsBeyondTheTotal() {
    GenericKubernetesResource t = target("shrink");
    for (int i = 0; i < 3; i++) {
      apply(t, entry(i, 1 + i)).orElseThrow();
    }
    KollectTargetStatus own = new KollectTargetStatus(1L, List.of(CrTranslation.condition(
        "Ready", "True", "Reconciled", "1 objects in scope", Instant.now(), 1)),
        Map.of("v1/ConfigMap", 1), List.of(), null, 1, null, null, null);
    writer.writeNowFrom(read("shrink"), base -> ShardStatuses.topLevel(own, status(base).shards(),
        entry(0, 1), 2, 1, List.of(), Instant.now()));

    KollectTargetStatus written = status(read("shrink"));
    assertThat(written.shards()).extracting(ShardEntry::index).containsExactlyInAnyOrder(0, 1);
    assertThat(written.objects()).isEqualTo(3);
  }
}

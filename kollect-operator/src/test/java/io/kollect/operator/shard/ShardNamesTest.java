package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.core.Shard;
import io.kollect.core.TargetId;
import io.kollect.operator.crd.KollectInventorySpec;
import io.kollect.operator.inventory.InventoryObjectSink;
import io.kollect.operator.inventory.InventoryObjectSinkTest;
import io.kollect.operator.inventory.InventorySweep;
import io.kollect.operator.leader.LeaderElectionSettings;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What a shard's own objects are called, and what it keeps of another shard count's. */
class ShardNamesTest {

  @Test
  void anUnshardedOperatorKeepsItsNamesAndAShardAppendsItsIndexOnly() {
    assertThat(ShardNames.suffix(Shard.NONE)).isEmpty();
    assertThat(ShardNames.label(Shard.NONE)).isNull();
    assertThat(ShardNames.suffix(new Shard(3, 1))).isEqualTo("-shard-1");
    assertThat(ShardNames.suffix(new Shard(2, 1))).isEqualTo("-shard-1");
    assertThat(ShardNames.label(new Shard(3, 2))).isEqualTo("2");
  }

  @Test
  void eachShardElectsOnALeaseOfItsOwnAndUnshardedTheLeaseKeepsItsName() {
    LeaderElectionSettings settings = new LeaderElectionSettings(true, "kollect-system",
        "kollect-leader", "pod-0_x", Duration.ofSeconds(15), Duration.ofSeconds(10),
        Duration.ofSeconds(2));
    assertThat(settings.forShard(Shard.NONE)).isEqualTo(settings);
    assertThat(settings.forShard(new Shard(3, 2)).id()).isEqualTo("kollect-leader-shard-2");
    assertThat(settings.forShard(new Shard(3, 2)).identity()).isEqualTo("pod-0_x");
    assertThat(LeaderElectionSettings.disabled().forShard(new Shard(3, 2)))
        .isEqualTo(LeaderElectionSettings.disabled());
  }

  @Test
  void objectsOfNoRunningShardAreForeign() {
    Shard twoOfThree = new Shard(3, 2);
    assertThat(ShardNames.foreign(twoOfThree, "0")).isFalse();
    assertThat(ShardNames.foreign(twoOfThree, "2")).isFalse();
    assertThat(ShardNames.foreign(twoOfThree, "3")).as("the total shrank from 4").isTrue();
    assertThat(ShardNames.foreign(twoOfThree, null)).as("written before sharding").isTrue();
    assertThat(ShardNames.foreign(twoOfThree, "x")).isTrue();
    assertThat(ShardNames.foreign(Shard.NONE, null)).isFalse();
    assertThat(ShardNames.foreign(Shard.NONE, "1")).as("written while sharded").isTrue();
  }

  @Test
  void theInventorySinkOwnsARecordExactlyWhenTheShardOwnsItsObject() {
    var r = InventoryObjectSinkTest.rec("web", 10);
    int owners = 0;
    for (int i = 0; i < 3; i++) {
      InventoryObjectSink sink = new InventoryObjectSink(null, id -> java.util.Optional.empty(),
          1000, 1000, id -> { }, java.time.Clock.systemUTC(), r.cluster(), new Shard(3, i));
      boolean owns = sink.owns(r);
      assertThat(owns).isEqualTo(new Shard(3, i).owns(r.cluster(), r.resource().group(),
          r.resource().kind(), r.namespace(), r.name()));
      owners += owns ? 1 : 0;
    }
    assertThat(owners).isEqualTo(1);
  }

  @Test
  void splitByClusterTheInventorySinkOwnsARemoteClustersRecordOnTheClustersShardOnly() {
    var r = InventoryObjectSinkTest.rec("web", 10); // read from cluster "c"
    for (int i = 0; i < 3; i++) {
      Shard shard = new Shard(3, i, Shard.By.CLUSTER);
      InventoryObjectSink remote = new InventoryObjectSink(null, id -> java.util.Optional.empty(),
          1000, 1000, id -> { }, java.time.Clock.systemUTC(), "home", shard);
      assertThat(remote.owns(r)).isEqualTo(shard.ownsCluster("c"));
      // "c" as the operator's own cluster keeps the object rule
      InventoryObjectSink local = new InventoryObjectSink(null, id -> java.util.Optional.empty(),
          1000, 1000, id -> { }, java.time.Clock.systemUTC(), "c", shard);
      assertThat(local.owns(r)).isEqualTo(new Shard(3, i).owns("c", "apps", "Deployment", "ns",
          "web"));
    }
  }

  @Test
  void splitByClusterAShardsInventoryPartsOfARemoteClusterItNoLongerReadsAreForeign() {
    String mine = IntStream.range(0, 20).mapToObj(k -> "remote-" + k)
        .filter(n -> new Shard(2, 0, Shard.By.CLUSTER).ownsCluster(n)).findFirst().orElseThrow();
    String theirs = IntStream.range(0, 20).mapToObj(k -> "remote-" + k)
        .filter(n -> !new Shard(2, 0, Shard.By.CLUSTER).ownsCluster(n)).findFirst().orElseThrow();
    Shard zero = new Shard(2, 0, Shard.By.CLUSTER);
    assertThat(InventoryObjectSink.ofClusterNotRead(part("0", theirs), zero, "home")).isTrue();
    assertThat(InventoryObjectSink.ofClusterNotRead(part("0", mine), zero, "home")).isFalse();
    assertThat(InventoryObjectSink.ofClusterNotRead(part("0", null), zero, "home"))
        .as("the local cluster's parts").isFalse();
    assertThat(InventoryObjectSink.ofClusterNotRead(part("1", theirs), zero, "home"))
        .as("another shard's part is its own business").isFalse();
    assertThat(InventoryObjectSink.ofClusterNotRead(part("0", theirs), new Shard(2, 0), "home"))
        .as("split by object every shard reads every cluster").isFalse();
  }

  private static io.kollect.operator.crd.KollectInventory part(String shard, String cluster) {
    var inv = new io.kollect.operator.crd.KollectInventory();
    inv.getMetadata().setNamespace("ns");
    inv.getMetadata().setName("t-shard-" + shard + "-0");
    java.util.Map<String, String> labels = new java.util.HashMap<>();
    labels.put(ShardNames.SHARD_LABEL, shard);
    if (cluster != null) {
      labels.put("kollect.io/cluster", cluster);
    }
    inv.getMetadata().setLabels(labels);
    return inv;
  }

  @Test
  void theSweepDeletesInventoryObjectsOfShardsThatNoLongerRunAndKeepsTheRunningShards() {
    List<io.kollect.operator.crd.KollectInventory> inCluster = new java.util.ArrayList<>();
    for (String shard : new String[] {"0", "1", "2", null}) {
      var inv = new io.kollect.operator.crd.KollectInventory();
      inv.getMetadata().setNamespace("ns");
      inv.getMetadata().setName(shard == null ? "t-0" : "t-shard-" + shard + "-0");
      if (shard != null) {
        inv.getMetadata().setLabels(java.util.Map.of(ShardNames.SHARD_LABEL, shard));
      }
      inv.setSpec(new KollectInventorySpec("t", 0, 1, 0, List.of()));
      inCluster.add(inv);
    }
    List<String> deleted = new java.util.ArrayList<>();
    var target = new io.kollect.operator.crd.KollectTarget();
    target.setSpec(new io.kollect.operator.crd.KollectTargetSpec("p", null, List.of(), true,
        null));
    Shard zeroOfTwo = new Shard(2, 0);
    InventorySweep sweep = new InventorySweep(new InventorySweep.Api() {
      @Override
      public List<io.kollect.operator.crd.KollectInventory> listAll() {
        return inCluster;
      }

      @Override
      public void delete(io.kollect.operator.crd.KollectInventory inventory) {
        deleted.add(inventory.getMetadata().getName());
      }

      @Override
      public void deleteTarget(TargetId id) {
        deleted.add("target " + id);
      }
    }, id -> java.util.Optional.of(target), Runnable::run,
        inv -> ShardNames.foreign(zeroOfTwo, InventoryObjectSink.shardOf(inv)));
    sweep.sweep();
    // shard 2 of a former total of 3, and the unsharded operator's object
    assertThat(deleted).containsExactly("t-shard-2-0", "t-0");
  }
}

package io.kollect.operator.shard;

import static io.kollect.operator.shard.ShardedConfigMaps.APPS;
import static io.kollect.operator.shard.ShardedConfigMaps.owner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.core.Shard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A shard count change, in the operator with its default checkpoint store
 * (ConfigMaps): two shards export to one http receiver and stop; while no operator runs, objects
 * are deleted (one that moves to the new shard 2, one that moves between the old indexes),
 * changed and created; then the old indexes start with three shards before the new shard 2
 * does. The receiver, folding by largest sequence, ends with exactly the cluster's objects: each
 * deleted object got its DELETE from its new owner, which took its checkpoint entry over from the
 * old owner's ConfigMaps.
 */
class ShardHandoverIT {

  private static final String NS = "handover";
  private static final int OBJECTS = 30;
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @RegisterExtension
  static final ShardedConfigMaps world = new ShardedConfigMaps(NS, OBJECTS, false);

  private static void startShard(Shard shard) {
    world.startShard(shard, operator -> operator);
  }

  private static void stopOperators() {
    world.stopShards();
  }

  @Test
  void objectsDeletedWhileTheShardCountChangedWithNoOperatorRunningGetTheirDeleteFromTheNewOwner() {
    startShard(new Shard(2, 0));
    startShard(new Shard(2, 1));
    await().atMost(CONVERGE)
        .untilAsserted(() -> assertThat(world.folded()).isEqualTo(world.clusterState()));
    stopOperators();

    List<String> names = new ArrayList<>(world.clusterState().keySet());
    names.sort(null);
    String toNewShard = names.stream().filter(n -> owner(3, n) == 2).findFirst().orElseThrow();
    String betweenOld = names.stream()
        .filter(n -> owner(3, n) < 2 && owner(3, n) != owner(2, n)).findFirst().orElseThrow();
    String changed = names.stream().filter(n -> owner(3, n) == 2 && !n.equals(toNewShard))
        .findFirst().orElseThrow();
    world.cluster().client().configMaps().inNamespace(APPS).withName(toNewShard).delete();
    world.cluster().client().configMaps().inNamespace(APPS).withName(betweenOld).delete();
    world.configMap(changed, "changed");
    world.configMap("cm-created", "new");
    await().atMost(CONVERGE).until(() -> !world.clusterState().containsKey(toNewShard)
        && !world.clusterState().containsKey(betweenOld));

    // the old indexes restart with the new count first: the object that moved between them is
    // deleted by its new owner, the one that moved to shard 2 waits in its old owner's checkpoint
    startShard(new Shard(3, 0));
    startShard(new Shard(3, 1));
    await().atMost(CONVERGE).until(() -> !world.folded().containsKey(betweenOld));
    assertThat(world.folded()).containsKey(toNewShard);

    startShard(new Shard(3, 2));
    await().atMost(CONVERGE)
        .untilAsserted(() -> assertThat(world.folded()).isEqualTo(world.clusterState()));
    assertThat(world.folded()).doesNotContainKeys(toNewShard, betweenOld)
        .containsEntry(changed, "changed").containsEntry("cm-created", "new");
    assertThat(world.receiver().unsequenced()).isZero();
  }
}

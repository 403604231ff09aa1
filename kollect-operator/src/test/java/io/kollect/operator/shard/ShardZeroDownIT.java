package io.kollect.operator.shard;

import static io.kollect.operator.shard.LeaderElectedShards.DETECTION;
import static io.kollect.operator.shard.LeaderElectedShards.LEASE;
import static io.kollect.operator.shard.LeaderElectedShards.OBJECTS;
import static io.kollect.operator.shard.LeaderElectedShards.leaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.core.Shard;
import io.kollect.operator.TestOperator;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The top level of a sharded target does not go stale while shard 0 is down. When shard
 * 0's leader crashes (its Lease stays held), shard 1 becomes the aggregator once the Lease has
 * expired and writes the top level: not Ready, naming shard 0, shard 0's last counts still summed.
 * When shard 0 leads again it takes the top level back.
 */
class ShardZeroDownIT {

  @RegisterExtension static final LeaderElectedShards world = new LeaderElectedShards();

  @Test
  void shardOneWritesTheTopLevelNamingShardZeroWhileShardZeroIsDownAndShardZeroTakesItBack() {
    TestOperator shard0 = world.shard("s0", new Shard(2, 0));
    TestOperator shard1 = world.shard("s1", new Shard(2, 1));
    world.awaitReady();

    // ---- shard 0 crashes: only shard 1 can write now ------------------------------------------
    LeaderElectedShards.crash(shard0);
    long crashedAt = System.nanoTime();
    assertThat(world.lease(0).getSpec().getHolderIdentity()).as("a crash leaves the Lease held")
        .isEqualTo("s0");
    await().atMost(DETECTION).untilAsserted(() -> {
      assertThat(world.ready().getStatus()).isEqualTo("False");
      assertThat(world.ready().getReason()).isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
      assertThat(world.ready().getMessage())
          .matches("1 of 2 shards not ready: shard 0: no leader since "
          + "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\(Lease " + leaseName(0) + " expired\\), its "
          + "last counts still summed");
    });
    assertThat(Duration.ofNanos(System.nanoTime() - crashedAt))
        .as("not before shard 0's Lease could have expired").isGreaterThan(LEASE);
    assertThat(world.status().objects()).as("shard 0's last part still counts").isEqualTo(OBJECTS);
    assertThat(world.status().shards()).as("shard 0's entry stays, still Ready")
        .anyMatch(e -> e.index() == 0 && "True".equals(e.ready()));
    assertThat(world.lease(0).getSpec().getHolderIdentity()).isEqualTo("s0");

    // ---- shard 0 leads again: Ready=True, which only shard 0 can have written (shard 1 writes
    // the top level only while it judges shard 0 down, and then Ready=False); and shard 0 keeps
    // aggregating: when shard 1 crashes next, shard 0, the only one left, names it ------------
    shard0 = world.shard("s0-again", new Shard(2, 0));
    world.awaitReady();
    assertThat(world.lease(0).getSpec().getHolderIdentity()).isEqualTo("s0-again");

    LeaderElectedShards.crash(shard1);
    assertThat(world.lease(1).getSpec().getHolderIdentity()).isEqualTo("s1");
    await().atMost(DETECTION).untilAsserted(() -> {
      assertThat(world.ready().getStatus()).isEqualTo("False");
      assertThat(world.ready().getMessage())
          .startsWith("1 of 2 shards not ready: shard 1: no leader "
          + "since ").contains("(Lease " + leaseName(1) + " expired)");
    });
    assertThat(world.status().objects()).isEqualTo(OBJECTS);
  }
}

package io.kollect.operator.shard;

import static io.kollect.operator.shard.LeaderElectedShards.DETECTION;
import static io.kollect.operator.shard.LeaderElectedShards.LEASE;
import static io.kollect.operator.shard.LeaderElectedShards.OBJECTS;
import static io.kollect.operator.shard.LeaderElectedShards.WRITE_INTERVAL;
import static io.kollect.operator.shard.LeaderElectedShards.leaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.core.Shard;
import io.kollect.operator.TestOperator;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With leader election, shard 0 judges the other shards by their Leases. A shard whose
 * leader crashed (its Lease not released) makes the target not Ready, naming it, once the Lease
 * has expired, although its last {@code status.shards[]} entry still says Ready; a shard that
 * leads again makes it Ready again; a shard that stops cleanly (its Lease released, which fabric8
 * does by shortening it to one second) within seconds. No spec change is needed for any of it.
 */
class ShardLivenessIT {

  @RegisterExtension static final LeaderElectedShards world = new LeaderElectedShards();

  @Test
  void aShardWithoutLeaderMakesTheTargetNotReadyWithinItsLeaseAndReadyAgainWhenItLeads() {
    TestOperator shard0 = world.shard("s0", new Shard(2, 0));
    TestOperator shard1 = world.shard("s1", new Shard(2, 1));
    world.awaitReady();

    // ---- shard 1 crashes: its client dies first, so its Lease is never released ---------------
    shard1.client().close();
    long crashedAt = System.nanoTime();
    shard1.close();
    assertThat(world.lease(1).getSpec().getHolderIdentity()).as("a crash leaves the Lease held")
        .isEqualTo("s1");
    await().atMost(DETECTION).untilAsserted(() -> {
      assertThat(world.ready().getStatus()).isEqualTo("False");
      assertThat(world.ready().getReason()).isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
      assertThat(world.ready().getMessage())
          .matches("1 of 2 shards not ready: shard 1: no leader since "
          + "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\(Lease " + leaseName(1) + " expired\\), its "
          + "last counts still summed");
    });
    Duration detected = Duration.ofNanos(System.nanoTime() - crashedAt);
    assertThat(detected).as("not before the Lease could have expired")
        .isGreaterThan(LEASE);
    assertThat(world.status().shards()).as("shard 1's entry stays, still Ready")
        .anyMatch(e -> e.index() == 1 && "True".equals(e.ready()));
    assertThat(world.status().objects()).as("shard 1's last part still counts").isEqualTo(OBJECTS);
    assertThat(world.lease(1).getSpec().getHolderIdentity()).isEqualTo("s1");

    // ---- shard 1 leads again (a new pod): Ready without a spec change -------------------------
    TestOperator again = world.shard("s1-again", new Shard(2, 1));
    world.awaitReady();
    assertThat(world.lease(1).getSpec().getHolderIdentity()).isEqualTo("s1-again");

    // ---- a clean stop releases the Lease: fabric8 keeps the holder but shortens the Lease to
    // one second from the release, so the shard is down much sooner than after a crash ---------
    again.close();
    assertThat(world.lease(1).getSpec().getLeaseDurationSeconds()).as("released").isEqualTo(1);
    await().atMost(Duration.ofSeconds(1).plus(ShardLeases.SKEW_GRACE).plus(WRITE_INTERVAL)
        .plusSeconds(1)).untilAsserted(() -> {
          assertThat(world.ready().getStatus()).isEqualTo("False");
          assertThat(world.ready().getMessage())
              .startsWith("1 of 2 shards not ready: shard 1: no leader "
              + "since ").contains("(Lease " + leaseName(1) + " expired)");
        });
  }
}

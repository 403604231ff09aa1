package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.kollect.operator.shard.ShardLeases.Liveness;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** When a shard's leader-election Lease says the shard has no leader (a pure rule). */
class ShardLeasesTest {

  private static final String NAME = "kollect-leader-shard-1";
  private static final Instant RENEWED = Instant.parse("2026-11-24T16:20:03Z");

  private static Lease lease(String holder, Instant renewed, Integer seconds) {
    return new LeaseBuilder().withNewMetadata().withName(NAME).endMetadata().withNewSpec()
        .withHolderIdentity(holder)
        .withRenewTime(renewed == null ? null : ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC))
        .withLeaseDurationSeconds(seconds).endSpec().build();
  }

  @Test
  void aHeldLeaseIsAliveUntilItsDurationAndTheSkewGraceHavePassed() {
    Lease held = lease("kollect-1", RENEWED, 15);
    Instant until = RENEWED.plusSeconds(15).plus(ShardLeases.SKEW_GRACE);

    assertThat(ShardLeases.judge(NAME, held, RENEWED.plusSeconds(10)))
        .isEqualTo(new Liveness(true, null, until));
    assertThat(ShardLeases.judge(NAME, held, until.minusMillis(1)).alive())
        .as("within the grace: the holder's clock may be behind").isTrue();
  }

  @Test
  void aLeaseNotRenewedInTimeSaysSinceWhenTheShardHasNoLeader() {
    Instant until = RENEWED.plusSeconds(15).plus(ShardLeases.SKEW_GRACE);

    assertThat(ShardLeases.judge(NAME, lease("kollect-1", RENEWED, 15), until))
        .isEqualTo(new Liveness(false, "no leader since 2026-11-24T16:20:18Z (Lease "
            + NAME + " expired)", null));
  }

  @Test
  void aReleasedLeaseHasNoLeaderSinceItsRelease() {
    // client-go releases with an empty holder, a one-second duration and renewTime now (fabric8
    // keeps the holder: its released Lease expires a second later, see the next test's rule)
    Liveness l = ShardLeases.judge(NAME, lease(null, RENEWED, 1), RENEWED);

    assertThat(l).isEqualTo(new Liveness(false,
        "no leader since 2026-11-24T16:20:03Z (Lease " + NAME + " released)", null));
    assertThat(ShardLeases.judge(NAME, lease("", RENEWED, 15), RENEWED).alive())
        .as("an empty holder is none").isFalse();
  }

  @Test
  void aMissingLeaseOrOneNeverRenewedHasNoLeader() {
    assertThat(ShardLeases.judge(NAME, null, RENEWED)).isEqualTo(
        new Liveness(false, "no leader (Lease " + NAME + " not found)", null));
    assertThat(ShardLeases.judge(NAME, lease("kollect-1", null, 15), RENEWED).why())
        .isEqualTo("no leader (Lease " + NAME + " has no renewTime)");
    assertThat(ShardLeases.judge(NAME, lease(null, null, null), RENEWED).why())
        .isEqualTo("no leader (Lease " + NAME + " has no holder)");
  }

  @Test
  void aLeaseWithoutDurationExpiresAfterTheGraceAlone() {
    assertThat(ShardLeases.judge(NAME, lease("kollect-1", RENEWED, null),
        RENEWED.plus(ShardLeases.SKEW_GRACE)).alive()).isFalse();
  }

  @Test
  void aLeaseFabric8ReleasedKeepsItsHolderAndExpiresOneSecondAfterTheRelease() {
    Lease released = lease("kollect-1", RENEWED, 1);

    assertThat(ShardLeases.judge(NAME, released, RENEWED.plusSeconds(1)).alive()).isTrue();
    assertThat(ShardLeases.judge(NAME, released,
        RENEWED.plusSeconds(1).plus(ShardLeases.SKEW_GRACE)).why())
        .isEqualTo("no leader since 2026-11-24T16:20:04Z (Lease " + NAME + " expired)");
  }
}

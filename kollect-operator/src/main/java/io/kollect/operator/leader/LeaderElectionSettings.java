package io.kollect.operator.leader;

import io.kollect.operator.shard.ShardNames;
import java.time.Duration;

/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease. Only the leader exports and writes
 * status; the others keep warm caches and take over within {@code leaseDuration} of the leader's
 * loss.
 *
 * @param enabled {@code false}: this instance always leads (single replica, local runs)
 * @param namespace the Lease's namespace
 * @param id the Lease's name
 * @param identity this instance's name in the Lease (unique per instance)
 * @param leaseDuration how long a standby waits after the last renewal before taking over
 * @param renewDeadline how long the leader retries renewing before giving up leadership
 * @param retryPeriod the wait between attempts to acquire or renew
 */
public record LeaderElectionSettings(
    boolean enabled,
    String namespace,
    String id,
    String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {

  public LeaderElectionSettings {
    if (enabled) {
      if (retryPeriod.isZero() || retryPeriod.isNegative()) {
        throw new IllegalArgumentException("--leader-elect-retry-period must be positive");
      }
      if (renewDeadline.compareTo(retryPeriod) <= 0) {
        throw new IllegalArgumentException(
            "--leader-elect-renew-deadline must be longer than --leader-elect-retry-period");
      }
      if (leaseDuration.compareTo(renewDeadline) <= 0) {
        throw new IllegalArgumentException(
            "--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline");
      }
    }
  }

  /**
   * The election of one shard: the Lease is {@code <id>-shard-I}, so each shard elects its own
   * leader among the replicas given its index (more replicas than shards: standbys per shard).
   * Unchanged when not sharded. See {@link ShardNames} for why the total is not in the name.
   */
  public LeaderElectionSettings forShard(io.kollect.core.Shard shard) {
    if (!enabled || !shard.sharded()) {
      return this;
    }
    return new LeaderElectionSettings(true, namespace, id + ShardNames.suffix(shard), identity,
        leaseDuration, renewDeadline, retryPeriod);
  }

  /** No election: this instance leads from the start. */
  public static LeaderElectionSettings disabled() {
    return new LeaderElectionSettings(false, null, null, null, Duration.ofSeconds(15),
        Duration.ofSeconds(10), Duration.ofSeconds(2));
  }
}

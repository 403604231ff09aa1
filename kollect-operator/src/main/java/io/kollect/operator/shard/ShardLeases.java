package io.kollect.operator.shard;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kollect.core.Shard;
import io.kollect.operator.leader.LeaderElectionSettings;
import io.kollect.operator.targets.CrTranslation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the other shards run, as their leader-election Leases ({@code <id>-shard-I}) say; every
 * shard uses it, so that a shard that stopped is not counted as Ready on the strength of its last
 * {@code status.shards[]} entry, and so that the lowest-index shard that runs writes the top level
 * ({@link ShardStatuses#aggregates}) when shard 0 is down.
 *
 * <p><b>The rule</b> ({@link #judge}): a shard runs while its Lease has a holder and {@code
 * renewTime + leaseDurationSeconds + }{@value #SKEW_GRACE_SECONDS}{@code s} is ahead. A leader
 * renews every retry period, well inside the lease duration, so only a leader that stopped renewing
 * gets there; and fabric8, like client-go, gives up leading after the renew deadline, before the
 * lease runs out, so a shard judged down has really stopped exporting. The grace covers the clock
 * difference between the holder (which wrote {@code renewTime}) and this pod. A missing Lease,
 * and one released by client-go (empty holder), count as down at once; fabric8, which this
 * operator uses, releases on a clean stop by keeping the holder and shortening the Lease to one
 * second from the release, so such a shard counts as down one second plus the grace later.
 *
 * <p><b>Cost.</b> One informer on the Leases of the election namespace (the Lease names cannot be
 * selected together; the namespace holds a few Leases), filtered by name. A change is reported
 * only when some shard's judgement changes: a renewal changes nothing, a new holder after a
 * failover neither. Expiry produces no event, so one timer waits for the earliest instant a
 * running shard would be judged down, and is moved when a renewal pushes it out: no polling.
 *
 * <p>Until the informer has listed, nothing is known and no shard is reported down (the
 * behaviour without leader election, where there are no Leases to read).
 */
public final class ShardLeases implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ShardLeases.class);

  static final long SKEW_GRACE_SECONDS = 2;
  /** Allowed clock difference between a Lease's holder and this pod. */
  static final Duration SKEW_GRACE = Duration.ofSeconds(SKEW_GRACE_SECONDS);

  /**
   * What a shard's Lease says at an instant.
   *
   * @param alive a leader holds it and renewed it in time
   * @param why when not alive: since when and why, e.g. {@code no leader since
   *     2026-11-24T16:20:03Z (Lease kollect-leader-shard-1 expired)}; {@code null} when alive
   * @param until when alive: the instant it is judged down unless renewed; else {@code null}
   */
  record Liveness(boolean alive, String why, Instant until) {

    static Liveness aliveUntil(Instant until) {
      return new Liveness(true, null, until);
    }

    public static Liveness down(String why) {
      return new Liveness(false, why, null);
    }
  }

  /**
   * Judges the Lease {@code name} ({@code null}: it does not exist) at {@code now}; see the class
   * comment for the rule.
   */
  static Liveness judge(String name, Lease lease, Instant now) {
    LeaseSpec spec = lease == null ? null : lease.getSpec();
    if (spec == null) {
      return Liveness.down("no leader (Lease " + name + " not found)");
    }
    Instant renewed = spec.getRenewTime() == null ? null : spec.getRenewTime().toInstant();
    if (spec.getHolderIdentity() == null || spec.getHolderIdentity().isBlank()) {
      return Liveness.down(renewed == null ? "no leader (Lease " + name + " has no holder)"
          : "no leader since " + CrTranslation.rfc3339(renewed) + " (Lease " + name
              + " released)");
    }
    if (renewed == null) {
      return Liveness.down("no leader (Lease " + name + " has no renewTime)");
    }
    int seconds = spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds();
    Instant expiry = renewed.plusSeconds(Math.max(0, seconds));
    Instant until = expiry.plus(SKEW_GRACE);
    return now.isBefore(until) ? Liveness.aliveUntil(until)
        : Liveness.down("no leader since " + CrTranslation.rfc3339(expiry) + " (Lease " + name
            + " expired)");
  }

  private final KubernetesClient client;
  private final String namespace;
  private final Shard shard;
  /** Lease name by shard index, the other shards only. */
  private final Map<Integer, String> names = new TreeMap<>();
  private final Clock clock = Clock.systemUTC();
  private SharedIndexInformer<Lease> informer;
  private ScheduledExecutorService timer;
  private Runnable onChange;
  private volatile boolean listed;
  /** The judgements last reported ({@code why} by index, {@code null} when alive). */
  private final Map<Integer, String> reported = new HashMap<>();
  private ScheduledFuture<?> pending;
  private Instant pendingAt;
  private boolean closed;

  /**
   * @param election the election settings before {@link LeaderElectionSettings#forShard} (its
   *     namespace and id name the Leases)
   * @param shard this operator's shard; the others' Leases are watched
   */
  public ShardLeases(KubernetesClient client, LeaderElectionSettings election, Shard shard) {
    this.client = client;
    this.namespace = election.namespace();
    this.shard = shard;
    for (int i = 0; i < shard.total(); i++) {
      if (i != shard.index()) {
        names.put(i, election.forShard(new Shard(shard.total(), i)).id());
      }
    }
  }

  /**
   * Starts watching the Leases; {@code onChange} runs (on the informer's or {@code timer}'s
   * thread) whenever some shard's judgement changes.
   */
  public synchronized void start(ScheduledExecutorService timer, Runnable onChange) {
    this.timer = timer;
    this.onChange = onChange;
    informer = client.leases().inNamespace(namespace).runnableInformer(0);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Lease lease) {
        changed(lease);
      }

      @Override
      public void onUpdate(Lease old, Lease lease) {
        changed(lease);
      }

      @Override
      public void onDelete(Lease lease, boolean deletedFinalStateUnknown) {
        changed(lease);
      }
    });
    informer.start().whenComplete((ok, error) -> {
      if (error != null) {
        log.warn("cannot watch the shards' Leases in namespace {} (their liveness is not judged;"
            + " a stopped shard counts by its last status entry): {}", namespace,
            error.toString());
        return;
      }
      listed = true;
      recheck();
    });
  }

  private void changed(Lease lease) {
    if (listed && names.containsValue(lease.getMetadata().getName())) {
      recheck();
    }
  }

  /** The shards judged down now, with why; empty until the Leases are listed. */
  public Map<Integer, String> down() {
    Map<Integer, String> down = new TreeMap<>();
    if (!listed) {
      return down;
    }
    Instant now = clock.instant();
    names.forEach((index, name) -> {
      Liveness l = judge(name, lease(name), now);
      if (!l.alive()) {
        down.put(index, l.why());
      }
    });
    return down;
  }

  private Lease lease(String name) {
    return informer.getStore().getByKey(namespace + "/" + name);
  }

  /** Judges every shard; reports a change and waits for the earliest next expiry. */
  private void recheck() {
    boolean changed = false;
    Instant next = null;
    synchronized (this) {
      if (closed) {
        return;
      }
      Instant now = clock.instant();
      for (Map.Entry<Integer, String> e : names.entrySet()) {
        Liveness l = judge(e.getValue(), lease(e.getValue()), now);
        if (!reported.containsKey(e.getKey())
            || !Objects.equals(reported.get(e.getKey()), l.why())) {
          changed |= reported.containsKey(e.getKey()) || !l.alive();
          reported.put(e.getKey(), l.why());
          if (!l.alive()) {
            log.info("shard {} of {}: {}", e.getKey(), shard.total(), l.why());
          } else {
            log.debug("shard {} of {} has a leader", e.getKey(), shard.total());
          }
        }
        if (l.alive() && (next == null || l.until().isBefore(next))) {
          next = l.until();
        }
      }
      schedule(next, now);
    }
    if (changed) {
      onChange.run();
    }
  }

  private void schedule(Instant at, Instant now) {
    if (Objects.equals(at, pendingAt)) {
      return;
    }
    if (pending != null) {
      pending.cancel(false);
      pending = null;
    }
    pendingAt = at;
    if (at == null) {
      return;
    }
    // A millisecond late, so that the recheck finds the instant passed.
    long delay = Math.max(1, Duration.between(now, at).toMillis() + 1);
    try {
      pending = timer.schedule(this::expiryReached, delay, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      pendingAt = null; // shutting down
    }
  }

  private void expiryReached() {
    synchronized (this) {
      pending = null;
      pendingAt = null;
    }
    recheck();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (pending != null) {
      pending.cancel(false);
    }
    if (informer != null) {
      informer.stop();
    }
  }
}

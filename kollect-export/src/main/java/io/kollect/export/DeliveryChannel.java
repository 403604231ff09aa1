package io.kollect.export;

import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers to one sink on its own threads, so a slow or failing sink never delays another, and
 * keeps every target in its own lane, so a slow, failing or rejected target never delays another
 * target on the same sink.
 *
 * <p><b>Lanes.</b> Pending work of a target is a map keyed by record key: a newer state replaces
 * an unsent older one in place, so memory is bounded by the number of distinct changed objects,
 * never by the number of changes. A lane is written one batch at a time: a record taken for a
 * batch leaves the map, so a newer state of the same key waits in the map until the batch is
 * acknowledged or failed. That is what keeps per-key order and guarantees that two writes carrying
 * the same key are never in progress at once. A failed batch goes back to the front of its lane,
 * each record only when no newer state arrived meanwhile: a retry always carries the latest state
 * of its keys (with the sequence of that state), never a superseded one.
 *
 * <p><b>Scheduling.</b> Lanes with pending records wait in one insertion-ordered set; a worker takes
 * the first lane that is due (its batch is full, its oldest record lingered long enough, or the
 * channel is flushing, and it is not backing off) and appends it at the end again when it still has
 * records after its write: round-robin, so a target with a large backlog takes turns with the
 * others. A failure backs off only its own lane. The number of workers is bounded ({@link
 * SinkOptions#concurrency()} for a sink that allows concurrent writes, otherwise one), never one
 * per target, so a thousand targets cost a thousand small maps, not a thousand threads.
 *
 * <p>Writing a batch taken from a lane (bisecting permanent rejections, reporting refused records,
 * acknowledging delivered ones) is the {@link BatchWriter}'s; this class decides which lane writes
 * when and keeps each lane's health.
 */
final class DeliveryChannel {

  private static final Logger LOG = LoggerFactory.getLogger(DeliveryChannel.class);

  /** One record waiting for the sink, with the state to acknowledge it to. */
  record Pending(SinkState owner, ExportKey key, Record record, ExportedEntry entry) {}

  /** What a lane reports for {@link Exporter#deliveryStatus}. */
  record LaneStatus(Instant lastAcknowledged, int pending, int consecutiveFailures,
      Instant failingSince, String lastError) {}

  /** Everything this sink holds for one target. Guarded by the channel's lock. */
  private static final class Lane {
    final String target;
    LinkedHashMap<ExportKey, Pending> pending = new LinkedHashMap<>();
    List<Pending> inFlight = List.of();
    long firstPendingNanos;
    long backoffUntilNanos;
    boolean busy;
    int consecutiveFailures;
    Instant failingSince;
    String lastError;
    Instant lastAcknowledged;

    Lane(String target) {
      this.target = target;
    }
  }

  private final Sink sink;
  private final String name;
  private final SinkOptions options;
  private final ExportMetrics metrics;
  private final Clock clock;
  private final Backoff backoff;
  private final BatchWriter writer;
  private final List<Thread> workers = new ArrayList<>();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // guarded by lock
  private final Map<String, Lane> lanes = new HashMap<>();
  /** Lanes with pending records and no write in progress, in round-robin order. */
  private final LinkedHashSet<Lane> waiting = new LinkedHashSet<>();
  private int pendingCount;
  /** Waits with a deadline (a lingering or backing-off lane); for tests of the wake-up path. */
  private long timedWaits;
  private int busyCount;
  private int failingLanes;
  private boolean flushing;
  private boolean stopped;

  DeliveryChannel(Sink sink, SinkOptions options, ExportMetrics metrics, Clock clock) {
    this.sink = sink;
    this.name = sink.name();
    this.options = options;
    this.metrics = metrics;
    this.clock = clock;
    this.backoff = new Backoff(options.initialBackoff(), options.maxBackoff());
    this.writer = new BatchWriter(sink, metrics, clock);
    int threads = sink.concurrentWrites() ? options.concurrency() : 1;
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(this::run, "kollect-export-" + name + (threads > 1 ? "-" + i : ""));
      t.setDaemon(true);
      workers.add(t);
    }
  }

  void start() {
    workers.forEach(Thread::start);
  }

  String name() {
    return name;
  }

  Sink sink() {
    return sink;
  }

  SinkOptions options() {
    return options;
  }

  /** Adds records, each replacing an unsent older state of the same (target, key). */
  void enqueue(List<Pending> records) {
    if (records.isEmpty()) {
      return;
    }
    int depth;
    lock.lock();
    try {
      if (stopped) {
        return;
      }
      long now = System.nanoTime();
      for (Pending p : records) {
        Lane lane = lanes.computeIfAbsent(p.owner().target, Lane::new);
        if (lane.pending.isEmpty()) {
          lane.firstPendingNanos = now;
        }
        if (lane.pending.put(p.key(), p) == null) {
          pendingCount++;
        }
        if (!lane.busy) {
          waiting.add(lane);
        }
      }
      depth = pendingCount;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
  }

  /** Drops unsent records that belong to a forgotten (target, sink) state. */
  void purge(SinkState owner) {
    int depth;
    lock.lock();
    try {
      Lane lane = lanes.get(owner.target);
      if (lane != null) {
        int before = lane.pending.size();
        lane.pending.values().removeIf(p -> p.owner() == owner);
        pendingCount -= before - lane.pending.size();
        if (lane.pending.isEmpty()) {
          waiting.remove(lane);
          if (!lane.busy) {
            forgetLane(lane);
          }
        }
      }
      depth = pendingCount;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
  }

  private void forgetLane(Lane lane) {
    lanes.remove(lane.target, lane);
    if (lane.consecutiveFailures > 0) {
      lane.consecutiveFailures = 0;
      failingLanes--;
    }
  }

  /** Whether any unsent or in-flight record belongs to {@code owner}. */
  boolean holds(SinkState owner) {
    lock.lock();
    try {
      Lane lane = lanes.get(owner.target);
      if (lane == null) {
        return false;
      }
      for (Pending p : lane.inFlight) {
        if (p.owner() == owner) {
          return true;
        }
      }
      for (Pending p : lane.pending.values()) {
        if (p.owner() == owner) {
          return true;
        }
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Unsent records of every target (in-flight ones excluded). */
  int depth() {
    lock.lock();
    try {
      return pendingCount;
    } finally {
      lock.unlock();
    }
  }

  /** How delivery of one target is going; empty when this sink holds nothing of it. */
  Optional<LaneStatus> status(String target) {
    lock.lock();
    try {
      Lane l = lanes.get(target);
      if (l == null) {
        return Optional.empty();
      }
      return Optional.of(new LaneStatus(l.lastAcknowledged, l.pending.size() + l.inFlight.size(),
          l.consecutiveFailures, l.failingSince, l.lastError));
    } finally {
      lock.unlock();
    }
  }

  /** Waits until nothing is pending or in flight; false when {@code deadlineNanos} passes first. */
  boolean awaitIdle(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      while (!(pendingCount == 0 && busyCount == 0)) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0 || stopped) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops delivery: first sends what is pending without lingering for up to {@code drain}, then
   * stops the workers (interrupting writes still in progress) and closes the sink.
   */
  void stop(Duration drain) {
    boolean idle;
    lock.lock();
    try {
      flushing = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      idle = drain.isZero() ? false : awaitIdle(System.nanoTime() + drain.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      idle = false;
    }
    int left;
    lock.lock();
    try {
      stopped = true;
      left = pendingCount;
      for (Lane lane : lanes.values()) {
        left += lane.inFlight.size();
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (!idle) {
      workers.forEach(Thread::interrupt);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Thread t : workers) {
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (left > 0) {
      LOG.warn("sink {} stopped with {} undelivered record(s); they are re-sent after a restart "
          + "from the checkpoint", name, left);
    }
    try {
      sink.close();
    } catch (Exception e) {
      LOG.warn("sink {} failed to close: {}", name, e.toString());
    }
  }

  private void run() {
    try {
      while (true) {
        Lane lane = takeLane();
        if (lane == null) {
          return;
        }
        finish(lane, writer.write(lane.inFlight));
      }
    } catch (InterruptedException e) {
      // stop() interrupts only to end the thread
    } catch (RuntimeException | Error e) {
      LOG.error("delivery to sink {} stopped by an unexpected error", name, e);
      throw e;
    }
  }

  /**
   * Waits for a lane that is due and takes its batch (the lane is then busy until {@link #finish});
   * null when stopped.
   */
  private Lane takeLane() throws InterruptedException {
    Lane taken = null;
    int depth = 0;
    lock.lock();
    try {
      while (taken == null) {
        if (stopped) {
          return null;
        }
        long now = System.nanoTime();
        long wait = Long.MAX_VALUE;
        for (Iterator<Lane> it = waiting.iterator(); it.hasNext(); ) {
          Lane lane = it.next();
          long w = nanosUntilDue(lane, now);
          if (w <= 0) {
            it.remove();
            taken = lane;
            break;
          }
          wait = Math.min(wait, w);
        }
        if (taken == null) {
          if (wait == Long.MAX_VALUE) {
            // nothing is due at a known time: only enqueue (or stop) wakes this worker
            changed.await();
          } else {
            timedWaits++;
            changed.awaitNanos(wait);
          }
        }
      }
      int n = Math.min(options.maxBatchSize(), taken.pending.size());
      List<Pending> batch = new ArrayList<>(n);
      Iterator<Pending> it = taken.pending.values().iterator();
      while (batch.size() < n) {
        batch.add(it.next());
        it.remove();
      }
      pendingCount -= n;
      taken.inFlight = batch;
      taken.busy = true;
      busyCount++;
      depth = pendingCount;
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
    return taken;
  }

  /** How long until a waiting lane may be written: it backs off, or lingers for a fuller batch. */
  private long nanosUntilDue(Lane lane, long now) {
    long wait = lane.consecutiveFailures > 0 ? lane.backoffUntilNanos - now : 0;
    if (!flushing && lane.pending.size() < options.maxBatchSize()) {
      wait = Math.max(wait, lane.firstPendingNanos + options.linger().toNanos() - now);
    }
    return wait;
  }

  /**
   * Ends a lane's write: puts what is to be retried back in the lane, records the lane's health
   * (backing it off on a retryable failure) and frees it for the next write.
   */
  private void finish(Lane lane, BatchWriter.Outcome outcome) {
    int requeued;
    int depth;
    Health health;
    lock.lock();
    try {
      long now = System.nanoTime();
      requeued = requeue(lane, outcome.retry, now);
      if (outcome.delivered > 0) {
        lane.lastAcknowledged = clock.instant();
      }
      health = recordHealth(lane, outcome, now);
      release(lane);
      depth = pendingCount;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
    if (requeued > 0) {
      metrics.retried(name, requeued);
    }
    log(lane, outcome, health);
  }

  /**
   * Puts records to retry at the front of their lane, each only when no newer state of its key
   * arrived meanwhile and its state was not forgotten; returns how many went back. Caller holds
   * the lock.
   */
  private int requeue(Lane lane, List<Pending> retry, long now) {
    if (retry.isEmpty()) {
      return 0;
    }
    int requeued = 0;
    LinkedHashMap<ExportKey, Pending> merged = new LinkedHashMap<>();
    for (Pending p : retry) {
      if (!p.owner().detached && !lane.pending.containsKey(p.key())) {
        merged.put(p.key(), p);
        requeued++;
      }
    }
    if (lane.pending.isEmpty()) {
      lane.firstPendingNanos = now - options.linger().toNanos();
    }
    merged.putAll(lane.pending);
    lane.pending = merged;
    pendingCount += requeued;
    return requeued;
  }

  /** How a write changed the sink's health, for the log: what {@link #recordHealth} saw. */
  private record Health(boolean firstFailingLane, boolean allRecovered, Duration retryIn,
      String error) {}

  /**
   * Counts a retryable failure against the lane (and backs it off), or clears its failure streak
   * after a write without one. Caller holds the lock.
   */
  private Health recordHealth(Lane lane, BatchWriter.Outcome outcome, long now) {
    if (outcome.retryCause != null) {
      boolean first = false;
      if (lane.consecutiveFailures == 0) {
        lane.failingSince = clock.instant();
        failingLanes++;
        first = failingLanes == 1;
      }
      lane.consecutiveFailures++;
      lane.lastError = writer.describe(outcome.retryCause);
      Duration wait = backoff.delay(lane.consecutiveFailures, outcome.retryAfter);
      lane.backoffUntilNanos = now + wait.toNanos();
      return new Health(first, false, wait, lane.lastError);
    }
    boolean allRecovered = false;
    if (lane.consecutiveFailures > 0) {
      lane.consecutiveFailures = 0;
      lane.failingSince = null;
      lane.lastError = null;
      failingLanes--;
      allRecovered = failingLanes == 0;
    }
    return new Health(false, allRecovered, null, null);
  }

  /** Frees a lane after its write: waiting again when it has records. Caller holds the lock. */
  private void release(Lane lane) {
    boolean ownersGone = lane.inFlight.stream().allMatch(p -> p.owner().detached);
    lane.inFlight = List.of();
    lane.busy = false;
    busyCount--;
    if (!lane.pending.isEmpty()) {
      waiting.add(lane);
    } else if (ownersGone) {
      forgetLane(lane); // purged while its write was in progress
    }
  }

  /** The first failing lane is a warning, further failures debug, the recovery of all info. */
  private void log(Lane lane, BatchWriter.Outcome outcome, Health health) {
    if (outcome.retryCause == null) {
      if (health.allRecovered()) {
        LOG.info("sink {} recovered: every target's records are delivered again", name);
      }
      return;
    }
    if (health.firstFailingLane()) {
      LOG.warn("sink {} is failing for target {}, retrying {} record(s) with backoff (first retry "
          + "in {} ms; further failures are logged at debug until it recovers): {}", name,
          lane.target, outcome.retry.size(), health.retryIn().toMillis(), health.error());
    } else {
      LOG.debug("sink {} write for target {} failed, retry in {} ms: {}", name, lane.target,
          health.retryIn().toMillis(), outcome.retryCause.getMessage());
    }
  }

  /** For tests: how often a worker waited for a deadline instead of an enqueue. */
  long timedWaits() {
    lock.lock();
    try {
      return timedWaits;
    } finally {
      lock.unlock();
    }
  }

  /** For tests: the distinct permanent-failure reasons logged so far. */
  Set<String> loggedReasons() {
    return writer.loggedReasons();
  }
}

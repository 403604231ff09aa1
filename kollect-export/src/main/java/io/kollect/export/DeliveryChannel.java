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
import java.util.concurrent.ConcurrentHashMap;
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
 */
final class DeliveryChannel {

  private static final Logger LOG = LoggerFactory.getLogger(DeliveryChannel.class);
  /** Distinct permanent-failure reasons logged per sink before further ones are only counted. */
  static final int MAX_LOGGED_REASONS = 32;
  private static final int MAX_REASON_CHARS = 300;

  /** One record waiting for the sink, with the state to acknowledge it to. */
  record Pending(SinkState owner, String key, Record record, ExportedEntry entry) {}

  /** What a lane reports for {@link Exporter#deliveryStatus}. */
  record LaneStatus(Instant lastAcknowledged, int pending, int consecutiveFailures,
      Instant failingSince, String lastError) {}

  /** Everything this sink holds for one target. Guarded by the channel's lock. */
  private static final class Lane {
    final String target;
    LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();
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

  private final Set<String> loggedReasons = ConcurrentHashMap.newKeySet();
  private volatile boolean reasonsSuppressedLogged;

  DeliveryChannel(Sink sink, SinkOptions options, ExportMetrics metrics, Clock clock) {
    this.sink = sink;
    this.name = sink.name();
    this.options = options;
    this.metrics = metrics;
    this.clock = clock;
    this.backoff = new Backoff(options.initialBackoff(), options.maxBackoff());
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
        Attempt attempt = new Attempt();
        deliver(lane.inFlight, attempt);
        finish(lane, attempt);
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

  /** The outcome of writing one batch, possibly in parts. */
  private static final class Attempt {
    final List<Pending> retry = new ArrayList<>();
    int delivered;
    Optional<Duration> retryAfter = Optional.empty();
    SinkException retryCause;
  }

  /**
   * Writes a batch. Records a sink names in a {@link RecordsRejectedException} are dropped and the
   * rest written again (or counted delivered, when the sink says so); a permanent rejection of
   * several unnamed records is bisected so one poison record is dropped alone instead of taking its
   * batch with it; a retryable failure stops the attempt and everything not yet delivered goes back
   * for a retry.
   */
  private void deliver(List<Pending> part, Attempt attempt) {
    if (!attempt.retry.isEmpty()) {
      attempt.retry.addAll(part);
      return;
    }
    List<Record> records = new ArrayList<>(part.size());
    for (Pending p : part) {
      records.add(p.record());
    }
    SinkException failure = null;
    try {
      sink.write(records);
    } catch (RecordsRejectedException e) {
      if (dropNamed(part, e, attempt)) {
        return;
      }
      failure = e;
    } catch (SinkException e) {
      failure = e;
    } catch (RuntimeException e) {
      // A sink bug is not proof the records are bad; keep them (memory stays bounded) and retry.
      failure = SinkException.retryable("sink " + name + " threw " + e, e);
    }
    if (failure == null) {
      acknowledge(part, attempt);
    } else if (failure.retryable()) {
      metrics.failed(name, part.size(), false);
      attempt.retry.addAll(part);
      attempt.retryAfter = failure.retryAfter();
      attempt.retryCause = failure;
    } else if (part.size() > 1) {
      int half = part.size() / 2;
      deliver(part.subList(0, half), attempt);
      deliver(part.subList(half, part.size()), attempt);
    } else {
      drop(part.get(0), failure.getMessage());
    }
  }

  /**
   * Drops the records a sink named and delivers (or acknowledges) the rest. False when the sink
   * named none of them: then it cannot be told which record is bad, and the part is treated as a
   * plain permanent rejection.
   */
  private boolean dropNamed(List<Pending> part, RecordsRejectedException e, Attempt attempt) {
    Map<String, String> reasons = e.reasonsByKey();
    List<Pending> rest = new ArrayList<>(part.size());
    for (Pending p : part) {
      if (!reasons.containsKey(p.key())) {
        rest.add(p);
      }
    }
    if (rest.size() == part.size()) {
      return false;
    }
    for (Pending p : part) {
      String reason = reasons.get(p.key());
      if (reason != null) {
        drop(p, reason);
      }
    }
    if (!rest.isEmpty()) {
      if (e.othersDelivered()) {
        acknowledge(rest, attempt);
      } else {
        deliver(rest, attempt);
      }
    }
    return true;
  }

  private void acknowledge(List<Pending> part, Attempt attempt) {
    Instant now = clock.instant();
    for (Pending p : part) {
      p.owner().acknowledge(p.key(), p.record().op(), p.entry(), now);
    }
    attempt.delivered += part.size();
    metrics.sent(name, part.size());
    metrics.lastSuccess(name, now);
  }

  /** A record the sink refused for good: counted, reported, logged once per reason, dropped. */
  private void drop(Pending p, String reason) {
    String r = reason == null ? "rejected (no reason given)" : reason;
    if (r.length() > MAX_REASON_CHARS) {
      r = r.substring(0, MAX_REASON_CHARS) + "...";
    }
    metrics.failed(name, 1, true);
    metrics.dropped(name, 1);
    p.owner().refuse(p.key(), p.entry(), r);
    logPermanentOnce(r, p);
  }

  /** Puts failed records back in their lane and backs the lane off; frees the lane. */
  private void finish(Lane lane, Attempt attempt) {
    int requeued = 0;
    int depth;
    boolean firstFailingLane = false;
    boolean allRecovered = false;
    Duration wait = null;
    String error = null;
    lock.lock();
    try {
      long now = System.nanoTime();
      if (!attempt.retry.isEmpty()) {
        LinkedHashMap<String, Pending> merged = new LinkedHashMap<>();
        for (Pending p : attempt.retry) {
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
      }
      if (attempt.delivered > 0) {
        lane.lastAcknowledged = clock.instant();
      }
      if (attempt.retryCause != null) {
        if (lane.consecutiveFailures == 0) {
          lane.failingSince = clock.instant();
          failingLanes++;
          firstFailingLane = failingLanes == 1;
        }
        lane.consecutiveFailures++;
        lane.lastError = describe(attempt.retryCause);
        error = lane.lastError;
        wait = backoff.delay(lane.consecutiveFailures, attempt.retryAfter);
        lane.backoffUntilNanos = now + wait.toNanos();
      } else if (lane.consecutiveFailures > 0) {
        lane.consecutiveFailures = 0;
        lane.failingSince = null;
        lane.lastError = null;
        failingLanes--;
        allRecovered = failingLanes == 0;
      }
      boolean ownersGone = lane.inFlight.stream().allMatch(p -> p.owner().detached);
      lane.inFlight = List.of();
      lane.busy = false;
      busyCount--;
      if (!lane.pending.isEmpty()) {
        waiting.add(lane);
      } else if (ownersGone) {
        forgetLane(lane); // purged while its write was in progress
      }
      depth = pendingCount;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
    if (requeued > 0) {
      metrics.retried(name, requeued);
    }
    if (attempt.retryCause == null) {
      if (allRecovered) {
        LOG.info("sink {} recovered: every target's records are delivered again", name);
      }
      return;
    }
    if (firstFailingLane) {
      LOG.warn("sink {} is failing for target {}, retrying {} record(s) with backoff (first retry "
          + "in {} ms; further failures are logged at debug until it recovers): {}", name,
          lane.target, attempt.retry.size(), wait.toMillis(), error);
    } else {
      LOG.debug("sink {} write for target {} failed, retry in {} ms: {}", name, lane.target,
          wait.toMillis(), attempt.retryCause.getMessage());
    }
  }

  /** A failure message that names the sink when the sink's own message does not. */
  private String describe(SinkException e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      m = e.getCause() != null ? e.getCause().toString() : "failed without a message";
    }
    return m.contains(name) || m.contains("://") ? m : "sink " + name + ": " + m;
  }

  private void logPermanentOnce(String reason, Pending p) {
    if (loggedReasons.contains(reason)) {
      return;
    }
    synchronized (loggedReasons) {
      if (loggedReasons.contains(reason)) {
        return;
      }
      if (loggedReasons.size() >= MAX_LOGGED_REASONS) {
        if (!reasonsSuppressedLogged) {
          reasonsSuppressedLogged = true;
          LOG.warn("sink {} rejected records for more than {} distinct reasons; further reasons "
              + "are only counted in the dropped metric", name, MAX_LOGGED_REASONS);
        }
        return;
      }
      loggedReasons.add(reason);
    }
    LOG.warn("sink {} permanently rejected record {} of target {} and it was dropped; further "
        + "rejections for this reason are only counted in the dropped metric: {}",
        name, p.key(), p.owner().target, reason);
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
    return Set.copyOf(loggedReasons);
  }
}

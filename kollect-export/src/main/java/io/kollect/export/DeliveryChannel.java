package io.kollect.export;

import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
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
 * Delivers to one sink on its own thread, so a slow or failing sink never delays another.
 *
 * <p>Pending work is a map keyed by (target, record key): a newer state replaces an unsent older
 * one in place, so memory is bounded by the number of distinct changed objects, never by the
 * number of changes. Batches are written synchronously, one at a time; a record taken for a batch
 * leaves the map, so a newer record for the same key waits in the map until the batch is
 * acknowledged or failed — per-key order is preserved without extra bookkeeping. Failed records go
 * back to the front of the map unless a newer state arrived meanwhile.
 */
final class DeliveryChannel {

  private static final Logger LOG = LoggerFactory.getLogger(DeliveryChannel.class);
  /** Distinct permanent-failure reasons logged per sink before further ones are only counted. */
  static final int MAX_LOGGED_REASONS = 32;
  private static final int MAX_REASON_CHARS = 300;

  record PendingKey(String target, String key) {}

  /** One record waiting for the sink, with the state to acknowledge it to. */
  record Pending(SinkState owner, String key, Record record, ExportedEntry entry) {
    PendingKey pendingKey() {
      return new PendingKey(owner.target, key);
    }
  }

  private final Sink sink;
  private final String name;
  private final SinkOptions options;
  private final ExportMetrics metrics;
  private final Clock clock;
  private final Backoff backoff;
  private final Thread thread;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // guarded by lock
  private LinkedHashMap<PendingKey, Pending> pending = new LinkedHashMap<>();
  private long firstPendingNanos;
  private List<Pending> inFlight = List.of();
  private boolean flushing;
  private boolean stopped;

  // delivery thread only
  private int consecutiveFailures;
  private boolean failing;
  private final Set<String> loggedReasons = ConcurrentHashMap.newKeySet();
  private boolean reasonsSuppressedLogged;

  DeliveryChannel(Sink sink, SinkOptions options, ExportMetrics metrics, Clock clock) {
    this.sink = sink;
    this.name = sink.name();
    this.options = options;
    this.metrics = metrics;
    this.clock = clock;
    this.backoff = new Backoff(options.initialBackoff(), options.maxBackoff());
    this.thread = new Thread(this::run, "kollect-export-" + name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
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

  /** Adds records, each replacing an unsent older state of the same key. */
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
      if (pending.isEmpty()) {
        firstPendingNanos = System.nanoTime();
      }
      for (Pending p : records) {
        pending.put(p.pendingKey(), p);
      }
      depth = pending.size();
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
      pending.values().removeIf(p -> p.owner() == owner);
      depth = pending.size();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
  }

  /** Whether any unsent or in-flight record belongs to {@code owner}. */
  boolean holds(SinkState owner) {
    lock.lock();
    try {
      for (Pending p : inFlight) {
        if (p.owner() == owner) {
          return true;
        }
      }
      for (Pending p : pending.values()) {
        if (p.owner() == owner) {
          return true;
        }
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  int depth() {
    lock.lock();
    try {
      return pending.size();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until nothing is pending or in flight; false when {@code deadlineNanos} passes first. */
  boolean awaitIdle(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      while (!(pending.isEmpty() && inFlight.isEmpty())) {
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
   * stops the thread (interrupting a write still in progress) and closes the sink.
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
      left = pending.size() + inFlight.size();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (!idle) {
      thread.interrupt();
    }
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
        List<Pending> batch = takeBatch();
        if (batch == null) {
          return;
        }
        Attempt attempt = new Attempt();
        deliver(batch, attempt);
        Duration wait = finish(batch, attempt);
        if (wait != null && !sleep(wait)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      // stop() interrupts only to end the thread
    } catch (RuntimeException | Error e) {
      LOG.error("delivery to sink {} stopped by an unexpected error", name, e);
      throw e;
    }
  }

  /** Waits for a full batch, the linger time of the oldest record, or a flush; null when stopped. */
  private List<Pending> takeBatch() throws InterruptedException {
    long lingerNanos = options.linger().toNanos();
    List<Pending> batch;
    int depth;
    lock.lock();
    try {
      while (true) {
        if (stopped) {
          return null;
        }
        if (!pending.isEmpty()) {
          if (pending.size() >= options.maxBatchSize() || flushing) {
            break;
          }
          long wait = firstPendingNanos + lingerNanos - System.nanoTime();
          if (wait <= 0) {
            break;
          }
          changed.awaitNanos(wait);
        } else {
          changed.await();
        }
      }
      int n = Math.min(options.maxBatchSize(), pending.size());
      batch = new ArrayList<>(n);
      Iterator<Pending> it = pending.values().iterator();
      while (batch.size() < n) {
        batch.add(it.next());
        it.remove();
      }
      inFlight = batch;
      depth = pending.size();
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
    return batch;
  }

  /** The outcome of writing one batch, possibly in parts. */
  private static final class Attempt {
    final List<Pending> retry = new ArrayList<>();
    Optional<Duration> retryAfter = Optional.empty();
    SinkException retryCause;
  }

  /**
   * Writes a batch. A permanent rejection of several records is bisected so one poison record is
   * dropped alone instead of taking its batch with it; a retryable failure stops the attempt and
   * everything not yet delivered goes back for a retry.
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
    } catch (SinkException e) {
      failure = e;
    } catch (RuntimeException e) {
      // A sink bug is not proof the records are bad; keep them (memory stays bounded) and retry.
      failure = SinkException.retryable("sink threw " + e, e);
    }
    if (failure == null) {
      for (Pending p : part) {
        p.owner().acknowledge(p.key(), p.record().op(), p.entry());
      }
      metrics.sent(name, part.size());
      metrics.lastSuccess(name, clock.instant());
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
      metrics.failed(name, 1, true);
      metrics.dropped(name, 1);
      logPermanentOnce(failure, part.get(0));
    }
  }

  /** Puts failed records back and decides how long to wait; null when there is no failure. */
  private Duration finish(List<Pending> batch, Attempt attempt) {
    int requeued = 0;
    int depth;
    lock.lock();
    try {
      if (!attempt.retry.isEmpty()) {
        LinkedHashMap<PendingKey, Pending> merged = new LinkedHashMap<>();
        for (Pending p : attempt.retry) {
          PendingKey k = p.pendingKey();
          if (!pending.containsKey(k)) {
            merged.put(k, p);
            requeued++;
          }
        }
        if (pending.isEmpty()) {
          firstPendingNanos = System.nanoTime() - options.linger().toNanos();
        }
        merged.putAll(pending);
        pending = merged;
      }
      inFlight = List.of();
      depth = pending.size();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    metrics.queueDepth(name, depth);
    if (attempt.retry.isEmpty()) {
      if (failing) {
        LOG.info("sink {} recovered after {} failed attempt(s)", name, consecutiveFailures);
      }
      failing = false;
      consecutiveFailures = 0;
      return null;
    }
    if (requeued > 0) {
      metrics.retried(name, requeued);
    }
    consecutiveFailures++;
    Duration wait = backoff.delay(consecutiveFailures, attempt.retryAfter);
    if (!failing) {
      failing = true;
      LOG.warn("sink {} is failing, retrying {} record(s) with backoff (first retry in {} ms): {}",
          name, batch.size(), wait.toMillis(), attempt.retryCause.getMessage());
    } else {
      LOG.debug("sink {} attempt {} failed, retry in {} ms: {}", name, consecutiveFailures,
          wait.toMillis(), attempt.retryCause.getMessage());
    }
    return wait;
  }

  /** Sleeps for a backoff; enqueues do not cut it short, stop does. False when stopped. */
  private boolean sleep(Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    lock.lock();
    try {
      while (!stopped) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        changed.awaitNanos(left);
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  private void logPermanentOnce(SinkException failure, Pending p) {
    String reason = String.valueOf(failure.getMessage());
    if (reason.length() > MAX_REASON_CHARS) {
      reason = reason.substring(0, MAX_REASON_CHARS) + "...";
    }
    if (loggedReasons.contains(reason)) {
      return;
    }
    if (loggedReasons.size() >= MAX_LOGGED_REASONS) {
      if (!reasonsSuppressedLogged) {
        reasonsSuppressedLogged = true;
        LOG.warn("sink {} rejected records for more than {} distinct reasons; further reasons are "
            + "only counted in the dropped metric", name, MAX_LOGGED_REASONS);
      }
      return;
    }
    loggedReasons.add(reason);
    LOG.warn("sink {} permanently rejected record {} of target {} and it was dropped; further "
        + "rejections for this reason are only counted in the dropped metric: {}",
        name, p.key(), p.owner().target, reason);
  }

  /** For tests: the distinct permanent-failure reasons logged so far. */
  Set<String> loggedReasons() {
    return Set.copyOf(loggedReasons);
  }

  Map<PendingKey, Pending> pendingSnapshot() {
    lock.lock();
    try {
      return new LinkedHashMap<>(pending);
    } finally {
      lock.unlock();
    }
  }
}

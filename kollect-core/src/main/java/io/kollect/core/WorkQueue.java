package io.kollect.core;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A rate-limited work queue with the semantics of client-go's {@code workqueue}:
 *
 * <ul>
 *   <li>A key is queued at most once: adding a key that is already waiting to be processed does
 *       nothing.
 *   <li>A key is processed by at most one worker at a time. Adding a key while it is being
 *       processed marks it dirty; {@link #done} then queues it again, so the change that arrived
 *       during processing is never lost and never processed concurrently.
 *   <li>Keys are handed out first-in first-out, and a key re-added while processing goes to the
 *       back, so a hot key cannot starve the others.
 *   <li>{@link #addAfter} parks a key until a point in time (the earliest one wins if parked
 *       twice); {@link #addRateLimited} parks it for as long as the {@link RateLimiter} says, and
 *       {@link #forget} resets the key's backoff after a success.
 * </ul>
 *
 * <p>Unlike client-go, {@link #shutDown} drops queued keys instead of draining them: the engine is
 * level-based, so whatever was queued is re-derived on the next start.
 *
 * <p>There is no timer thread: workers blocked in {@link #get} wait only until the earliest parked
 * key is due and move due keys themselves.
 */
final class WorkQueue<K> {

  private record Parked<K>(K key, long readyAtNanos, long seq) {}

  private final RateLimiter<K> rateLimiter;
  private final RateLimiter.Ticker ticker;
  private final ReentrantLock lock = new ReentrantLock();
  private final java.util.concurrent.locks.Condition changed = lock.newCondition();
  private final ArrayDeque<K> queue = new ArrayDeque<>();
  private final Set<K> dirty = new HashSet<>();
  private final Set<K> processing = new HashSet<>();
  private final PriorityQueue<Parked<K>> parked =
      new PriorityQueue<>((a, b) -> a.readyAtNanos != b.readyAtNanos
          ? Long.compare(a.readyAtNanos, b.readyAtNanos)
          : Long.compare(a.seq, b.seq));
  private final Map<K, Parked<K>> parkedByKey = new HashMap<>();
  private long seq;
  private boolean shuttingDown;

  WorkQueue(RateLimiter<K> rateLimiter, RateLimiter.Ticker ticker) {
    this.rateLimiter = rateLimiter;
    this.ticker = ticker;
  }

  /** Queues the key unless it is already queued. Ignored after {@link #shutDown}. */
  void add(K key) {
    lock.lock();
    try {
      addLocked(key);
    } finally {
      lock.unlock();
    }
  }

  private void addLocked(K key) {
    if (shuttingDown || !dirty.add(key)) {
      return;
    }
    if (!processing.contains(key)) {
      queue.addLast(key);
      changed.signalAll();
    }
  }

  /** Queues the key once {@code delay} has passed; a key parked earlier keeps the earlier time. */
  void addAfter(K key, Duration delay) {
    if (delay.isNegative() || delay.isZero()) {
      add(key);
      return;
    }
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      long readyAt = ticker.nanoTime() + delay.toNanos();
      Parked<K> existing = parkedByKey.get(key);
      if (existing != null) {
        if (existing.readyAtNanos <= readyAt) {
          return;
        }
        parked.remove(existing);
      }
      Parked<K> p = new Parked<>(key, readyAt, seq++);
      parked.add(p);
      parkedByKey.put(key, p);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Queues the key after the delay the rate limiter gives for its next retry. */
  void addRateLimited(K key) {
    addAfter(key, rateLimiter.when(key));
  }

  /** Resets the key's retry backoff (call after it was processed successfully). */
  void forget(K key) {
    rateLimiter.forget(key);
  }

  /** How many rate-limited retries the key has had since it was last forgotten. */
  int numRequeues(K key) {
    return rateLimiter.numRequeues(key);
  }

  /**
   * Waits for a key and marks it processing; the caller must call {@link #done} with it. Empty
   * once the queue is shut down.
   */
  Optional<K> get() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (true) {
        if (shuttingDown) {
          return Optional.empty();
        }
        long waitNanos = promoteDueLocked();
        K key = queue.pollFirst();
        if (key != null) {
          dirty.remove(key);
          processing.add(key);
          return Optional.of(key);
        }
        if (waitNanos == Long.MAX_VALUE) {
          changed.await();
        } else {
          changed.awaitNanos(waitNanos);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Moves due parked keys to the queue; returns nanos until the next one is due. */
  private long promoteDueLocked() {
    long now = ticker.nanoTime();
    Parked<K> head;
    while ((head = parked.peek()) != null && head.readyAtNanos - now <= 0) {
      parked.poll();
      parkedByKey.remove(head.key);
      addLocked(head.key);
    }
    return head == null ? Long.MAX_VALUE : Math.max(1, head.readyAtNanos - now);
  }

  /** Ends processing of a key; queues it again if it was added meanwhile. */
  void done(K key) {
    lock.lock();
    try {
      processing.remove(key);
      if (dirty.contains(key) && !shuttingDown) {
        queue.addLast(key);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Keys waiting to be handed out (not counting parked ones). */
  int length() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether nothing is queued or being processed. Parked keys (retries in backoff, delayed
   * re-checks) do not count: they are future work, and a failing key would otherwise keep the queue
   * busy forever.
   */
  boolean isIdle() {
    lock.lock();
    try {
      return queue.isEmpty() && processing.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until nothing is queued or being processed ({@link #isIdle()}). */
  boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lockInterruptibly();
    try {
      while (!(queue.isEmpty() && processing.isEmpty())) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.await(left, TimeUnit.NANOSECONDS);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Drops everything queued or parked and makes {@link #get} return empty from now on. */
  void shutDown() {
    lock.lock();
    try {
      shuttingDown = true;
      queue.clear();
      dirty.clear();
      parked.clear();
      parkedByKey.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  boolean isShuttingDown() {
    lock.lock();
    try {
      return shuttingDown;
    } finally {
      lock.unlock();
    }
  }
}

package io.kollect.operator;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Runs a write per key at most once per interval; requests in between are coalesced into one
 * later run (which writes the latest state, since a write reads the state when it runs). The
 * first request after a quiet interval runs at once, so a single change is not delayed.
 *
 * <p>Used for target status: a target whose status changes every second (counts, export times)
 * costs the API server one write per interval, not one per change.
 *
 * @param <K> the key (a target)
 */
final class CoalescedWrites<K> {

  /** Schedules a task after a delay; production passes a scheduled executor, tests a list. */
  interface Scheduler {
    void schedule(Runnable task, long delayNanos);
  }

  private static final class Slot {
    long lastRunNanos;
    boolean ran;
    boolean scheduled;
    Runnable next;
  }

  private final long intervalNanos;
  private final Scheduler scheduler;
  private final LongSupplier nanoTime;
  private final Map<Object, Slot> slots = new ConcurrentHashMap<>();

  CoalescedWrites(Duration interval, Scheduler scheduler, LongSupplier nanoTime) {
    this.intervalNanos = interval.toNanos();
    this.scheduler = scheduler;
    this.nanoTime = nanoTime;
  }

  /** Asks for {@code write} to run for {@code key}: now, or when the interval since the last run ends. */
  void request(K key, Runnable write) {
    Slot slot = slots.computeIfAbsent(key, k -> new Slot());
    long delay;
    synchronized (slot) {
      slot.next = write;
      if (slot.scheduled) {
        return;
      }
      slot.scheduled = true;
      delay = slot.ran ? Math.max(0, slot.lastRunNanos + intervalNanos - nanoTime.getAsLong()) : 0;
    }
    scheduler.schedule(() -> run(key, slot), delay);
  }

  private void run(K key, Slot slot) {
    Runnable write;
    synchronized (slot) {
      write = slot.next;
      slot.next = null;
      slot.scheduled = false;
      slot.ran = true;
      slot.lastRunNanos = nanoTime.getAsLong();
    }
    if (write != null && slots.get(key) == slot) {
      write.run();
    }
  }

  /** Drops the key's pending write and history (the target was removed). */
  void forget(K key) {
    slots.remove(key);
  }
}

package io.kollect.operator.status;

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
public final class CoalescedWrites<K> {

  /** Schedules a task after a delay; production passes a scheduled executor, tests a list. */
  public interface Scheduler {
    void schedule(Runnable task, long delayNanos);
  }

  private static final class Slot {
    long lastRunNanos;
    boolean ran;
    boolean scheduled;
    /** The scheduled run is a deferred first one, which a plain request runs at once instead. */
    boolean deferred;
    /** Which scheduled run is current; a superseded run finds another ticket and does nothing. */
    long ticket;
    Runnable next;
  }

  private final long intervalNanos;
  private final Scheduler scheduler;
  private final LongSupplier nanoTime;
  private final Map<Object, Slot> slots = new ConcurrentHashMap<>();

  public CoalescedWrites(Duration interval, Scheduler scheduler, LongSupplier nanoTime) {
    this.intervalNanos = interval.toNanos();
    this.scheduler = scheduler;
    this.nanoTime = nanoTime;
  }

  /** Asks for {@code write} to run for {@code key}: now, or when the interval since the last run ends. */
  public void request(K key, Runnable write) {
    schedule(key, write, false);
  }

  /**
   * As {@link #request}, for a state that may soon be superseded (e.g. "still loading"): a key
   * that never ran waits one interval first, and a {@link #request} in that time runs at once
   * instead, with the newest write. A key that ran before is treated as by {@link #request}.
   */
  public void requestDeferred(K key, Runnable write) {
    schedule(key, write, true);
  }

  private void schedule(K key, Runnable write, boolean defer) {
    Slot slot = slots.computeIfAbsent(key, k -> new Slot());
    long delay;
    long ticket;
    synchronized (slot) {
      slot.next = write;
      if (slot.scheduled && (defer || !slot.deferred)) {
        return;
      }
      slot.scheduled = true;
      slot.deferred = defer && !slot.ran;
      ticket = ++slot.ticket;
      delay = slot.ran ? Math.max(0, slot.lastRunNanos + intervalNanos - nanoTime.getAsLong())
          : slot.deferred ? intervalNanos : 0;
    }
    scheduler.schedule(() -> run(key, slot, ticket), delay);
  }

  private void run(K key, Slot slot, long ticket) {
    Runnable write;
    synchronized (slot) {
      if (slot.ticket != ticket) {
        return;
      }
      write = slot.next;
      slot.next = null;
      slot.scheduled = false;
      slot.deferred = false;
      slot.ran = true;
      slot.lastRunNanos = nanoTime.getAsLong();
    }
    if (write != null && slots.get(key) == slot) {
      write.run();
    }
  }

  /** Drops the key's pending write and history (the target was removed). */
  public void forget(K key) {
    slots.remove(key);
  }
}

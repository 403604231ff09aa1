package io.kollect.export;

import io.kollect.extract.Op;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Export state of one (target, sink). Two views are kept on purpose: {@link #enqueued} is what has
 * been handed to the sink's buffer (the dedupe state, updated before enqueueing so a heartbeat can
 * never replay an older record), {@link #acknowledged} is what the sink confirmed (the durable
 * state, checkpointed, so a crash before delivery re-sends after a restart).
 */
final class SinkState {

  final String target;
  final String sink;

  /** Guarded by the owning {@link TargetState}'s monitor. */
  Map<String, ExportedEntry> enqueued;

  /**
   * When each current key was last handed to the sink's buffer ({@link System#nanoTime()}), so a
   * heartbeat does not re-send a record the sink has only just received. Guarded like {@link
   * #enqueued}.
   */
  final Map<String, Long> lastSentNanos = new HashMap<>();

  final ConcurrentHashMap<String, ExportedEntry> acknowledged;
  final AtomicBoolean dirty = new AtomicBoolean();

  /** Serialises checkpoint writes with forgetting, so a late save cannot resurrect a deleted one. */
  final Object saveLock = new Object();

  /** Set when the state is forgotten; later acknowledgements are ignored. */
  volatile boolean detached;

  SinkState(String target, String sink, Map<String, ExportedEntry> checkpoint) {
    this.target = target;
    this.sink = sink;
    this.acknowledged = new ConcurrentHashMap<>(checkpoint);
    this.enqueued = new HashMap<>(checkpoint);
  }

  /** Called on the delivery thread once the sink accepted the record. */
  void acknowledge(String key, Op op, ExportedEntry entry) {
    if (detached) {
      return;
    }
    if (op == Op.DELETE) {
      acknowledged.remove(key);
    } else {
      acknowledged.put(key, entry);
    }
    dirty.set(true);
  }

  /**
   * Forgets what was enqueued but keeps the keys the sink acknowledged with an unknown hash, so the
   * next diff re-sends every current record and tombstones every acknowledged key that is gone.
   */
  void resetToAcknowledged() {
    Map<String, ExportedEntry> reset = new HashMap<>();
    acknowledged.forEach((k, e) -> reset.put(k, withoutHash(e)));
    enqueued.forEach((k, e) -> reset.putIfAbsent(k, withoutHash(e)));
    enqueued = reset;
  }

  private static ExportedEntry withoutHash(ExportedEntry e) {
    return new ExportedEntry(e.resource(), e.namespace(), e.name(), e.uid(), e.profile(), null,
        e.cluster());
  }
}

package io.kollect.export;

import io.kollect.extract.ContentHash;
import io.kollect.extract.Op;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
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

  /**
   * Guarded by the owning {@link TargetState}'s monitor. Each entry's {@code lastSentAt} is when
   * the key was last handed to the sink's buffer (the exporter's clock), so a heartbeat does not
   * re-send a record the sink has only just received; seeded from the checkpoint, so a restart
   * does not re-send everything within one interval. Keeping it in the entry instead of a map of
   * its own saves a map node and an {@code Instant} per key.
   */
  Map<ExportKey, ExportedEntry> enqueued;

  final ConcurrentHashMap<ExportKey, ExportedEntry> acknowledged;
  final AtomicBoolean dirty = new AtomicBoolean();

  /**
   * Keys whose acknowledged state changed (a new state, or removed) since the last checkpoint
   * write: the next write hands only these to the store, so a change costs O(changed), not
   * O(state). A key is added after {@link #acknowledged} changed, and the writer takes the whole
   * set (replacing it with a new one) before reading {@link #acknowledged}, so a concurrent
   * acknowledgement is never lost, at worst written twice. Replacing rather than clearing lets
   * the table a first full export grew (one slot per key) go, instead of keeping it for good.
   * Guarded by {@link #unsavedLock}, held only for an add or the swap.
   */
  private Set<ExportKey> unsaved = new HashSet<>();
  private final Object unsavedLock = new Object();

  /** Only send times changed since the last write: written on close, not by the periodic save. */
  final AtomicBoolean sendTimesChanged = new AtomicBoolean();

  /**
   * States the sink refused for good, by key: the refused content hash (the heartbeat skips the key
   * while its state is still that one) and the reason. A later acknowledgement of the key clears it.
   */
  private final ConcurrentHashMap<ExportKey, Refused> refused = new ConcurrentHashMap<>();

  private record Refused(ContentHash hash, String reason) {}

  /**
   * Entries of the stored checkpoint whose keys another exporter answers for now (a shard after a
   * change of the shard count): not part of this state, kept in the store for their new owner to
   * take over. A whole-state write must leave them there. Guarded by {@link #saveLock} once the
   * state is published.
   */
  Map<ExportKey, ExportedEntry> waiting = Map.of();

  /** The latest acknowledgement time known from the checkpoint (before this process acknowledged). */
  final Instant restoredLastAcknowledged;

  /** Serialises checkpoint writes with forgetting, so a late save cannot resurrect a deleted one. */
  final Object saveLock = new Object();

  /** Set when the state is forgotten; later acknowledgements are ignored. */
  volatile boolean detached;

  SinkState(String target, String sink, Map<ExportKey, ExportedEntry> checkpoint) {
    this.target = target;
    this.sink = sink;
    this.acknowledged = new ConcurrentHashMap<>(checkpoint);
    this.enqueued = new HashMap<>(checkpoint);
    Instant latest = null;
    for (Map.Entry<ExportKey, ExportedEntry> e : checkpoint.entrySet()) {
      Instant at = e.getValue().lastSentAt();
      if (at != null) {
        latest = latest == null || at.isAfter(latest) ? at : latest;
      }
    }
    this.restoredLastAcknowledged = latest;
  }

  /**
   * Called on a delivery thread once the sink accepted the record. Marks the checkpoint dirty only
   * when the durable state changed (a new state or sequence, a removed key): a heartbeat's
   * acknowledgement only refreshes {@code lastSentAt}, which the next write carries (at the latest
   * the one on close), so heartbeats cost no periodic checkpoint writes.
   */
  void acknowledge(ExportKey key, Op op, ExportedEntry entry, Instant now) {
    if (detached) {
      return;
    }
    refused.remove(key);
    if (op == Op.DELETE) {
      if (acknowledged.remove(key) != null) {
        markUnsaved(key);
        dirty.set(true);
      }
      return;
    }
    // The entry enqueued is stored as it is (its lastSentAt is when it was handed to the buffer,
    // milliseconds before this acknowledgement): the acknowledged view then shares one object per
    // key with the enqueued view instead of holding a copy.
    ExportedEntry before = acknowledged.put(key, entry);
    if (before == null || !Objects.equals(before.hash(), entry.hash())
        || !before.sameSequence(entry)) {
      markUnsaved(key);
      dirty.set(true);
    } else {
      sendTimesChanged.set(true);
    }
  }

  private void markUnsaved(ExportKey key) {
    synchronized (unsavedLock) {
      unsaved.add(key);
    }
  }

  /** The keys acknowledged since the last call; the writer hands them to the store. */
  Set<ExportKey> takeUnsaved() {
    synchronized (unsavedLock) {
      Set<ExportKey> taken = unsaved;
      unsaved = new HashSet<>();
      return taken;
    }
  }

  /** Puts back keys whose write failed, so the next write carries them again. */
  void returnUnsaved(Set<ExportKey> keys) {
    synchronized (unsavedLock) {
      unsaved.addAll(keys);
    }
  }

  /** Called on a delivery thread when the sink refused this state of the key for good. */
  void refuse(ExportKey key, ExportedEntry entry, String reason) {
    if (!detached) {
      refused.put(key, new Refused(entry == null ? null : entry.hash(), reason));
    }
  }

  /** Whether this exact state of the key was refused (so the heartbeat must not offer it again). */
  boolean isRefused(ExportKey key, ExportedEntry entry) {
    Refused r = refused.get(key);
    return r != null && entry != null && Objects.equals(r.hash(), entry.hash());
  }

  /** The refused states, ordered by key, at most {@code limit}. */
  List<Rejection> rejections(int limit) {
    List<Rejection> out = new ArrayList<>();
    TreeMap<String, Refused> byText = new TreeMap<>();
    refused.forEach((k, r) -> byText.put(k.toString(), r));
    for (Map.Entry<String, Refused> e : byText.entrySet()) {
      if (out.size() == limit) {
        break;
      }
      out.add(new Rejection(e.getKey(), e.getValue().reason()));
    }
    return out;
  }

  /**
   * Forgets what was enqueued but keeps the keys the sink acknowledged with an unknown hash, so the
   * next diff re-sends every current record and tombstones every acknowledged key that is gone.
   */
  void resetToAcknowledged() {
    Map<ExportKey, ExportedEntry> reset = new HashMap<>();
    acknowledged.forEach((k, e) -> reset.put(k, e.withoutHash()));
    enqueued.forEach((k, e) -> reset.putIfAbsent(k, e.withoutHash()));
    enqueued = reset;
    refused.clear();
  }
}

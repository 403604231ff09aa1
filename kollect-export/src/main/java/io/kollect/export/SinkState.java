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
import java.util.function.BiConsumer;

/**
 * Export state of one (target, sink), in two views. The <em>enqueued</em> view is what has been
 * handed to the sink's buffer (the dedupe state, updated before enqueueing so a heartbeat can never
 * replay an older record); {@link #acknowledged} is what the sink confirmed (the durable state,
 * checkpointed, so a crash before delivery re-sends after a restart).
 *
 * <p><b>One full map and an overlay.</b> Once the sink confirmed what it was handed, both views
 * hold the same entry for almost every key, so only {@link #acknowledged} is a full map. The
 * enqueued view is that map under an overlay of the keys whose enqueued state differs from the
 * acknowledged one: records and DELETEs in flight, states the sink refused, the entries without
 * content hash a replaced sink is re-sent from. The enqueued state of key {@code k} is the
 * overlay's entry when it has one (a {@link Deleted} marker meaning "not enqueued"), otherwise
 * {@code acknowledged.get(k)}. A fully acknowledged state has an empty overlay: one map node per
 * key instead of two.
 *
 * <p><b>Invariants.</b> (1) Only the methods the exporter calls under the target's monitor change
 * the enqueued view ({@link #markEnqueued}, {@link #markDeleted}, {@link #resetToAcknowledged},
 * {@link #adoptForTombstones}); an acknowledgement, which arrives on a delivery thread without that
 * monitor, never does. It applies its entry to {@link #acknowledged} and then drops the overlay's
 * entry only when that is the very entry it acknowledges (by identity: a newer state enqueued
 * meanwhile stays; a DELETE is matched through its own {@link Deleted} marker); when the overlay
 * holds nothing for the key (an acknowledgement of a state this view no longer describes), the
 * view's value from before is put into the overlay, so the view still does not change. (2) The
 * overlay and the acknowledged map change together under {@link #viewLock}, which every read of
 * the view takes too, so a reader never sees a key in neither or a half-applied acknowledgement.
 * Because acknowledgements leave the view alone, its size is counted where it changes ({@link
 * #enqueuedSize}), so a diff tells in O(1) that no key vanished, as it did with a full map. Per-key
 * delivery order ({@link DeliveryChannel}) is not needed for correctness, only for the overlay to
 * empty: an acknowledgement that arrives out of order may leave its key in the overlay until the
 * key's next state.
 *
 * <p>A plain map under a lock, not a {@code ConcurrentHashMap}: an acknowledgement must change
 * both maps as one step for (2), and a lock lets the overlay be replaced by a small map once it
 * shrank (a first inventory has every key in flight at once; a table never shrinks).
 */
final class SinkState {

  final String target;
  final String sink;

  /**
   * What the sink confirmed, by key. Each entry's {@code lastSentAt} is when that state of the key
   * was last handed to the sink's buffer (the exporter's clock), so a heartbeat does not re-send a
   * record the sink has only just received; seeded from the checkpoint, so a restart does not
   * re-send everything within one interval. Read without a lock by checkpoint writes; changed
   * only under {@link #viewLock}.
   */
  final ConcurrentHashMap<ExportKey, ExportedEntry> acknowledged;
  final AtomicBoolean dirty = new AtomicBoolean();

  /**
   * Guards {@link #overlay}, {@link #overlayPeak} and {@link #enqueuedSize}, and every change of
   * {@link #acknowledged}.
   */
  private final Object viewLock = new Object();

  /**
   * The keys whose enqueued state differs from the acknowledged one: an {@link ExportedEntry}, or
   * a {@link Deleted} marker for a key that is not enqueued (a DELETE in flight or refused).
   */
  private HashMap<ExportKey, Object> overlay = new HashMap<>();

  /** The overlay's largest size since it was last made: how large its table may have grown. */
  private int overlayPeak;

  /** How many keys the enqueued view holds. */
  private int enqueuedSize;

  /**
   * The overlay's "not enqueued", one per DELETE handed over (its {@link #last} is the entry that
   * DELETE is acknowledged with), so an acknowledgement of an earlier DELETE of the key does not
   * take a later one's marker: identity, not equality, is what counts. With {@code last} null it
   * keeps a key out of the view that an acknowledgement put into the acknowledged map only.
   */
  private static final class Deleted {
    final ExportedEntry last;

    Deleted(ExportedEntry last) {
      this.last = last;
    }
  }

  /** An overlay that shrank to this fraction of its peak is copied into a map of its own size. */
  private static final int SHRINK_FACTOR = 8;
  /** Below this peak the table is small enough to keep. */
  private static final int SHRINK_MIN_PEAK = 64;

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
    this.enqueuedSize = acknowledged.size();
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
    boolean durable;
    synchronized (viewLock) {
      Object over = overlay.get(key);
      if (op == Op.DELETE) {
        ExportedEntry before = acknowledged.remove(key);
        durable = before != null;
        if (over instanceof Deleted d && d.last == entry) {
          removeFromOverlay(key);
        } else if (over == null && before != null) {
          putInOverlay(key, before); // the view still holds the key (see the class comment)
        }
      } else {
        // The entry enqueued is stored as it is (its lastSentAt is when it was handed to the
        // buffer, milliseconds before this acknowledgement): both views then share one object.
        ExportedEntry before = acknowledged.put(key, entry);
        durable = before == null || !Objects.equals(before.hash(), entry.hash())
            || !before.sameSequence(entry);
        if (over == entry) {
          removeFromOverlay(key);
        } else if (over == null && before != entry) {
          // a state this view no longer describes (a replaced sink's late write): the view
          // keeps what it said, the key's previous entry or "not enqueued"
          putInOverlay(key, before == null ? new Deleted(null) : before);
        }
      }
    }
    if (durable) {
      markUnsaved(key);
      dirty.set(true);
    } else if (op != Op.DELETE) {
      sendTimesChanged.set(true);
    }
  }

  /** The enqueued state of the key; {@code null} when it is not enqueued. Caller holds viewLock. */
  private ExportedEntry enqueuedUnlocked(ExportKey key) {
    // a settled state has an empty overlay: one hash lookup per key, as with one map
    Object over = overlay.isEmpty() ? null : overlay.get(key);
    if (over == null) {
      return acknowledged.get(key);
    }
    return over instanceof ExportedEntry e ? e : null;
  }

  /** Caller holds viewLock. */
  private void putInOverlay(ExportKey key, Object value) {
    overlay.put(key, value);
    overlayPeak = Math.max(overlayPeak, overlay.size());
  }

  /** Caller holds viewLock. Lets the table go once the overlay is a fraction of its peak. */
  private void removeFromOverlay(ExportKey key) {
    overlay.remove(key);
    if (overlayPeak >= SHRINK_MIN_PEAK && overlay.size() <= overlayPeak / SHRINK_FACTOR) {
      overlay = new HashMap<>(overlay);
      overlayPeak = overlay.size();
    }
  }

  /**
   * What was last handed to the sink's buffer for the key (a record's entry, with the time it was
   * handed over); {@code null} when the key is not enqueued (never, or deleted since).
   */
  ExportedEntry enqueuedEntry(ExportKey key) {
    synchronized (viewLock) {
      return enqueuedUnlocked(key);
    }
  }

  /** Records that {@code entry} goes to the sink's buffer for the key; target's monitor held. */
  void markEnqueued(ExportKey key, ExportedEntry entry) {
    synchronized (viewLock) {
      if (enqueuedUnlocked(key) == null) {
        enqueuedSize++;
      }
      putInOverlay(key, entry);
    }
  }

  /**
   * Records that the key's DELETE is handed to the sink's buffer, and returns the entry the key
   * had, which the DELETE is built from and acknowledged with; {@code null}, changing nothing,
   * when the key is not enqueued. The target's monitor is held.
   */
  ExportedEntry markDeleted(ExportKey key) {
    synchronized (viewLock) {
      ExportedEntry last = enqueuedUnlocked(key);
      if (last != null) {
        putInOverlay(key, new Deleted(last));
        enqueuedSize--;
      }
      return last;
    }
  }

  /** How many keys are enqueued. */
  int enqueuedSize() {
    synchronized (viewLock) {
      return enqueuedSize;
    }
  }

  /**
   * Calls {@code action} with every enqueued key and its entry, holding the state's lock: the
   * action must not change this state (collect, then change).
   */
  void forEachEnqueued(BiConsumer<ExportKey, ExportedEntry> action) {
    synchronized (viewLock) {
      acknowledged.forEach((k, e) -> {
        if (!overlay.containsKey(k)) {
          action.accept(k, e);
        }
      });
      overlay.forEach((k, over) -> {
        if (over instanceof ExportedEntry e) {
          action.accept(k, e);
        }
      });
    }
  }

  /**
   * How many keys' enqueued state differs from the acknowledged one (in flight, refused, to be
   * re-sent): what the enqueued view costs beyond the acknowledged map.
   */
  int overlaySize() {
    synchronized (viewLock) {
      return overlay.size();
    }
  }

  /**
   * Makes the entries kept for other shards ({@link #waiting}) acknowledged, each unless its key
   * already is, so their DELETEs (acknowledged with the same entries) remove them from the store.
   * The enqueued view does not change: a key it did not hold is marked as deleted.
   */
  void adoptForTombstones(Map<ExportKey, ExportedEntry> entries) {
    synchronized (viewLock) {
      entries.forEach((k, e) -> {
        if (acknowledged.putIfAbsent(k, e) == null && !overlay.containsKey(k)) {
          putInOverlay(k, new Deleted(e));
        }
      });
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
   * Under the target's monitor; the overlay then holds every key until it is re-sent.
   */
  void resetToAcknowledged() {
    synchronized (viewLock) {
      HashMap<ExportKey, Object> reset =
          new HashMap<>(Math.max(16, (acknowledged.size() + overlay.size()) * 4 / 3 + 1));
      acknowledged.forEach((k, e) -> reset.put(k, e.withoutHash()));
      overlay.forEach((k, over) -> {
        if (over instanceof ExportedEntry e) {
          reset.putIfAbsent(k, e.withoutHash());
        }
      });
      overlay = reset;
      overlayPeak = reset.size();
      enqueuedSize = reset.size();
    }
    refused.clear();
  }
}

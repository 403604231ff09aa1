package io.kollect.export;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exporter's checkpoint bookkeeping: turns a (target, sink)'s stored checkpoint (and what the
 * store's peers hold of it) into a {@link SinkState}, writes back what the sink acknowledged, and
 * forgets a state that is no longer wanted. Everything between the exporter and its {@link
 * CheckpointStore} goes through here.
 *
 * <p><b>The invariant.</b> A {@link SinkState} has two views. The enqueued view is the
 * last-exported state: the exporter writes a key's new entry (content hash, sequence, send time)
 * into it <em>before</em> it hands the record to the sink's buffer, under the target's monitor
 * (it is kept as an overlay on {@code acknowledged}: see {@link SinkState}).
 * {@code acknowledged} is what the sink confirmed (in this run, or in an earlier one as loaded;
 * adopted entries are what a peer's sink confirmed), and it is the only view this book ever writes
 * to the store. So the store never claims a content the destination was not handed: a crash
 * re-sends whatever was enqueued but not yet acknowledged, and tombstones, after the restart, what
 * was acknowledged and is gone. The store may lag {@code acknowledged} (writes are coalesced per
 * checkpoint interval), never run ahead of it.
 *
 * <p><b>Why a concurrent heartbeat cannot replay a stale state.</b> A heartbeat runs under the
 * same target monitor as a converge and re-sends the entry the enqueued view holds for the key's
 * current record, with that entry's sequence: since the entry was replaced before the newer
 * record was sent, the heartbeat sees the newer one or none. What is loaded from a checkpoint is
 * never repeated with its stored sequence: {@link #open} gives every loaded entry a new sequence,
 * larger than any issued before the restart ({@link SequenceClock}). The checkpoint may lag the
 * sink (a {@code kill -9} between two writes); had the receiver been handed a newer state with a
 * larger sequence that never reached the checkpoint, a heartbeat repeating the checkpointed
 * sequence would be refused there forever, while a new one repairs it. Writes take the set of
 * unsaved keys before they read {@code acknowledged}, so an acknowledgement that lands during a
 * write is carried by the next one (at worst written twice, never lost), and they hold the state's
 * {@code saveLock}, which {@link #forget} holds too, so a late write cannot bring back a deleted
 * checkpoint.
 *
 * <p><b>Handover between shards</b> (a change of the shard count; {@link
 * Exporter.Builder#ownedKeys}). Loading splits the stored entries into the ones this exporter
 * answers for and the ones another exporter answers for now. For a sink whose destination every
 * shard shares ({@link Sink#destinationSharedByShards()}) the latter stay in the store, waiting for
 * their new owner, and the peers' entries of this exporter's keys are <em>adopted</em>: per key
 * the copy with the largest sequence wins (on a tie the own one), it is written to the own store
 * ({@link CheckpointStore#apply}) and only then <em>removed</em> from the peers ({@link
 * CheckpointStore#takeOver}). A crash between adopt and remove leaves the key in two stores; the
 * next load (of either shard) resolves it by the same largest-sequence rule, so the duplicate is
 * harmless. A failed adopt write skips the removal, so a key is never in no store. For any other
 * sink the disowned entries are removed from the store and no peer is read: what another shard's
 * instance of the sink was handed says nothing about this one's destination.
 *
 * <p>Thread-safety: {@link #open} runs under the target's monitor; {@link #save} and {@link
 * #forget} under the state's {@code saveLock}; the book's own state is one failure flag.
 */
final class CheckpointBook {

  /** Logs as the exporter: one category for what export does, as before this class was split out. */
  private static final Logger LOG = LoggerFactory.getLogger(Exporter.class);

  private final CheckpointStore store;
  private final SequenceClock sequences;
  private final BiPredicate<String, String> ownedKeys;
  /** Whether the last write failed: the first failure is a warning, the next ones debug. */
  private volatile boolean failing;

  CheckpointBook(CheckpointStore store, SequenceClock sequences,
      BiPredicate<String, String> ownedKeys) {
    this.store = store;
    this.sequences = sequences;
    this.ownedKeys = ownedKeys;
  }

  /**
   * The export state of a (target, sink) as its checkpoint (and, for a destination shared by
   * shards, its peers') leave it: the sequence clock moved past every sequence seen, and every
   * entry with a new sequence, which the heartbeat then repeats. A checkpoint that cannot be read
   * gives an empty state (logged).
   */
  SinkState open(String target, String sink, boolean destinationSharedByShards) {
    Loaded loaded = load(target, sink, destinationSharedByShards);
    SinkState st = new SinkState(target, sink, loaded.entries());
    st.waiting = loaded.waiting();
    return st;
  }

  /**
   * What loading a (target, sink) gives: the export state, and the entries of the stored
   * checkpoint whose objects another exporter answers for now, which stay stored for it.
   */
  private record Loaded(Map<ExportKey, ExportedEntry> entries,
      Map<ExportKey, ExportedEntry> waiting) {
    static final Loaded EMPTY = new Loaded(Map.of(), Map.of());
  }

  private Loaded load(String target, String sink, boolean handover) {
    Map<String, ExportedEntry> stored;
    try {
      stored = store.load(target, sink);
    } catch (RuntimeException e) {
      LOG.warn("cannot load checkpoint of target {} sink {}; treating it as empty (objects deleted "
          + "while the exporter was down get no tombstone): {}", target, sink, e.toString());
      return Loaded.EMPTY;
    }
    Map<String, ExportedEntry> own = new LinkedHashMap<>();
    Map<String, ExportedEntry> waiting = new HashMap<>();
    if (stored != null) {
      for (Map.Entry<String, ExportedEntry> e : stored.entrySet()) {
        observe(e.getValue());
        (ownedKeys.test(target, e.getKey()) ? own : waiting).put(e.getKey(), e.getValue());
      }
    }
    if (!handover) {
      // A destination of this sink instance alone: nobody else's entry says what it holds, and
      // nobody takes this one's lost entries over.
      if (!waiting.isEmpty()) {
        forgetDisowned(target, sink, waiting.keySet());
      }
      waiting = Map.of();
    } else {
      int adopted = adoptFromPeers(target, sink, own);
      if (adopted > 0 || !waiting.isEmpty()) {
        LOG.info("target {} sink {}: took over {} checkpointed records from other shards; {} of "
            + "this checkpoint belong to another shard now and are kept for it, without "
            + "tombstones", target, sink, adopted, waiting.size());
      }
    }
    own.replaceAll((k, e) -> e.withSequence(sequences.next()));
    return new Loaded(keyed(own), keyed(waiting));
  }

  /** The store's entries under the exporter's keys. */
  private static Map<ExportKey, ExportedEntry> keyed(Map<String, ExportedEntry> entries) {
    Map<ExportKey, ExportedEntry> out = new HashMap<>(Math.max(16, entries.size() * 4 / 3 + 1));
    entries.forEach((k, e) -> out.put(ExportKey.parse(k), e));
    return out;
  }

  /** The exporter's entries under the store's keys (the text of each key). */
  static Map<String, ExportedEntry> texts(Map<ExportKey, ExportedEntry> entries) {
    Map<String, ExportedEntry> out = new HashMap<>(Math.max(16, entries.size() * 4 / 3 + 1));
    entries.forEach((k, e) -> out.put(k.toString(), e));
    return out;
  }

  /**
   * The exporter's entries under the store's keys as a read-only view: its size is immediate, so a
   * store can decide whether to compact without a copy of the state, and iterating it converts each
   * key as it goes. Looking a key up is linear; a store iterates it.
   */
  static Map<String, ExportedEntry> textView(Map<ExportKey, ExportedEntry> entries) {
    return new AbstractMap<>() {
      @Override
      public int size() {
        return entries.size();
      }

      @Override
      public Set<Map.Entry<String, ExportedEntry>> entrySet() {
        return new AbstractSet<>() {
          @Override
          public int size() {
            return entries.size();
          }

          @Override
          public Iterator<Map.Entry<String, ExportedEntry>> iterator() {
            Iterator<Map.Entry<ExportKey, ExportedEntry>> it = entries.entrySet().iterator();
            return new Iterator<>() {
              @Override
              public boolean hasNext() {
                return it.hasNext();
              }

              @Override
              public Map.Entry<String, ExportedEntry> next() {
                Map.Entry<ExportKey, ExportedEntry> e = it.next();
                return Map.entry(e.getKey().toString(), e.getValue());
              }
            };
          }
        };
      }
    };
  }

  /**
   * Adopts into {@code own} the peers' entries of keys this exporter answers for, where they are
   * newer than its own, writes them to its store and only then removes them from the peers.
   *
   * @return how many entries were adopted
   */
  private int adoptFromPeers(String target, String sink, Map<String, ExportedEntry> own) {
    Map<String, ExportedEntry> adopted = new HashMap<>();
    Set<String> taken = new HashSet<>();
    for (Map<String, ExportedEntry> peer : loadPeers(target, sink)) {
      for (Map.Entry<String, ExportedEntry> e : peer.entrySet()) {
        ExportedEntry theirs = e.getValue();
        if (theirs == null || theirs.resource() == null) {
          continue;
        }
        observe(theirs);
        String key = e.getKey();
        if (!ownedKeys.test(target, key)) {
          continue;
        }
        taken.add(key);
        ExportedEntry best = adopted.containsKey(key) ? adopted.get(key) : own.get(key);
        if (best == null || newer(theirs, best)) {
          adopted.put(key, theirs);
        }
      }
    }
    if (!adopted.isEmpty()) {
      own.putAll(adopted);
      try {
        store.apply(target, sink, adopted, Set.of());
      } catch (RuntimeException e) {
        // The peers keep their copies: the next load takes them over again. Until then the
        // state holds them, so the first converge still tombstones what is gone.
        LOG.warn("cannot write the records taken over from other shards into the checkpoint of "
            + "target {} sink {}; they stay with those shards for now: {}", target, sink,
            e.toString());
        taken.clear();
      }
    }
    if (!taken.isEmpty()) {
      try {
        store.takeOver(target, sink, taken);
      } catch (RuntimeException e) {
        // harmless: the copies left behind are taken over again by the next load
        LOG.warn("cannot remove records taken over from the checkpoints of other shards (target "
            + "{} sink {}): {}", target, sink, e.toString());
      }
    }
    return adopted.size();
  }

  /**
   * Removes keys another exporter now answers for from the stored checkpoint of a sink whose
   * destination is this exporter's alone ({@link Sink#destinationSharedByShards()} false), so a
   * later restart does not load them again. Their sequences were observed all the same: a key
   * that comes back to this exporter later continues above them.
   */
  private void forgetDisowned(String target, String sink, Set<String> disowned) {
    LOG.info("target {} sink {}: {} checkpointed records belong to another shard now; forgetting "
        + "them without tombstones", target, sink, disowned.size());
    try {
      store.apply(target, sink, Map.of(), Set.copyOf(disowned));
    } catch (RuntimeException e) {
      // harmless: the next load drops them again
      LOG.warn("cannot remove records of another shard from the checkpoint of target {} sink {}: "
          + "{}", target, sink, e.toString());
    }
  }

  private List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
    try {
      List<Map<String, ExportedEntry>> peers = store.loadPeers(target, sink);
      return peers == null ? List.of() : peers;
    } catch (RuntimeException e) {
      LOG.warn("cannot read the checkpoints of other shards for target {} sink {}; records they "
          + "hold of this shard's objects are sent as new (an object deleted while it moved "
          + "gets no tombstone): {}", target, sink, e.toString());
      return List.of();
    }
  }

  private void observe(ExportedEntry e) {
    if (e != null && e.sequence() != null) {
      sequences.observe(e.sequence());
    }
  }

  /** Whether {@code a} is a later state of its key than {@code b}: it has the larger sequence. */
  private static boolean newer(ExportedEntry a, ExportedEntry b) {
    return a.sequence() != null && (b.sequence() == null || a.sequence() > b.sequence());
  }

  /**
   * Hands the entries kept for other shards ({@link SinkState#waiting}) over once, leaving none:
   * for a target that leaves every shard at once, whose waiting entries no shard will take over.
   * Each becomes acknowledged (unless its key already is) until its DELETE is, which is what
   * removes it from the store. Both happen under the {@code saveLock}: a write in between would
   * see no waiting entries and offer the store a state without them, and a compaction from that
   * state would drop them from the checkpoint before their tombstones were acknowledged.
   */
  Map<ExportKey, ExportedEntry> takeWaiting(SinkState st) {
    synchronized (st.saveLock) {
      Map<ExportKey, ExportedEntry> waiting = st.waiting;
      st.waiting = Map.of();
      st.adoptForTombstones(waiting);
      return waiting;
    }
  }

  /**
   * The periodic write: writes the state when its acknowledged entries changed, or, with {@code
   * closing}, when only send times did (so a graceful restart resumes the heartbeat where it was
   * without heartbeats costing periodic writes).
   */
  void saveIfChanged(SinkState st, boolean closing) {
    boolean sendTimes = closing && st.sendTimesChanged.get();
    if (st.dirty.getAndSet(false) || sendTimes) {
      save(st, sendTimes);
    }
  }

  /** Writes what is unsaved and detaches the state: its sink was removed, its checkpoint stays. */
  void saveAndDetach(SinkState st) {
    save(st, false);
    st.detached = true;
  }

  /**
   * Writes what the sink acknowledged since the last write: the changed and removed keys as a
   * delta ({@link CheckpointStore#apply}), or with {@code whole} the complete state (on close, when
   * heartbeats refreshed send times of keys that did not otherwise change: one O(state) write per
   * graceful shutdown instead of one per heartbeat acknowledgement). A failed write puts its keys
   * back, so the next one carries them.
   */
  void save(SinkState st, boolean whole) {
    synchronized (st.saveLock) {
      if (st.detached) {
        return;
      }
      Set<ExportKey> keys = st.takeUnsaved();
      try {
        write(st, keys, whole);
        if (failing) {
          failing = false;
          LOG.info("checkpoint writes work again");
        }
      } catch (RuntimeException e) {
        st.returnUnsaved(keys);
        st.dirty.set(true);
        if (whole) {
          st.sendTimesChanged.set(true);
        }
        if (!failing) {
          failing = true;
          LOG.warn("cannot save checkpoint of target {} sink {} (retrying; further failures are "
              + "logged at debug): {}", st.target, st.sink, e.toString());
        } else {
          LOG.debug("cannot save checkpoint of target {} sink {}: {}", st.target, st.sink,
              e.toString());
        }
      }
    }
  }

  /** Caller holds {@code st.saveLock}. */
  private void write(SinkState st, Set<ExportKey> keys, boolean whole) {
    if (whole && st.waiting.isEmpty()) {
      st.sendTimesChanged.set(false);
      store.save(st.target, st.sink, Map.copyOf(texts(st.acknowledged)));
    } else if (whole) {
      // Entries kept for other shards are in the store, not in this state: a whole save would
      // drop them before their new owner took them over. Writing every own key as a change
      // leaves them as they are (also when their owner took them over meanwhile).
      st.sendTimesChanged.set(false);
      Set<String> removed = new HashSet<>();
      for (ExportKey key : keys) {
        if (!st.acknowledged.containsKey(key)) {
          removed.add(key.toString());
        }
      }
      store.apply(st.target, st.sink, Map.copyOf(texts(st.acknowledged)), removed);
    } else if (!keys.isEmpty()) {
      Map<String, ExportedEntry> changed = new HashMap<>();
      Set<String> removed = new HashSet<>();
      for (ExportKey key : keys) {
        ExportedEntry e = st.acknowledged.get(key);
        if (e == null) {
          removed.add(key.toString());
        } else {
          changed.put(key.toString(), e);
        }
      }
      if (st.waiting.isEmpty()) {
        // The store holds exactly what this state acknowledged (what it loaded plus every change
        // written since): it may compact from it instead of reading its files back.
        store.apply(st.target, st.sink, changed, removed, () -> textView(st.acknowledged));
      } else {
        store.apply(st.target, st.sink, changed, removed);
      }
    }
  }

  /**
   * Detaches a state (later acknowledgements are ignored) and deletes its stored checkpoint,
   * under its {@code saveLock}, so a write already under way cannot bring it back.
   */
  void forget(SinkState st) {
    synchronized (st.saveLock) {
      st.detached = true;
      delete(st.target, st.sink);
    }
  }

  /** Deletes the stored checkpoint of a (target, sink); a failure is logged, not thrown. */
  void delete(String target, String sink) {
    try {
      store.delete(target, sink);
    } catch (RuntimeException e) {
      LOG.warn("cannot delete checkpoint of target {} sink {}: {}", target, sink, e.toString());
    }
  }
}

package io.kollect.export;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Persists what each sink has acknowledged, so that after a restart objects deleted while the
 * process was down are tombstoned and unchanged objects are not re-sent before the next heartbeat.
 * Implementations: {@code FileCheckpointStore} here, an in-cluster one in the operator.
 *
 * <p>The exporter hands over acknowledged <em>changes</em> through {@link #apply} (about once per
 * checkpoint interval per (target, sink)) and a whole state through {@link #save} only when
 * everything changed at once (on close, to carry heartbeat send times). A store that keeps a log
 * of deltas writes O(changed) bytes per change; one that does not override {@code apply} gets the
 * load-merge-save default and keeps working, at O(state) per change.
 *
 * <p><b>Handover between shards.</b> When a deployment is split into shards, each shard keeps its
 * own checkpoints and the stores of the other shards (and of the unsharded layout) are its
 * <em>peers</em>. After a change of the shard count an object's entry sits in the checkpoint of
 * its old owner; the new owner reads it there once, at load ({@link #loadPeers}), makes it its own
 * (writes it with {@link #apply}) and only then removes it from the peers ({@link #takeOver}). That
 * is what lets the new owner tombstone an object deleted while ownership moved, and spares it
 * re-sending the objects it inherits unchanged. Both methods default to "no peers", so a store
 * written before they existed keeps working: a new owner then re-sends what it inherits and
 * cannot tombstone what was deleted in between.
 */
public interface CheckpointStore {

  /**
   * The acknowledged state of one (target, sink): record key to entry. Empty when none is stored.
   */
  Map<String, ExportedEntry> load(String target, String sink);

  /** Replaces the stored state of one (target, sink). May be called often; implementations may coalesce writes. */
  void save(String target, String sink, Map<String, ExportedEntry> entries);

  /**
   * Applies acknowledged changes to the stored state of one (target, sink): each of {@code
   * changed} replaces the entry of its key, each of {@code removed} leaves the state. A key is in
   * at most one of the two. Once this returns, a later {@link #load} (also in another process)
   * sees the change. The default loads, merges and saves the whole state; stores that can append
   * should override it.
   */
  default void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed) {
    Map<String, ExportedEntry> merged = new HashMap<>(load(target, sink));
    merged.keySet().removeAll(removed);
    merged.putAll(changed);
    save(target, sink, merged);
  }

  /**
   * {@link #apply(String, String, Map, Set)}, the caller also offering its whole state of the
   * (target, sink) after the change, so that a store which now and then rewrites its whole state
   * (a compaction) can write that instead of reading its own files back. The store calls {@code
   * state} at most once, during this call, and only when it knows its stored state to be the
   * caller's: the caller loaded it from this store ({@link #load}) and every change of it since
   * went through this store. The map holds what {@code load} returned with every change applied
   * since (this one included); it may also hold newer states of keys than those applied
   * (acknowledged since, not written yet, or given a new sequence when loaded), never an older
   * state than one already applied. A caller that keeps stored entries out of its state
   * (entries kept for another shard) must not offer it. The map may be a read-only view whose
   * size is immediate and whose keys are made as it is iterated: read it by its size and by
   * iterating it, not by looking keys up. The default ignores {@code state}.
   */
  default void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed, Supplier<Map<String, ExportedEntry>> state) {
    apply(target, sink, changed, removed);
  }

  /** Forgets a (target, sink) entirely. */
  void delete(String target, String sink);

  /**
   * The states stored for one (target, sink) by this store's peers: the other shards of the same
   * deployment, whatever their index, and the unsharded layout (for the unsharded store: every
   * shard). One map (record key to entry) per peer that holds any; empty when there are no peers.
   * The exporter calls it once per (target, sink), when it loads its own checkpoint, never per
   * change, so a store may list its peers there. A peer that cannot be read is left out (logged);
   * the cost is what a store without peers costs.
   */
  default List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
    return List.of();
  }

  /**
   * Removes {@code keys} from the state every peer stores for one (target, sink), once this store
   * holds them itself (the caller wrote them with {@link #apply} first, so a crash in between
   * leaves a key in two stores, never in none). A key a peer does not hold is skipped; a peer that
   * is written concurrently by its own shard must not lose that shard's writes of other keys.
   */
  default void takeOver(String target, String sink, Set<String> keys) {}

  /** A store that keeps nothing: every start is a first start. */
  static CheckpointStore none() {
    return new CheckpointStore() {
      @Override
      public Map<String, ExportedEntry> load(String target, String sink) {
        return Map.of();
      }

      @Override
      public void save(String target, String sink, Map<String, ExportedEntry> entries) {}

      @Override
      public void apply(String target, String sink, Map<String, ExportedEntry> changed,
          Set<String> removed) {}

      @Override
      public void delete(String target, String sink) {}
    };
  }
}

package io.kollect.export;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

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

  /** Forgets a (target, sink) entirely. */
  void delete(String target, String sink);

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

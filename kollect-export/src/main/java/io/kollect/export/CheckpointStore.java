package io.kollect.export;

import java.util.Map;

/**
 * Persists what each sink has acknowledged, so that after a restart objects deleted while the
 * process was down are tombstoned and unchanged objects are not re-sent before the next heartbeat.
 * Implementations: {@code FileCheckpointStore} here, an in-cluster one in the operator.
 */
public interface CheckpointStore {

  /**
   * The acknowledged state of one (target, sink): record key to entry. Empty when none is stored.
   */
  Map<String, ExportedEntry> load(String target, String sink);

  /** Replaces the stored state of one (target, sink). May be called often; implementations may coalesce writes. */
  void save(String target, String sink, Map<String, ExportedEntry> entries);

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
      public void delete(String target, String sink) {}
    };
  }
}

package io.kollect.core;

import io.kollect.export.CheckpointStore;
import io.kollect.export.ExportedEntry;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The host's checkpoint store, with deletes suppressed while the engine steps down from exporting.
 *
 * <p>On losing leadership the engine makes the exporter forget its targets (so a standby sends no
 * heartbeats), and the exporter's way to forget a target also deletes its checkpoints. Those
 * checkpoints are exactly what the next leader loads to send only what changed; deleting them would
 * turn every failover into a full re-send and lose the tombstones of objects deleted meanwhile.
 * Deletes made by the stepping-down thread are therefore dropped; a removed target's checkpoints
 * are still deleted.
 */
final class RetainingCheckpointStore implements CheckpointStore {

  private final CheckpointStore delegate;
  private final ThreadLocal<Boolean> retaining = ThreadLocal.withInitial(() -> false);

  RetainingCheckpointStore(CheckpointStore delegate) {
    this.delegate = delegate;
  }

  /** Runs {@code action} with this thread's checkpoint deletes suppressed. */
  void retainingDuring(Runnable action) {
    retaining.set(true);
    try {
      action.run();
    } finally {
      retaining.set(false);
    }
  }

  @Override
  public Map<String, ExportedEntry> load(String target, String sink) {
    return delegate.load(target, sink);
  }

  @Override
  public void save(String target, String sink, Map<String, ExportedEntry> entries) {
    delegate.save(target, sink, entries);
  }

  /**
   * Hands deltas straight to the host's store: the interface's default would load, merge and save
   * the whole state on every write, turning the store's O(changed) log back into a full rewrite.
   */
  @Override
  public void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed) {
    delegate.apply(target, sink, changed, removed);
  }

  /** The host store's peers (other shards): without this the default would hide them. */
  @Override
  public List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
    return delegate.loadPeers(target, sink);
  }

  @Override
  public void takeOver(String target, String sink, Set<String> keys) {
    delegate.takeOver(target, sink, keys);
  }

  @Override
  public void delete(String target, String sink) {
    if (!retaining.get()) {
      delegate.delete(target, sink);
    }
  }
}

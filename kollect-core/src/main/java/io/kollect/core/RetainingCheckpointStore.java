package io.kollect.core;

import io.kollect.export.CheckpointStore;
import io.kollect.export.ForwardingCheckpointStore;

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
final class RetainingCheckpointStore extends ForwardingCheckpointStore {

  private final ThreadLocal<Boolean> retaining = ThreadLocal.withInitial(() -> false);

  RetainingCheckpointStore(CheckpointStore delegate) {
    super(delegate);
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
  public void delete(String target, String sink) {
    if (!retaining.get()) {
      super.delete(target, sink);
    }
  }
}

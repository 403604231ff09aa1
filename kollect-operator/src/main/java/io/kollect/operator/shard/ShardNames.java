package io.kollect.operator.shard;

import io.kollect.core.Shard;

/**
 * What the operator's own objects are called when the work is split over shards: the Lease, the
 * checkpoint ConfigMaps and the KollectInventory objects of shard {@code I} carry {@code
 * -shard-I}, and unsharded they keep the names they always had (nothing to migrate).
 *
 * <p><b>Why the index and not the total.</b> The index is the shard's identity; the total is
 * configuration. A shard whose total changes (2 to 3) keeps its Lease, so two pods that both
 * think they are shard 1 never export at once; keeps its checkpoint, so objects it still owns are
 * not re-sent and the entries of those it lost wait there, without a DELETE, for their new owner
 * to take them over (what {@code Exporter.Builder.ownedKeys} and {@code
 * CheckpointStore.loadPeers} are for); and keeps its inventory objects, from which it drops the
 * records it lost on the first write. With the total in the names every change of it would
 * orphan all of that and re-send everything. Objects of indexes at or above a smaller new total
 * are left behind; {@link #foreign} tells them apart.
 */
public final class ShardNames {

  /** Label (and annotation) with the shard index on checkpoints and inventory objects. */
  public static final String SHARD_LABEL = "kollect.io/shard";

  private ShardNames() {}

  /** {@code -shard-I} when sharded, else empty. */
  public static String suffix(Shard shard) {
    return shard.sharded() ? "-shard-" + shard.index() : "";
  }

  /** The shard label's value of this shard's objects, {@code null} when not sharded. */
  public static String label(Shard shard) {
    return shard.sharded() ? Integer.toString(shard.index()) : null;
  }

  /**
   * Whether an object with shard label {@code value} ({@code null}: none) belongs to no running
   * shard of {@code shard}'s fleet: an unsharded operator's object once sharded, a shard's object
   * once unsharded, or an index at or above the total after it shrank.
   */
  public static boolean foreign(Shard shard, String value) {
    if (!shard.sharded()) {
      return value != null;
    }
    if (value == null) {
      return true;
    }
    try {
      int index = Integer.parseInt(value);
      return index < 0 || index >= shard.total();
    } catch (NumberFormatException e) {
      return true;
    }
  }
}

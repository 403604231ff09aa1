/**
 * Work split over shards: the names of a shard's own objects ({@link
 * io.kollect.operator.shard.ShardNames}), whether the other shards run ({@link
 * io.kollect.operator.shard.ShardLeases}, from their Leases), and a sharded target's status: each
 * shard's entry in {@code status.shards[]} and the top level the aggregator makes of them ({@link
 * io.kollect.operator.shard.ShardStatuses}).
 */
package io.kollect.operator.shard;

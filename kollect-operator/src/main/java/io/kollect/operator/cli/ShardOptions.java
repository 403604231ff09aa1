package io.kollect.operator.cli;

import picocli.CommandLine.Option;

/** The sharding flags of {@code kollect run}: they make its {@link ShardFlags}. */
final class ShardOptions {

  @Option(names = "--total-shards", paramLabel = "N",
      description = "Split the objects over N shards (replicas); this one exports only the "
          + "objects that hash to its --shard. Default: not split.")
  Integer totalShards;

  @Option(names = "--shard", paramLabel = "I",
      description = "This replica's shard, 0 to N-1 (with --total-shards).")
  Integer shard;

  @Option(names = "--shard-from-pod-name",
      description = "Take the shard from the ordinal of the pod name <statefulset>-<ordinal> "
          + "($POD_NAME, else the host name), for a StatefulSet.")
  boolean shardFromPodName;

  @Option(names = "--total-shards-from-statefulset", paramLabel = "NAME",
      description = "Take --total-shards from the spec.replicas of this StatefulSet in the "
          + "operator's namespace, read at start.")
  String totalShardsFromStatefulSet;

  @Option(names = "--shard-by", paramLabel = "RULE",
      description = "How the objects are split: object (default; a hash of each object, every "
          + "shard reads every cluster) or cluster (a remote cluster's objects all go to one "
          + "shard, which alone connects to it; the local cluster stays split by object).")
  String shardBy;

  /** The flags, checked as far as they can be before connecting; bad input exits 2. */
  ShardFlags flags() {
    try {
      return new ShardFlags(totalShards, shard, shardFromPodName, totalShardsFromStatefulSet,
          ShardFlags.rule(shardBy));
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }
}

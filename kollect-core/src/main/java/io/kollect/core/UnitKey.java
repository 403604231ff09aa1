package io.kollect.core;

/**
 * One unit of work: a target as read from one cluster. Each unit has its own leases, records,
 * export state and checkpoint.
 *
 * @param target the target
 * @param cluster the cluster's name when the target's spec names clusters, {@code null} for a
 *     target of the engine's own cluster only (its single unit is the target itself, as before
 *     targets could name clusters)
 */
record UnitKey(TargetId target, String cluster) {

  /** The unit of a target that reads the engine's own cluster only. */
  static UnitKey local(TargetId target) {
    return new UnitKey(target, null);
  }

  /**
   * The exporter's target key of this unit: {@code ns/name} for a target's only unit and for the
   * engine's own cluster (existing export state and checkpoints stay valid),
   * {@code cluster/ns/name} for another cluster (cluster names hold no {@code /}, so no two units
   * share a key).
   */
  String exportKey(String localCluster) {
    return cluster == null || cluster.equals(localCluster) ? target.toString()
        : cluster + "/" + target;
  }
}

package io.kollect.core;

import io.kollect.export.Exporter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Keeps a target's units in step with the clusters its spec names: one unit per cluster, each
 * reading its cluster's registry. A cluster joining gets a new unit (its first full pass sends
 * the cluster's records); a cluster leaving has its unit's records tombstoned at the sinks, then
 * its export state and checkpoint dropped; a unit whose cluster was re-opened moves its leases to
 * the new registry. A target naming no cluster, or only the engine's own, is its own single
 * unit, exactly as before targets could name clusters (same export key, same checkpoints).
 *
 * <p>Split by cluster ({@link Shard.By#CLUSTER}), a shard holds units only of the clusters it
 * {@linkplain Shard#reads reads}: no unit, so no connection, client, informer or watch, for a
 * cluster another shard owns. A target whose named clusters all belong to other shards fans out
 * to no unit here, and its status is Ready with zero objects (this shard's part of it is empty).
 *
 * <p>Runs under the target's monitor, on the worker that reconciles it.
 */
final class ClusterUnits {

  private final String localCluster;
  private final Shard shard;
  private final OpenClusters clusters;
  private final Exporter exporter;
  private final HandOver handOver;
  private final TargetIndex index;
  private final BooleanSupplier exportEnabled;

  /**
   * @param clusters the open clusters, or {@code null} when the engine reads its own cluster only
   *     (a target naming another cluster then reports {@code ClusterNotFound})
   */
  ClusterUnits(String localCluster, Shard shard, OpenClusters clusters, Exporter exporter,
      HandOver handOver, TargetIndex index, BooleanSupplier exportEnabled) {
    this.localCluster = localCluster;
    this.shard = shard;
    this.clusters = clusters;
    this.exporter = exporter;
    this.handOver = handOver;
    this.index = index;
    this.exportEnabled = exportEnabled;
  }

  /** The clusters the spec fans out to, in spec order; empty when it reads the engine's own only. */
  List<String> wanted(TargetSpec spec) {
    Set<String> names = new LinkedHashSet<>(spec.clusters());
    if (names.isEmpty() || (names.size() == 1 && names.contains(localCluster))) {
      return List.of();
    }
    return List.copyOf(names);
  }

  /**
   * Brings the target's units in step with its spec; returns whether it fans out (its units are
   * reconciled instead of the target itself).
   */
  boolean sync(TargetRuntime rt) {
    List<String> wanted = wanted(rt.definition.spec());
    Map<String, TargetRuntime> before = rt.units;
    if (wanted.isEmpty() && !rt.fansOut) {
      return false;
    }
    if (!wanted.isEmpty() && !rt.fansOut) {
      // The target's own unit ends; the unit of the engine's cluster, if named, carries on under
      // the same export key, so nothing is re-sent.
      retire(rt, !wanted.contains(localCluster));
    }
    Map<String, TargetRuntime> next = new LinkedHashMap<>();
    for (String cluster : wanted) {
      if (!shard.reads(localCluster, cluster)) {
        continue; // another shard owns it: no unit, no connection here
      }
      TargetRuntime unit = before.get(cluster);
      if (unit == null) {
        unit = newUnit(rt, cluster);
      }
      unit.definition = rt.definition;
      relink(unit);
      next.put(cluster, unit);
    }
    for (Map.Entry<String, TargetRuntime> e : before.entrySet()) {
      if (!next.containsKey(e.getKey())) {
        // The engine's cluster handing back to the target itself keeps its export state.
        boolean handBack = wanted.isEmpty() && e.getKey().equals(localCluster);
        drop(e.getValue(), !handBack, false);
      }
    }
    rt.units = Collections.unmodifiableMap(next);
    rt.fansOut = !wanted.isEmpty();
    if (wanted.isEmpty()) {
      rt.requestFullPass();
      return false;
    }
    return true;
  }

  private TargetRuntime newUnit(TargetRuntime rt, String cluster) {
    UnitKey key = new UnitKey(rt.id, cluster);
    ClusterConnection connection = null;
    if (!cluster.equals(localCluster)) {
      connection = clusters == null ? unknown(cluster) : clusters.acquire(cluster);
    }
    return new TargetRuntime(rt.definition, cluster, key.exportKey(localCluster), connection);
  }

  /** A cluster the engine cannot open at all (no connections configured). */
  private ClusterConnection unknown(String cluster) {
    ClusterConnection c = ClusterConnection.remote(cluster, ClusterConnections.none(), null, null,
        Runnable::run);
    c.open();
    return c;
  }

  /** Moves the unit's leases to its cluster's current registry when that was replaced. */
  private void relink(TargetRuntime unit) {
    ClusterConnection c = unit.connection;
    if (c == null || (unit.link != null && c.isCurrent(unit.link))) {
      return;
    }
    if (unit.link == null && c.failure().isPresent()) {
      return;
    }
    ClusterConnection.Link old = unit.link;
    LeasePlan.closeAll(unit);
    index.removeScope(unit.unit);
    unit.context = null;
    unit.link = c.attachCurrent();
    c.detach(old);
    unit.requestFullPass();
  }

  /**
   * Ends the target's own unit when it starts to fan out: its leases close and its records leave
   * the view; with {@code tombstones} (the engine's cluster left the spec) the sinks get DELETEs
   * for them and its export state and checkpoint go.
   */
  private void retire(TargetRuntime rt, boolean tombstones) {
    LeasePlan.closeAll(rt);
    index.removeScope(rt.unit);
    handOver.clearView(rt);
    if (tombstones && exportEnabled.getAsBoolean()) {
      exporter.removeTarget(rt.exportKey, true);
    }
    rt.records.clear();
    rt.dirty.clear();
    rt.context = null;
    HandOver.forgetExported(rt);
  }

  /**
   * Ends a unit: leases closed, records out of the view, cluster released. {@code tombstones}:
   * its cluster left the target, so the sinks get DELETEs (then its export state and checkpoint
   * go); {@code forget}: the target is removed, its export state is forgotten without any.
   */
  void drop(TargetRuntime unit, boolean tombstones, boolean forget) {
    LeasePlan.closeAll(unit);
    index.removeScope(unit.unit);
    handOver.clearView(unit);
    if (tombstones && exportEnabled.getAsBoolean()) {
      exporter.removeTarget(unit.exportKey, true);
    } else if (forget) {
      exporter.removeTarget(unit.exportKey, false);
    }
    unit.records.clear();
    unit.dirty.clear();
    unit.context = null;
    unit.removed = true;
    ClusterConnection c = unit.connection;
    if (c != null) {
      c.detach(unit.link);
      unit.link = null;
      if (clusters != null) {
        clusters.release(unit.cluster);
      }
    }
  }

  /** Ends every unit of a removed target (no tombstones: the target is gone, not its objects). */
  void dropAll(TargetRuntime rt) {
    Map<String, TargetRuntime> units = rt.units;
    rt.units = Map.of();
    for (TargetRuntime unit : units.values()) {
      drop(unit, false, true);
    }
  }

  /** Ends the leases of every unit and detaches it from its cluster (the engine closes). */
  void closeAll(TargetRuntime rt) {
    for (TargetRuntime unit : rt.units.values()) {
      LeasePlan.closeAll(unit);
      if (unit.connection != null) {
        unit.connection.detach(unit.link);
        unit.link = null;
      }
    }
  }
}

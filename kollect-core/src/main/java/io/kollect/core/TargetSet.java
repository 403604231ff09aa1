package io.kollect.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's targets by id, and the questions asked of all of them: which read with a
 * profile, as a ServiceAccount or from a cluster, whether any has work waiting, whether all have
 * a status. A target's runtime is created here when first put and kept (its records, leases and
 * export state carry over) when its spec is replaced.
 */
final class TargetSet {

  private final ConcurrentHashMap<TargetId, TargetRuntime> targets = new ConcurrentHashMap<>();
  private final TargetIndex index;

  TargetSet(TargetIndex index) {
    this.index = index;
  }

  /** Puts the target's new definition (a new runtime for a new target). */
  void put(TargetRuntime.Definition definition) {
    targets.compute(definition.spec().id(), (id, old) -> {
      if (old == null) {
        return new TargetRuntime(definition);
      }
      old.definition = definition;
      return old;
    });
  }

  /** Removes the target; returns its runtime, or {@code null} when there was none. */
  TargetRuntime remove(TargetId id) {
    return targets.remove(id);
  }

  /** The target's runtime, or {@code null}. */
  TargetRuntime get(TargetId id) {
    return targets.get(id);
  }

  Collection<TargetRuntime> all() {
    return targets.values();
  }

  Collection<TargetId> ids() {
    return targets.keySet();
  }

  /** The units reading with {@code profile}: a fanned-out target's per-cluster units, else it. */
  List<TargetRuntime> unitsUsing(String profile) {
    List<TargetRuntime> out = new ArrayList<>();
    for (TargetId id : index.referencingProfile(profile)) {
      TargetRuntime rt = targets.get(id);
      if (rt == null) {
        continue;
      }
      Map<String, TargetRuntime> units = rt.units;
      if (units.isEmpty()) {
        out.add(rt);
      } else {
        out.addAll(units.values());
      }
    }
    return out;
  }

  /** The targets read as {@code subject} (the tenant boundary's ServiceAccount). */
  List<TargetId> readAs(TenantBoundary.ServiceAccountRef subject, TenantBoundary boundary) {
    List<TargetId> out = new ArrayList<>();
    for (TargetRuntime rt : targets.values()) {
      if (subject.equals(boundary.subjectOf(rt.spec()))) {
        out.add(rt.id);
      }
    }
    return out;
  }

  /** The targets with a unit in {@code cluster}. */
  List<TargetId> reading(String cluster) {
    List<TargetId> out = new ArrayList<>();
    for (TargetRuntime rt : targets.values()) {
      if (rt.units.containsKey(cluster)) {
        out.add(rt.id);
      }
    }
    return out;
  }

  /**
   * Whether no target has a changed object waiting: a listener marks the key before it queues the
   * target, so a dirty key is work even in the instant the queue looks idle.
   */
  boolean nothingDirty() {
    for (TargetRuntime rt : targets.values()) {
      if (rt.anyDirty()) {
        return false;
      }
    }
    return true;
  }

  /** Whether every target has been reconciled at least once (has a status). */
  boolean allReconciled() {
    for (TargetRuntime rt : targets.values()) {
      if (rt.status == null) {
        return false;
      }
    }
    return true;
  }

  /** How many reconciles of the target ran (for tests). */
  long reconcileCount(TargetId id) {
    TargetRuntime rt = targets.get(id);
    return rt == null ? 0 : rt.reconciles.get();
  }

  /** How many objects the target's reconciles actually extracted (memo misses; for tests). */
  long extractionCount(TargetId id) {
    TargetRuntime rt = targets.get(id);
    if (rt == null) {
      return 0;
    }
    synchronized (rt) {
      return rt.records.extractions();
    }
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a replaced informer still owes the leases it served. Until its successor became active,
 * the successor's list and watch were not announced to those leases: every change up to the
 * version the successor's cache had reached then ({@link InformerHandle#activeFrom}) is the
 * predecessor's to hand out, later ones the successor's. The predecessor has paid when its cache
 * holds each such state (or a newer one) and no object the successor knows was deleted by then,
 * and (the caller's part, {@link InformerHandle#handedOutThrough}) it has handed out every change
 * its cache had taken when that was found.
 *
 * <p>Computed from the two caches, not from the time since the switch: a predecessor whose watch
 * or handler thread lags (a starved machine, a watch re-opening) is waited for, and one that
 * never catches up (a dead watch) has its debt announced on its behalf from the successor's
 * cache ({@link #owed}). O(objects of the predecessor's scope), on the planner thread, only
 * while a replaced informer drains.
 *
 * @param owed the changes its leases have not been told: a successor's state the predecessor's
 *     cache has not reached ({@code ADDED} or {@code UPDATED}), or an object the predecessor
 *     still holds that was gone from the successor by then ({@code DELETED})
 */
record DrainDebt(List<Owed> owed) {

  /**
   * One change the predecessor's leases have not been told.
   *
   * @param successorScope the scope of the active informer that holds the object's namespace
   * @param state the successor's state, or the predecessor's last one for {@code DELETED}
   * @param previous the predecessor's state of an {@code UPDATED} ({@code null} otherwise)
   */
  record Owed(String successorScope, ResourceEvent.Kind kind, GenericKubernetesResource state,
      GenericKubernetesResource previous) {}

  /** A cache that took over: its scope, its store and the version it had reached when it did. */
  record Successor(String scope, TrimmingItemStore store, String activeFrom) {}

  /** Whether the predecessor's cache owes nothing. */
  boolean paid() {
    return owed.isEmpty();
  }

  /**
   * What {@code predecessor} (serving {@code scope}, {@link ScopePlanner#ALL} or a namespace)
   * owes, given the active informers by scope, up to {@code most} changes (1 tells whether it
   * owes anything). A namespace no active informer covers any more is owed nothing: no lease
   * reads it through this type now.
   */
  static DrainDebt of(TrimmingItemStore predecessor, String scope, Map<String, Successor> active,
      int most) {
    List<Owed> owed = new ArrayList<>();
    for (Map.Entry<String, Successor> e : active.entrySet()) {
      String successorScope = e.getKey();
      Successor s = e.getValue();
      if (!overlaps(scope, successorScope) || s.activeFrom() == null) {
        continue;
      }
      Iterable<GenericKubernetesResource> listed = ScopePlanner.ALL.equals(scope)
          ? s.store().values()::iterator : s.store().objectsIn(scope);
      for (GenericKubernetesResource obj : listed) {
        if (owed.size() >= most) {
          return new DrainDebt(owed);
        }
        String version = obj.getMetadata().getResourceVersion();
        if (Handover.newer(version, s.activeFrom())) {
          continue; // the successor's own change: it announces it
        }
        GenericKubernetesResource held = predecessor.get(Cache.metaNamespaceKeyFunc(obj));
        if (held == null) {
          owed.add(new Owed(successorScope, ResourceEvent.Kind.ADDED, obj, null));
        } else if (Handover.newer(version, held.getMetadata().getResourceVersion())) {
          owed.add(new Owed(successorScope, ResourceEvent.Kind.UPDATED, obj, held));
        }
      }
    }
    for (GenericKubernetesResource held : (Iterable<GenericKubernetesResource>)
        predecessor.values()::iterator) {
      if (owed.size() >= most) {
        break;
      }
      Successor s = InformerSet.covering(active, held.getMetadata().getNamespace());
      if (s == null) {
        continue;
      }
      if (s.activeFrom() != null
          && !Handover.newer(held.getMetadata().getResourceVersion(), s.activeFrom())
          && s.store().get(Cache.metaNamespaceKeyFunc(held)) == null) {
        // the successor's cache had every object that existed when it took over, and it does
        // not have this one: deleted by then, or since (then its own watch announced it, and
        // this one's will)
        owed.add(new Owed(s.scope(), ResourceEvent.Kind.DELETED, held, null));
      }
    }
    return new DrainDebt(owed);
  }

  private static boolean overlaps(String a, String b) {
    return ScopePlanner.ALL.equals(a) || ScopePlanner.ALL.equals(b) || a.equals(b);
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the leases must hear when the active informers switch (scope or projection change): while
 * an informer was pending, the active one it replaces spoke for the leases it covered, and the
 * pending one's own events for those leases were held back (its initial list would re-announce
 * every object). At the switch, each object the replaced informer held is compared with what its
 * successor holds: a different resourceVersion is an {@code UPDATED}, an object the successor does
 * not hold a {@code DELETED}, one only the successor holds an {@code ADDED}. Objects that stay at
 * the same version produce nothing, so nothing is announced twice and nothing that stays is ever
 * deleted.
 *
 * <p>Cost: O(objects of the replaced informers), once per switch (planner thread), never per event.
 * A change that both informers handle at the very instant of the switch may be announced twice
 * (the same resourceVersion as {@code UPDATED}); none is lost.
 */
final class SwitchOver {

  private SwitchOver() {}

  static void reconcile(InformerSet.Switch<InformerHandle> change, EventRouter router) {
    for (InformerHandle old : change.retired()) {
      Set<String> seen = new HashSet<>();
      for (GenericKubernetesResource before : old.store.values().toList()) {
        String ns = before.getMetadata().getNamespace();
        InformerHandle next = InformerSet.covering(change.after(), ns);
        if (next == null) {
          // the namespace is no longer read by anyone (its lease left): nothing to tell
          continue;
        }
        String key = Cache.metaNamespaceKeyFunc(before);
        seen.add(key);
        GenericKubernetesResource now = next.store.get(key);
        if (now == null) {
          router.route(ResourceEvent.Kind.DELETED, before, null, l -> l.coveredBy(old.projection()));
        } else if (!Objects.equals(now.getMetadata().getResourceVersion(),
            before.getMetadata().getResourceVersion())) {
          router.route(ResourceEvent.Kind.UPDATED, now, before, l -> l.coveredBy(old.projection()));
        }
      }
      for (InformerHandle next : successors(change.after(), old)) {
        for (GenericKubernetesResource now : objectsOf(next, old)) {
          if (!seen.contains(Cache.metaNamespaceKeyFunc(now))) {
            router.route(ResourceEvent.Kind.ADDED, now, null, l -> l.coveredBy(old.projection()));
          }
        }
      }
    }
  }

  /** The new informers that took over (part of) {@code old}'s scope. */
  private static List<InformerHandle> successors(Map<String, InformerHandle> after,
      InformerHandle old) {
    if (ScopePlanner.ALL.equals(old.scope())) {
      return List.copyOf(after.values());
    }
    InformerHandle next = InformerSet.covering(after, old.scope());
    return next == null ? List.of() : List.of(next);
  }

  /** What {@code next} holds within {@code old}'s scope. */
  private static List<GenericKubernetesResource> objectsOf(InformerHandle next, InformerHandle old) {
    if (ScopePlanner.ALL.equals(old.scope())) {
      return next.store.values().toList();
    }
    return next.objectsIn(old.scope());
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Routes one change of one object to the leases whose scope holds it, as that lease sees it: an
 * object whose labels move it out of a lease's selector is {@code DELETED} for that lease, one
 * that moves in is {@code ADDED}.
 *
 * <p>Leases are indexed by namespace, so an event costs O(leases of its namespace + leases of all
 * namespaces), not O(leases): a thousand tenant leases behind one cluster-wide informer do not
 * make every event a thousand checks. The index is an immutable snapshot replaced whenever leases
 * change (planner or caller thread); {@link #route} runs on informer threads.
 */
final class EventRouter {

  private record Routes(Map<String, List<LeaseHandle>> byNamespace, List<LeaseHandle> anyNamespace,
      List<LeaseHandle> all) {}

  private final ResourceType type;
  private volatile Routes routes = new Routes(Map.of(), List.of(), List.of());

  EventRouter(ResourceType type) {
    this.type = type;
  }

  /** Replaces the leases routed to. */
  synchronized void leases(Collection<LeaseHandle> leases) {
    Map<String, List<LeaseHandle>> byNamespace = new HashMap<>();
    List<LeaseHandle> any = new ArrayList<>();
    for (LeaseHandle l : leases) {
      if (l.request().namespaces().isEmpty()) {
        any.add(l);
      } else {
        for (String ns : l.request().namespaces()) {
          byNamespace.computeIfAbsent(ns, k -> new ArrayList<>()).add(l);
        }
      }
    }
    byNamespace.replaceAll((k, v) -> List.copyOf(v));
    routes = new Routes(Map.copyOf(byNamespace), List.copyOf(any), List.copyOf(leases));
  }

  /**
   * Delivers an {@code ADDED} a successor informer hands out for an object its draining
   * predecessor holds as {@code known}: most often an item of the successor's first list, which
   * fabric8 may dispatch after the successor took over. The leases the predecessor told of the
   * object ({@code toldByPredecessor}) already know it, so for them it is no first sight: an
   * update when the listed state is not the one they hold (the predecessor's watch has not
   * handed that version out yet; when it does, the {@link Handover} record suppresses it), or
   * nothing when the predecessor holds the same or a newer state. Other leases hear the add.
   */
  void routeAddedKnown(GenericKubernetesResource cached, GenericKubernetesResource known,
      Predicate<LeaseHandle> toldByPredecessor, Predicate<LeaseHandle> eligible,
      Handover handover) {
    String listed = cached.getMetadata().getResourceVersion();
    String held = known.getMetadata().getResourceVersion();
    if (!java.util.Objects.equals(listed, held) && !Handover.newer(held, listed)) {
      route(ResourceEvent.Kind.UPDATED, cached, known, eligible.and(toldByPredecessor), handover);
    }
    route(ResourceEvent.Kind.ADDED, cached, null, eligible.and(toldByPredecessor.negate()),
        handover);
  }

  /**
   * Delivers a change of one object to the eligible leases whose scope holds it now ({@code kind})
   * or held it before ({@code previous}, the old state of an update: then {@code DELETED}).
   *
   * @param cached what the event carries: the cached (projected) state, or the last known one
   *     for {@code DELETED}
   * @param eligible whether the source of the change speaks for a lease (see
   *     {@link InformerSet#speaksFor})
   * @param handover during a switch, what was delivered already ({@code null}: no switch)
   */
  void route(ResourceEvent.Kind kind, GenericKubernetesResource cached,
      GenericKubernetesResource previous, Predicate<LeaseHandle> eligible, Handover handover) {
    ObjectMeta m = cached.getMetadata();
    ResourceEvent event = new ResourceEvent(kind, type, m.getNamespace(), m.getName(), cached);
    ResourceEvent left = null;
    String key = m.getNamespace() == null ? m.getName() : m.getNamespace() + "/" + m.getName();
    Routes r = routes;
    List<LeaseHandle> scoped = m.getNamespace() == null ? r.all()
        : r.byNamespace().getOrDefault(m.getNamespace(), List.of());
    for (List<LeaseHandle> group : m.getNamespace() == null ? List.of(scoped)
        : List.of(r.anyNamespace(), scoped)) {
      for (LeaseHandle l : group) {
        boolean now = l.accepts(cached);
        boolean before = previous != null && l.accepts(previous);
        if ((!now && !before) || !eligible.test(l)) {
          continue;
        }
        ResourceEvent out;
        if (now) {
          // an update that brings the object into the selector is its first sight for this lease
          out = kind == ResourceEvent.Kind.UPDATED && previous != null && !before
              ? new ResourceEvent(ResourceEvent.Kind.ADDED, type, m.getNamespace(), m.getName(), cached)
              : event;
        } else {
          if (left == null) {
            left = new ResourceEvent(ResourceEvent.Kind.DELETED, type, m.getNamespace(),
                m.getName(), cached);
          }
          out = left;
        }
        if (handover == null || handover.first(l, key, out)) {
          l.deliver(out);
        }
      }
    }
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.kollect.informers.ApiDiscovery.TypeInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Answers a lease's reads ({@link InformerLease#list()}, {@link InformerLease#get}) from the
 * caches of one type's informers: only what the lease's scope, selector and projection accept,
 * and during a switch amended by what the lease was already told ({@link Handover}), so a read
 * never goes back behind an event. Reads run on any thread; they only read the informer set's
 * immutable snapshots and the caches.
 */
final class LeaseReader {

  private final InformerSet<InformerHandle> informers;

  LeaseReader(InformerSet<InformerHandle> informers) {
    this.informers = informers;
  }

  /**
   * The newest cached state of one object in the lease's scope, from the informer that speaks for
   * the lease: the active one, or while a scope or projection is still listing for the first
   * time, the one that is listing. {@code null} when not cached (or not in scope).
   *
   * @param switching the switch in progress, {@code null} when none
   */
  GenericKubernetesResource get(LeaseHandle l, String namespace, String name,
      Handover switching) {
    InformerHandle h = informers.authority(namespace, l::coveredBy);
    if (h == null || h.stopped()) {
      return null;
    }
    String key = namespace == null ? name : namespace + "/" + name;
    GenericKubernetesResource obj = h.store.get(key);
    if (switching != null) {
      // the draining predecessor may have announced a change this cache has not received yet
      obj = switching.current(l, key, obj);
    }
    return obj != null && l.accepts(obj) ? obj : null;
  }

  /**
   * Every object of the lease's scope the active informers hold (never one still listing its first
   * time).
   *
   * @param info the type as discovered ({@code null} before discovery)
   * @param switching the switch in progress, {@code null} when none
   */
  List<GenericKubernetesResource> read(LeaseHandle l, TypeInfo info, Handover switching) {
    List<GenericKubernetesResource> cached = readCaches(l, info);
    return switching == null ? cached : newestTold(l, cached, switching);
  }

  /**
   * During a switch, what the caches hold amended by what the lease was told of since: a change
   * announced by the draining predecessor may not have reached the successor's cache yet, and
   * the successor's own announcement of it is suppressed as already told.
   */
  private List<GenericKubernetesResource> newestTold(LeaseHandle l,
      List<GenericKubernetesResource> cached, Handover switching) {
    Set<String> told = switching.toldKeys(l);
    if (told.isEmpty()) {
      return cached;
    }
    List<GenericKubernetesResource> out = new ArrayList<>(cached.size());
    Set<String> seen = new HashSet<>();
    for (GenericKubernetesResource obj : cached) {
      String key = Cache.metaNamespaceKeyFunc(obj);
      seen.add(key);
      GenericKubernetesResource current = told.contains(key) ? switching.current(l, key, obj) : obj;
      if (current != null && l.accepts(current)) {
        out.add(current);
      }
    }
    for (String key : told) {
      if (seen.contains(key)) {
        continue;
      }
      int slash = key.indexOf('/');
      InformerHandle h = informers.authority(slash < 0 ? null : key.substring(0, slash),
          l::coveredBy);
      if (h == null || !informers.active().containsValue(h)) {
        continue; // read() never answers from an informer still listing its first time
      }
      GenericKubernetesResource current = switching.current(l, key, null);
      if (current != null && l.accepts(current)) {
        out.add(current);
      }
    }
    return out;
  }

  private List<GenericKubernetesResource> readCaches(LeaseHandle l, TypeInfo info) {
    List<GenericKubernetesResource> out = new ArrayList<>();
    Set<String> namespaces = l.request().namespaces();
    for (Map.Entry<String, InformerHandle> e : informers.active().entrySet()) {
      InformerHandle h = e.getValue();
      if (!LeaseStatuses.relevant(e.getKey(), l.request()) || !l.coveredBy(h.projection())) {
        // a wider lease waits for the informer that keeps its paths: no half objects
        continue;
      }
      if (ScopePlanner.ALL.equals(e.getKey()) && !namespaces.isEmpty() && info != null
          && info.namespaced()) {
        // a cluster-wide informer serving namespace leases: read through its namespace index
        for (String ns : namespaces) {
          for (GenericKubernetesResource obj : h.objectsIn(ns)) {
            if (l.accepts(obj)) {
              out.add(obj);
            }
          }
        }
      } else {
        h.store.values().filter(l::accepts).forEach(out::add);
      }
    }
    return out;
  }
}

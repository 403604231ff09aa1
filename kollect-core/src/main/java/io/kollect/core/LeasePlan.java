package io.kollect.core;

import io.kollect.extract.CompiledProfile;
import io.kollect.extract.GroupVersionKind;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.ResourceType;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Holds one lease per resource type of the target's profile in its resolved scope, and keeps the
 * {@link TargetIndex} in step. A changed request opens the new lease before the old one is closed
 * (make-before-break), so the shared informer of an unchanged type is never stopped in between.
 */
final class LeasePlan {

  private final BiFunction<LeaseRequest, LeaseListener, InformerLease> leases;
  private final TargetIndex index;
  private final RequestedProjections projections;

  LeasePlan(BiFunction<LeaseRequest, LeaseListener, InformerLease> leases, TargetIndex index,
      RequestedProjections projections) {
    this.leases = leases;
    this.index = index;
    this.projections = projections;
  }

  /** The profile's resource types, in profile order. */
  static Map<ResourceType, GroupVersionKind> types(CompiledProfile compiled) {
    Map<ResourceType, GroupVersionKind> types = new LinkedHashMap<>();
    for (GroupVersionKind gvk : compiled.resources()) {
      types.put(new ResourceType(gvk.group(), gvk.version(), gvk.kind()), gvk);
    }
    return types;
  }

  /**
   * Leases every type of {@code compiled} in {@code namespaces} (none when the scope reads
   * nothing) and indexes the target's scope.
   */
  void apply(TargetRuntime rt, CompiledProfile compiled, Map<ResourceType, GroupVersionKind> types,
      NamespaceScope.NamespaceSet namespaces, LeaseListener listener) {
    TargetSpec spec = rt.definition.spec();
    boolean readsNothing = namespaces.none();
    if (readsNothing) {
      // Only the namespace list (if a selector is used) can change that.
      index.putScope(rt.unit, rt.namespaceLease != null ? Set.of(NamespaceScope.NAMESPACE)
          : Set.of(), Set.of());
    } else {
      Set<ResourceType> indexed = new LinkedHashSet<>(types.keySet());
      if (rt.namespaceLease != null) {
        indexed.add(NamespaceScope.NAMESPACE);
      }
      index.putScope(rt.unit, indexed, namespaces.names());
    }
    for (Iterator<Map.Entry<ResourceType, InformerLease>> it = rt.leases.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<ResourceType, InformerLease> e = it.next();
      if (readsNothing || !types.containsKey(e.getKey())) {
        e.getValue().close();
        it.remove();
      }
    }
    if (readsNothing) {
      return;
    }
    for (Map.Entry<ResourceType, GroupVersionKind> e : types.entrySet()) {
      LeaseRequest request = new LeaseRequest(e.getKey(), namespaces.names(),
          spec.scope().labelSelector(), Set.copyOf(spec.scope().names()),
          compiled.keepPaths(e.getValue()));
      InformerLease existing = rt.leases.get(e.getKey());
      if (existing == null || !existing.request().equals(request)) {
        rt.leases.put(e.getKey(),
            projections.track(rt.leaseSource(leases).apply(request, listener)));
        if (existing != null) {
          existing.close();
        }
      }
    }
  }

  /** Releases the leases of the profile's types (not the namespace lease). */
  static void closeTypeLeases(TargetRuntime rt) {
    for (InformerLease lease : rt.leases.values()) {
      lease.close();
    }
    rt.leases.clear();
  }

  /** Releases every lease of the target. */
  static void closeAll(TargetRuntime rt) {
    closeTypeLeases(rt);
    if (rt.namespaceLease != null) {
      rt.namespaceLease.close();
      rt.namespaceLease = null;
    }
  }
}

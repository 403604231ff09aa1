package io.kollect.core;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceType;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * Resolves which namespaces a target reads: every namespace, an explicit list, or a namespace
 * selector evaluated against a lease on {@code v1/Namespace} (intersected with the list when both
 * are given), always within the operator-wide namespace filter. Owns the target's namespace lease.
 */
final class NamespaceScope {

  static final ResourceType NAMESPACE = new ResourceType("", "v1", "Namespace");

  /** The namespaces a target reads: every namespace, or exactly {@code names} (maybe none). */
  record NamespaceSet(boolean all, Set<String> names) {
    static final NamespaceSet ALL = new NamespaceSet(true, Set.of());

    boolean none() {
      return !all && names.isEmpty();
    }
  }

  private final BiFunction<LeaseRequest, LeaseListener, InformerLease> leases;
  private final TargetIndex index;
  private final Predicate<String> namespaceFilter;

  NamespaceScope(BiFunction<LeaseRequest, LeaseListener, InformerLease> leases, TargetIndex index,
      Predicate<String> namespaceFilter) {
    this.leases = leases;
    this.index = index;
    this.namespaceFilter = namespaceFilter;
  }

  /**
   * The target's namespaces; {@code null} while the namespace list it needs is not synced yet.
   * Skipped parts of the namespace lease are reported to {@code status}.
   */
  NamespaceSet resolve(TargetRuntime rt, LeaseListener listener, StatusBuilder status) {
    TargetRuntime.Definition definition = rt.definition;
    TargetScope scope = definition.spec().scope();
    if (scope.namespaceSelector() == null) {
      if (rt.namespaceLease != null) {
        rt.namespaceLease.close();
        rt.namespaceLease = null;
      }
      if (scope.namespaces().isEmpty()) {
        return NamespaceSet.ALL;
      }
      return new NamespaceSet(false, filtered(scope.namespaces()));
    }
    // All namespaces, matched here: a namespace whose labels stop matching must still be seen.
    LeaseRequest request = new LeaseRequest(NAMESPACE, Set.of(), null, Set.of(), List.of());
    if (rt.namespaceLease == null || !rt.namespaceLease.request().equals(request)) {
      InformerLease old = rt.namespaceLease;
      rt.namespaceLease = rt.leaseSource(leases).apply(request, listener);
      if (old != null) {
        old.close();
      }
    }
    if (!index.covers(rt.unit, NAMESPACE, null)) {
      // Until the scope is set, the index would drop the namespace lease's events.
      index.putScope(rt.unit, Set.of(NAMESPACE), Set.of());
    }
    LeaseStatus ls = rt.namespaceLease.status();
    for (LeaseStatus.Skipped s : ls.skipped()) {
      status.skipped(new SkippedScope(NAMESPACE.toString(), s.namespace(), s.reason(),
          s.message()));
    }
    if (!SyncGate.settled(ls)) {
      return null;
    }
    Set<String> selected = new TreeSet<>();
    for (GenericKubernetesResource ns : rt.namespaceLease.list()) {
      if (definition.namespaceLabels().test(ns.getMetadata().getLabels())) {
        selected.add(ns.getMetadata().getName());
      }
    }
    if (!scope.namespaces().isEmpty()) {
      selected.retainAll(scope.namespaces());
    }
    return new NamespaceSet(false, filtered(selected));
  }

  /** Whether the operator may read objects of {@code namespace} at all. */
  boolean allowed(String namespace) {
    return namespaceFilter.test(namespace);
  }

  /** Whether the namespace list a selector needs is forbidden (the namespaces are unknown). */
  static boolean namespaceListForbidden(TargetRuntime rt) {
    return rt.namespaceLease != null && rt.namespaceLease.status().skipped().stream()
        .anyMatch(s -> LeaseStatus.Skipped.FORBIDDEN.equals(s.reason()));
  }

  private Set<String> filtered(Iterable<String> namespaces) {
    Set<String> out = new TreeSet<>();
    for (String ns : namespaces) {
      if (namespaceFilter.test(ns)) {
        out.add(ns);
      }
    }
    return out;
  }
}

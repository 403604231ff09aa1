package io.kollect.informers;

import io.kollect.informers.ApiDiscovery.TypeInfo;
import io.kollect.informers.LeaseStatus.Skipped;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The granularity rule, as a pure function of the leases, discovery and the access answers: which
 * informer scopes a served type needs, and the projection their caches keep.
 *
 * <p>One cluster-wide informer ({@link #ALL}) when the type is cluster-scoped, when any lease
 * reads all namespaces, or when the union of leased namespaces is larger than the cluster-wide
 * threshold, provided cluster-wide list and watch are allowed; otherwise one informer per
 * allowed namespace. So many namespace-scoped tenant leases cost O(types) watches, and a few
 * namespaces do not pull every namespace's objects into memory.
 */
final class ScopePlanner {

  static final String ALL = "*";

  /** The answers to the questions planning asks the API server; may throw on API failure. */
  interface Access {
    /** May the client list and watch the type in {@code namespace} ({@code null}: cluster-wide)? */
    AccessReview.Decision listWatch(String namespace);

    /** Every namespace, when the client may list them. */
    Optional<? extends Collection<String>> namespaceNames();
  }

  /**
   * What should run for one served type.
   *
   * @param scopes {@link #ALL} or namespaces, in a stable order
   * @param projection what every informer of the type keeps of each object
   * @param skipped what cannot be read, and why
   */
  record Plan(Set<String> scopes, ObjectProjection projection, List<Skipped> skipped) {
    Plan {
      scopes = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(scopes));
      skipped = List.copyOf(skipped);
    }
  }

  private ScopePlanner() {}

  /**
   * Plans a served type ({@code info.served()}) for {@code leases} (not empty).
   *
   * @param clusterWideThreshold the largest union of leased namespaces still served by
   *     per-namespace informers
   */
  static Plan plan(Collection<LeaseRequest> leases, TypeInfo info, Access access,
      int clusterWideThreshold) {
    List<Skipped> skip = new ArrayList<>();
    Set<String> scopes = new LinkedHashSet<>();
    Set<String> union = new TreeSet<>();
    boolean anyAll = false;
    for (LeaseRequest l : leases) {
      anyAll |= l.namespaces().isEmpty();
      union.addAll(l.namespaces());
    }
    boolean clusterWide = !info.namespaced() || anyAll || union.size() > clusterWideThreshold;
    if (clusterWide) {
      AccessReview.Decision cluster = access.listWatch(null);
      if (cluster.allowed()) {
        scopes.add(ALL);
      } else if (!info.namespaced()) {
        skip.add(new Skipped(ALL, Skipped.FORBIDDEN, cluster.detail()));
      } else if (anyAll) {
        // per namespace: the ones leases name explicitly, plus every namespace if we may list them
        Set<String> candidates = new TreeSet<>(union);
        var namespaces = access.namespaceNames();
        if (namespaces.isPresent()) {
          candidates.addAll(namespaces.get());
        } else {
          skip.add(new Skipped(ALL, Skipped.FORBIDDEN, cluster.detail()
              + ", and namespaces cannot be listed to find readable ones"));
        }
        perNamespace(candidates, access, scopes, skip);
      } else {
        // many namespaces but cluster-wide is forbidden: one informer per namespace after all
        perNamespace(union, access, scopes, skip);
      }
    } else {
      perNamespace(union, access, scopes, skip);
    }
    return new Plan(scopes, projectionFor(leases), skip);
  }

  private static void perNamespace(Iterable<String> namespaces, Access access, Set<String> scopes,
      List<Skipped> skip) {
    for (String ns : namespaces) {
      AccessReview.Decision d = access.listWatch(ns);
      if (d.allowed()) {
        scopes.add(ns);
      } else {
        skip.add(new Skipped(ns, Skipped.FORBIDDEN, d.detail()));
      }
    }
  }

  /** The union of the leases' paths; the whole object when any lease reads it whole. */
  static ObjectProjection projectionFor(Collection<LeaseRequest> leases) {
    List<List<String>> paths = new ArrayList<>();
    for (LeaseRequest l : leases) {
      if (l.keepPaths() == null) {
        return ObjectProjection.full();
      }
      paths.addAll(l.keepPaths());
    }
    return ObjectProjection.of(paths);
  }
}

package io.kollect.informers;

import io.kollect.informers.ApiDiscovery.TypeInfo;
import io.kollect.informers.LeaseStatus.Skipped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What a lease reports, computed from what the type's informers are doing; a pure function. */
final class LeaseStatuses {

  private LeaseStatuses() {}

  /**
   * The status of a lease.
   *
   * @param planned whether a plan has taken the lease into account (before that it cannot be synced)
   * @param info the type as discovery last resolved it ({@code null}: not yet)
   * @param coveredBy whether an informer's projection keeps every path the lease reads
   */
  static LeaseStatus of(ResourceType type, LeaseRequest lease, boolean planned, TypeInfo info,
      long projectionVersion, Map<String, ? extends InformerSet.Member> active,
      Map<String, ? extends InformerSet.Member> pending, List<Skipped> skipped,
      java.util.function.Predicate<ObjectProjection> coveredBy, Instant now) {
    if (!planned) {
      return new LeaseStatus(type, info == null || info.served(), false, List.of(),
          projectionVersion, List.of());
    }
    if (info != null && !info.served()) {
      // nothing can be read, and waiting would block readiness forever: count as synced
      return new LeaseStatus(type, false, true, skipped, projectionVersion, List.of());
    }
    Set<String> scopes = new LinkedHashSet<>(active.keySet());
    scopes.addAll(pending.keySet());
    boolean synced = true;
    List<LeaseStatus.Stalled> stalled = new ArrayList<>();
    for (String scope : scopes) {
      if (!relevant(scope, lease)) {
        continue;
      }
      InformerSet.Member a = active.get(scope);
      // reads come from the active informer: it must have listed, and keep what the lease reads
      synced &= a != null && a.synced() && coveredBy.test(a.projection());
      InformerSet.Member watching = pending.containsKey(scope) ? pending.get(scope) : a;
      WatchLiveness.Stall stall = watching == null ? null : watching.stall(now);
      if (stall != null) {
        stalled.add(new LeaseStatus.Stalled(scope, stall.silentSince(), stall.reason()));
      }
    }
    List<Skipped> mine = skipped.stream().filter(s -> relevantSkip(s, lease, info)).toList();
    return new LeaseStatus(type, true, synced, mine, projectionVersion, stalled);
  }

  /**
   * A cluster-wide "forbidden" concerns only leases that read all namespaces (or cluster-scoped
   * types); a lease limited to namespaces sees the entries of its own namespaces.
   */
  private static boolean relevantSkip(Skipped s, LeaseRequest l, TypeInfo i) {
    if (ScopePlanner.ALL.equals(s.namespace())) {
      return Skipped.NOT_SERVED.equals(s.reason()) || l.namespaces().isEmpty()
          || (i != null && !i.namespaced());
    }
    return relevant(s.namespace(), l);
  }

  /** Whether an informer over {@code scope} serves part of the lease. */
  static boolean relevant(String scope, LeaseRequest l) {
    Set<String> namespaces = l.namespaces();
    return ScopePlanner.ALL.equals(scope) || namespaces.isEmpty() || namespaces.contains(scope);
  }
}

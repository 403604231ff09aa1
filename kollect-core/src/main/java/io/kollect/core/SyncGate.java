package io.kollect.core;

import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides whether a full pass may conclude anything from the caches: every lease synced (or its
 * type not served), and every type's access under the tenant boundary resolvable. Exporting a
 * partial set would tombstone objects not listed yet, so a full pass stops here while any type is
 * not settled. Also reports what the leases say regardless: skipped scopes and silent watches.
 */
final class SyncGate {

  /**
   * The gate's verdict.
   *
   * @param unsynced the types that are not settled yet (empty: the gate is open)
   * @param access what the target may read of each type (looked up lazily per namespace)
   * @param retrySoon whether a type waits for discovery (ask again shortly)
   */
  record Verdict(List<String> unsynced, Map<ResourceType, TenantBoundary.TypeAccess> access,
      boolean retrySoon) {
    boolean open() {
      return unsynced.isEmpty();
    }
  }

  private final TenantBoundary boundary;
  private final LeaseSignals signals;

  SyncGate(TenantBoundary boundary, LeaseSignals signals) {
    this.boundary = boundary;
    this.signals = signals;
  }

  /**
   * Whether a lease's view is complete enough to conclude from: synced, or its type is not served
   * (nothing to wait for).
   */
  static boolean settled(LeaseStatus ls) {
    return ls.synced() || !ls.served();
  }

  Verdict check(Map<ResourceType, InformerLease> leases, TenantBoundary.ServiceAccountRef subject,
      boolean allNamespaces, StatusBuilder status) {
    List<String> unsynced = new ArrayList<>();
    Map<ResourceType, TenantBoundary.TypeAccess> access = new HashMap<>();
    boolean retrySoon = false;
    for (Map.Entry<ResourceType, InformerLease> e : leases.entrySet()) {
      LeaseStatus ls = e.getValue().status();
      for (LeaseStatus.Skipped s : ls.skipped()) {
        status.skipped(new SkippedScope(e.getKey().toString(), s.namespace(), s.reason(),
            s.message()));
      }
      for (LeaseSignals.SilentWatch w : signals.stalledWatches(ls)) {
        status.degraded(StatusBuilder.REASON_WATCH_STALLED, "the watch of " + e.getKey()
            + ("*".equals(w.namespace()) || w.namespace() == null ? ""
                : " in namespace " + w.namespace())
            + " has been silent since " + w.silentSince() + " (" + w.reason() + ")");
      }
      TenantBoundary.TypeAccess typeAccess = boundary.access(subject, e.getKey(), allNamespaces);
      access.put(e.getKey(), typeAccess);
      if (!settled(ls)) {
        unsynced.add(e.getKey().toString());
      } else if (ls.served() && !typeAccess.resolved()) {
        // Served, but discovery has not shown its resource name to us yet: ask again shortly.
        unsynced.add(e.getKey().toString());
        retrySoon = true;
      }
    }
    return new Verdict(unsynced, access, retrySoon);
  }
}

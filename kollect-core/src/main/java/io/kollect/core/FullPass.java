package io.kollect.core;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.RecordContext;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The level-based pass: from the current profile, sinks and informer caches to the target's whole
 * record set. O(objects in scope), so it runs only when something other than one object changed:
 * start, a spec, profile, sink or lease status change, an access answer, export turned on, a
 * failed pass, and the long periodic resync. Objects whose {@code resourceVersion} and projection
 * did not change are not extracted again.
 *
 * <p>It returns what it changed and decided ({@link Result}) and hands nothing over itself: the
 * {@link TargetReconciler} gives the changes to {@link HandOver}, exactly as it does with a
 * {@link DeltaPass}'s.
 */
final class FullPass {

  /**
   * What a full pass gives.
   *
   * @param context what delta passes reuse until the next full pass (its sinks, whether this
   *     instance exports, and the status facts found)
   * @param changes what changed in the target's records, to hand over; {@code null} when the
   *     pass stopped early (no profile, scope or sync yet) and nothing is to be handed over
   * @param retrySoon whether the pass waits for discovery and should run again shortly
   */
  record Result(PassContext context, RecordChanges changes, boolean retrySoon) {}

  /**
   * What full passes read with, shared by the engine's own cluster's pass and the other
   * clusters' (which differ only in the tenant boundary).
   *
   * @param cluster the engine's own cluster's name
   * @param inputs the engine's profiles, sinks and export flag
   * @param hostInventorySink the host's inventory sink, or {@code null}
   * @param namespaces resolves a target's namespaces
   * @param leasePlan takes and releases the target's leases
   * @param extractor turns objects into entries (memoised)
   * @param projections the projection versions requested per type
   * @param signals the projection and liveness signals of a lease
   * @param index where the target's scope is indexed for event routing
   */
  record Reading(String cluster, TargetReconciler.Inputs inputs, String hostInventorySink,
      NamespaceScope namespaces, LeasePlan leasePlan, RecordExtractor extractor,
      RequestedProjections projections, LeaseSignals signals, TargetIndex index) {}

  private final Reading reading;
  private final TargetReconciler.Inputs inputs;
  private final NamespaceScope namespaces;
  private final SyncGate gate;
  private final TenantBoundary boundary;

  /** @param boundary what targets may read (off for other clusters: the credential is one) */
  FullPass(Reading reading, TenantBoundary boundary) {
    this.reading = reading;
    this.inputs = reading.inputs();
    this.namespaces = reading.namespaces();
    this.gate = new SyncGate(boundary, reading.signals());
    this.boundary = boundary;
  }

  Result run(TargetRuntime rt, StatusBuilder status, LeaseListener listener) {
    TargetSpec spec = rt.definition.spec();
    ProfileVersion profile = inputs.profile(spec.profileRef());
    Set<String> sinks = sinks(spec, status);
    if (profile == null || profile.compiled() == null) {
      return withoutProfile(rt, spec, profile, sinks, status);
    }
    if (profile.error() != null) {
      status.degraded(StatusBuilder.REASON_INVALID_PROFILE, profile.error()
          + " (still exporting with the last valid version)");
    }
    CompiledProfile compiled = profile.compiled();

    NamespaceScope.NamespaceSet scope = namespaces.resolve(rt, listener, status);
    if (scope == null) {
      status.notReady(StatusBuilder.REASON_NOT_SYNCED, "waiting for the namespace list to sync");
      return early(compiled, null, Map.of(), sinks, Set.of(), status);
    }
    Map<ResourceType, GroupVersionKind> types = LeasePlan.types(compiled);
    if (scope.none() && NamespaceScope.namespaceListForbidden(rt)) {
      // The namespaces are unknown, not gone: keep what was exported rather than tombstone it.
      status.degraded(StatusBuilder.REASON_FORBIDDEN, "listing namespaces is forbidden, so the "
          + "namespaceSelector cannot be resolved; keeping the last records");
      LeasePlan.closeTypeLeases(rt);
      status.ready(StatusBuilder.REASON_RECONCILED, rt.records.size()
          + " objects kept from before");
      return early(compiled, null, Map.of(), sinks, types.keySet(), status);
    }
    reading.leasePlan().apply(rt, compiled, types, scope, listener);

    TenantBoundary.ServiceAccountRef subject = boundary.subjectOf(spec);
    SyncGate.Verdict verdict = gate.check(rt.leases, subject, scope.all(), status);
    if (!verdict.open()) {
      // Exporting a partial set would tombstone objects not listed yet. Delta passes still
      // stream what the informers deliver meanwhile (UPSERTs only).
      status.notReady(StatusBuilder.REASON_NOT_SYNCED, "waiting for the informers of "
          + String.join(", ", verdict.unsynced()) + " to sync");
      Result r = early(compiled, scope, verdict.access(), sinks, types.keySet(), status);
      return new Result(r.context(), null, verdict.retrySoon());
    }
    if (subject != null && !scope.all()) {
      // Ask for every namespace in scope up front, so a forbidden one is reported even when it
      // holds no objects.
      for (TenantBoundary.TypeAccess typeAccess : verdict.access().values()) {
        scope.names().forEach(typeAccess::allows);
      }
    }
    // What the engine itself cannot read (the tenant boundary's denials are reported below).
    List<SkippedScope> leaseSkipped = List.copyOf(status.skipped);

    // Everything is read from here on: events up to now are covered.
    rt.dirty.clear();
    RecordChanges changes = converge(rt.records, read(rt, compiled, scope, verdict.access(),
        subject, status));
    reportLeaseSkipped(leaseSkipped, status);
    PassContext ctx = new PassContext(compiled, scope, verdict.access(), Set.copyOf(sinks),
        inputs.exportEnabled(), true, types.keySet(), status.copy(status.now));
    return new Result(ctx, changes, false);
  }

  /**
   * No profile to derive a desired set from: keep what was exported (a profile that arrives
   * late, e.g. at operator start-up, must not first tombstone everything), read nothing.
   */
  private Result withoutProfile(TargetRuntime rt, TargetSpec spec, ProfileVersion profile,
      Set<String> sinks, StatusBuilder status) {
    LeasePlan.closeAll(rt);
    reading.index().putScope(rt.unit, Set.of(), Set.of());
    if (profile == null) {
      status.notReady(StatusBuilder.REASON_PROFILE_NOT_FOUND,
          "profile " + spec.profileRef() + " not found");
    } else {
      status.notReady(StatusBuilder.REASON_INVALID_PROFILE, profile.error());
    }
    return early(null, null, Map.of(), sinks, Set.of(), status);
  }

  /** Applies the whole desired set to the records: every entry read, and the absent ones gone. */
  private static RecordChanges converge(TargetRecords records,
      Map<ObjectKey, TargetRecords.Entry> next) {
    RecordChanges changes = new RecordChanges();
    for (Map.Entry<ObjectKey, TargetRecords.Entry> e : next.entrySet()) {
      changes.apply(records, e.getKey(), e.getValue());
    }
    List<ObjectKey> gone = new ArrayList<>();
    records.forEachEntry((key, entry) -> {
      if (!next.containsKey(key)) {
        gone.add(key);
      }
    });
    for (ObjectKey key : gone) {
      changes.apply(records, key, null);
    }
    return changes;
  }

  /** What the engine's own credential cannot read degrades the target, naming it. */
  private static void reportLeaseSkipped(List<SkippedScope> leaseSkipped, StatusBuilder status) {
    for (SkippedScope s : leaseSkipped) {
      if (LeaseStatus.Skipped.FORBIDDEN.equals(s.reason())) {
        status.degraded(StatusBuilder.REASON_FORBIDDEN, s.resource() + " is forbidden in "
            + ("*".equals(s.namespace()) ? "all namespaces" : "namespace " + s.namespace()));
      } else if (LeaseStatus.Skipped.NOT_SERVED.equals(s.reason())) {
        status.degraded(StatusBuilder.REASON_NOT_SERVED,
            s.resource() + " is not served by the API server");
      }
    }
  }

  private Result early(CompiledProfile compiled, NamespaceScope.NamespaceSet scope,
      Map<ResourceType, TenantBoundary.TypeAccess> access, Set<String> sinks,
      Set<ResourceType> countTypes, StatusBuilder status) {
    boolean exporting = inputs.exportEnabled() && compiled != null;
    return new Result(new PassContext(compiled, scope, access, Set.copyOf(sinks), exporting,
        false, countTypes, status.copy(status.now)), null, false);
  }

  /** The configured sinks of the target (the missing ones degrade it), plus the host's. */
  private Set<String> sinks(TargetSpec spec, StatusBuilder status) {
    List<String> missing = new ArrayList<>();
    Set<String> sinks = new TreeSet<>();
    for (String ref : spec.sinkRefs()) {
      if (inputs.sinkConfigured(ref)) {
        sinks.add(ref);
      } else {
        missing.add(ref);
      }
    }
    String hostInventorySink = reading.hostInventorySink();
    if (spec.writeInventory() && hostInventorySink != null) {
      sinks.add(hostInventorySink);
    }
    if (!missing.isEmpty()) {
      status.degraded(StatusBuilder.REASON_SINK_NOT_FOUND, (missing.size() == 1 ? "sink "
          : "sinks ") + String.join(", ", missing) + " not found; other sinks are served");
    }
    return sinks;
  }

  /** Reads every cache in scope and gives the entry of each object the target may read. */
  private Map<ObjectKey, TargetRecords.Entry> read(TargetRuntime rt, CompiledProfile compiled,
      NamespaceScope.NamespaceSet scope, Map<ResourceType, TenantBoundary.TypeAccess> access,
      TenantBoundary.ServiceAccountRef subject, StatusBuilder status) {
    RecordContext ctx = new RecordContext(rt.recordCluster(reading.cluster()), rt.id.toString(),
        status.now);
    Map<ObjectKey, TargetRecords.Entry> next =
        new HashMap<>(Math.max(16, rt.records.entryCount() * 4 / 3 + 1));
    for (Map.Entry<ResourceType, InformerLease> e : rt.leases.entrySet()) {
      ResourceType type = e.getKey();
      TenantBoundary.TypeAccess typeAccess = access.get(type);
      LeaseStatus ls = e.getValue().status();
      TargetRecords.Stamp stamp = rt.records.stamp(type, compiled,
          reading.projections().version(type), reading.signals().cachedProjectionVersion(ls));
      for (GenericKubernetesResource obj : e.getValue().list()) {
        String ns = obj.getMetadata() == null ? null : obj.getMetadata().getNamespace();
        if (ns != null && scope.all() && !namespaces.allowed(ns)) {
          continue;
        }
        if (!typeAccess.allows(ns)) {
          continue;
        }
        ObjectKey key = ObjectKey.of(type, ns, obj.getMetadata().getName());
        next.put(key, reading.extractor().entry(rt.records, key, obj, stamp, ctx));
      }
      // Objects we may no longer read are unknown, not deleted: keep their last records rather
      // than tombstoning them. (What the target's ServiceAccount may not read is not kept: that
      // boundary is the point, not an outage.)
      for (LeaseStatus.Skipped s : ls.skipped()) {
        if (LeaseStatus.Skipped.FORBIDDEN.equals(s.reason())) {
          rt.records.forEachEntry((k, held) -> {
            if (held.record() != null && sameType(k.type(), type)
                && ("*".equals(s.namespace()) || Objects.equals(s.namespace(), k.namespace()))
                && typeAccess.allows(k.namespace())) {
              next.putIfAbsent(k, held);
            }
          });
        }
      }
      for (SkippedScope s : typeAccess.forbidden()) {
        status.skipped(s);
        status.degraded(StatusBuilder.REASON_FORBIDDEN, s.resource() + " is forbidden in "
            + ("*".equals(s.namespace()) ? "all namespaces" : "namespace " + s.namespace())
            + " for ServiceAccount " + subject);
      }
    }
    return next;
  }

  private static boolean sameType(ResourceType a, ResourceType b) {
    return a.group().equals(b.group()) && a.kind().equals(b.kind());
  }
}

package io.kollect.core;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.extract.RecordContext;
import io.kollect.informers.InformerLease;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The pass an informer event causes: only the target's dirty keys are read again, extracted when
 * their {@code resourceVersion} or projection changed, and applied to the target's records. Cost
 * O(dirty keys), whatever the size of the inventory.
 *
 * <p>Each key is judged as a full pass would judge it, with what the last full pass decided
 * ({@link PassContext}: profile, scope, the tenant boundary's cached answers): the newest cached
 * state ({@link InformerLease#get}, else the event's object) when in scope, else absent. Until a
 * type's lease has synced, only objects the informers delivered are applied and nothing is
 * concluded from an absence: no record leaves before the type is synced (the full pass the sync
 * triggers does that). What a delta cannot decide alone (a namespace whose access answer is not
 * known yet) requests a full pass.
 */
final class DeltaPass {

  private final String cluster;
  private final RecordExtractor extractor;
  private final RequestedProjections projections;
  private final LeaseSignals signals;
  private final NamespaceScope namespaces;

  DeltaPass(String cluster, RecordExtractor extractor, RequestedProjections projections,
      LeaseSignals signals, NamespaceScope namespaces) {
    this.cluster = cluster;
    this.extractor = extractor;
    this.projections = projections;
    this.signals = signals;
    this.namespaces = namespaces;
  }

  /** What one type looks like for this pass (read once per pass, not per key). */
  private record TypeView(InformerLease lease, boolean synced, TargetRecords.Stamp stamp,
      TenantBoundary.TypeAccess access) {}

  /** Drains the target's dirty keys and applies them; returns what changed. */
  RecordChanges run(TargetRuntime rt, PassContext ctx, Instant now) {
    RecordChanges changes = new RecordChanges();
    if (!ctx.readable()) {
      // Nothing is read (no profile, no scope): the next full pass reads whatever is current.
      rt.dirty.clear();
      return changes;
    }
    RecordContext recordContext =
        new RecordContext(rt.recordCluster(cluster), rt.id.toString(), now);
    Map<ResourceType, TypeView> views = new HashMap<>();
    for (ObjectKey key : rt.dirty.keySet()) {
      ResourceEvent event = rt.dirty.remove(key);
      if (event == null) {
        continue;
      }
      TypeView view = views.computeIfAbsent(key.type(), t -> view(rt, ctx, t));
      if (view == null || !view.access().resolved()) {
        continue; // not read (any more), or waiting for discovery: a full pass decides
      }
      String ns = key.namespace();
      if (!view.access().knows(ns)) {
        // A namespace the tenant boundary was never asked about: asking is the full pass's job
        // (it asks once, then every delta reads the cached answer).
        rt.requestFullPass();
        continue;
      }
      boolean inScope = (ns == null || !ctx.namespaces().all() || namespaces.allowed(ns))
          && view.access().allows(ns);
      GenericKubernetesResource obj = null;
      if (inScope) {
        if (view.synced()) {
          obj = view.lease().get(ns, key.name());
          if (obj == null && event.kind() != ResourceEvent.Kind.DELETED) {
            obj = event.object();
          }
        } else if (event.kind() != ResourceEvent.Kind.DELETED) {
          // Before the sync the event's object comes from a cache holding every leased path.
          obj = event.object();
        }
      }
      if (obj == null && !view.synced()) {
        continue; // no conclusion from an absence before the type is synced
      }
      TargetRecords.Entry next = obj == null ? null
          : extractor.entry(rt.records, key, obj, view.stamp(), recordContext);
      if (next != null && next.record() == null && !view.synced()
          && rt.records.get(key) != null && rt.records.get(key).record() != null) {
        continue; // would take a record away before the sync
      }
      changes.apply(rt.records, key, next);
    }
    return changes;
  }

  private TypeView view(TargetRuntime rt, PassContext ctx, ResourceType type) {
    InformerLease lease = rt.leases.get(type);
    TenantBoundary.TypeAccess access = ctx.access().get(type);
    if (lease == null || access == null) {
      return null;
    }
    TargetRecords.Stamp stamp = rt.records.stamp(type, ctx.compiled(), projections.version(type),
        signals.cachedProjectionVersion(lease.status()));
    return new TypeView(lease, lease.hasSynced(), stamp, access);
  }
}

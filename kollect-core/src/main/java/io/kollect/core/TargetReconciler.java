package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.export.DeliveryStatus;
import io.kollect.export.Exporter;
import io.kollect.export.InventorySink;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ExtractionException;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Record;
import io.kollect.extract.RecordContext;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One level-based reconcile of one target: from the current profile, sinks and informer caches to
 * the desired record set, handed to the exporter and the in-memory inventory, and the target's
 * status. Repeating it with unchanged inputs changes nothing (the exporter dedupes by content hash).
 */
final class TargetReconciler {

  private static final Logger LOG = LoggerFactory.getLogger(TargetReconciler.class);

  static final ResourceType NAMESPACE = new ResourceType("", "v1", "Namespace");
  static final String TRUE = "True";
  static final String FALSE = "False";

  static final String REASON_RECONCILED = "Reconciled";
  static final String REASON_INVALID_PROFILE = "InvalidProfile";
  static final String REASON_PROFILE_NOT_FOUND = "ProfileNotFound";
  static final String REASON_SINK_NOT_FOUND = "SinkNotFound";
  static final String REASON_FORBIDDEN = "Forbidden";
  static final String REASON_NOT_SERVED = "NotServed";
  static final String REASON_NOT_SYNCED = "NotSynced";
  static final String REASON_DELIVERY_FAILING = "DeliveryFailing";
  static final String REASON_RECORDS_REJECTED = "RecordsRejected";
  static final String REASON_WATCH_STALLED = "WatchStalled";
  static final String REASON_RECONCILE_FAILED = "ReconcileFailed";
  static final String REASON_EXTRACTION_FAILED = "ExtractionFailed";
  static final String REASON_NO_ERRORS = "NoErrors";

  /** What the reconciler reads from the engine. */
  interface Inputs {
    ProfileVersion profile(String name);

    boolean sinkConfigured(String name);

    boolean exportEnabled();

    InformerLease lease(LeaseRequest request, LeaseListener listener);
  }

  private final String cluster;
  private final Inputs inputs;
  private final Exporter exporter;
  private final InventorySink inventoryView;
  private final String hostInventorySink;
  private final TargetIndex index;
  private final WorkQueue<TargetId> queue;
  private final Predicate<String> namespaceFilter;
  private final Function<GenericKubernetesResource, JsonNode> toJson;
  private final Clock clock;
  private final TenantBoundary boundary;
  private final RequestedProjections projections;
  private final LeaseSignals signals;

  TargetReconciler(String cluster, Inputs inputs, Exporter exporter, InventorySink inventoryView,
      String hostInventorySink, TargetIndex index, WorkQueue<TargetId> queue,
      Predicate<String> namespaceFilter, Function<GenericKubernetesResource, JsonNode> toJson,
      Clock clock) {
    this(cluster, inputs, exporter, inventoryView, hostInventorySink, index, queue,
        namespaceFilter, toJson, clock, TenantBoundary.off(), new RequestedProjections(),
        LeaseSignals.FROM_LEASE_STATUS);
  }

  TargetReconciler(String cluster, Inputs inputs, Exporter exporter, InventorySink inventoryView,
      String hostInventorySink, TargetIndex index, WorkQueue<TargetId> queue,
      Predicate<String> namespaceFilter, Function<GenericKubernetesResource, JsonNode> toJson,
      Clock clock, TenantBoundary boundary, RequestedProjections projections,
      LeaseSignals signals) {
    this.boundary = boundary;
    this.projections = projections;
    this.signals = signals;
    this.cluster = cluster;
    this.inputs = inputs;
    this.exporter = exporter;
    this.inventoryView = inventoryView;
    this.hostInventorySink = hostInventorySink;
    this.index = index;
    this.queue = queue;
    this.namespaceFilter = namespaceFilter;
    this.toJson = toJson;
    this.clock = clock;
  }

  /** The namespaces a target reads: every namespace, or exactly {@code names} (maybe none). */
  private record NamespaceSet(boolean all, Set<String> names) {
    static final NamespaceSet ALL = new NamespaceSet(true, Set.of());
  }

  /**
   * Reconciles one target; returns the status it computed, or {@code null} when the target was
   * removed meanwhile. Throws only on unexpected failures (the caller retries with backoff).
   */
  TargetStatus reconcile(TargetRuntime rt) {
    synchronized (rt) {
      if (rt.removed) {
        return null;
      }
      rt.reconciles.incrementAndGet();
      TargetRuntime.Definition definition = rt.definition;
      TargetSpec spec = definition.spec();
      ProfileVersion profile = inputs.profile(spec.profileRef());
      StatusBuilder status = new StatusBuilder(rt, spec, clock.instant());

      List<String> missingSinks = new ArrayList<>();
      Set<String> sinks = new TreeSet<>();
      for (String ref : spec.sinkRefs()) {
        if (inputs.sinkConfigured(ref)) {
          sinks.add(ref);
        } else {
          missingSinks.add(ref);
        }
      }
      if (spec.writeInventory() && hostInventorySink != null) {
        sinks.add(hostInventorySink);
      }
      if (!missingSinks.isEmpty()) {
        status.degraded(REASON_SINK_NOT_FOUND, (missingSinks.size() == 1 ? "sink " : "sinks ")
            + String.join(", ", missingSinks) + " not found; other sinks are served");
      }

      if (profile == null || profile.compiled() == null) {
        // Nothing to derive a desired set from: keep what was exported (a profile that arrives
        // late, e.g. at operator start-up, must not first tombstone everything), read nothing.
        closeAllLeases(rt);
        index.putScope(rt.id, Set.of(), Set.of());
        if (profile == null) {
          status.notReady(REASON_PROFILE_NOT_FOUND, "profile " + spec.profileRef() + " not found");
        } else {
          status.notReady(REASON_INVALID_PROFILE, profile.error());
        }
        return status.build(counts(Set.of(), rt.desired.values(), rt.status), rt.status);
      }
      if (profile.error() != null) {
        status.degraded(REASON_INVALID_PROFILE, profile.error()
            + " (still exporting with the last valid version)");
      }
      CompiledProfile compiled = profile.compiled();

      // Resolve the namespace set.
      NamespaceSet namespaces = resolveNamespaces(rt, definition, status);
      if (namespaces == null) {
        status.notReady(REASON_NOT_SYNCED, "waiting for the namespace list to sync");
        return status.build(counts(Set.of(), rt.desired.values(), rt.status), rt.status);
      }

      // Lease each resource type of the profile in that scope (make-before-break on change).
      Map<ResourceType, GroupVersionKind> types = new LinkedHashMap<>();
      for (GroupVersionKind gvk : compiled.resources()) {
        types.put(new ResourceType(gvk.group(), gvk.version(), gvk.kind()), gvk);
      }
      Set<ResourceType> indexed = new LinkedHashSet<>(types.keySet());
      if (rt.namespaceLease != null) {
        indexed.add(NAMESPACE);
      }
      boolean readsNothing = !namespaces.all() && namespaces.names().isEmpty();
      if (readsNothing && namespaceListForbidden(rt)) {
        // The namespaces are unknown, not gone: keep what was exported rather than tombstone it.
        status.degraded(REASON_FORBIDDEN, "listing namespaces is forbidden, so the "
            + "namespaceSelector cannot be resolved; keeping the last records");
        closeLeasesExceptNamespaces(rt);
        status.ready(REASON_RECONCILED, rt.desired.size() + " objects kept from before");
        return status.build(counts(types.keySet(), rt.desired.values(), rt.status), rt.status);
      }
      if (readsNothing) {
        // Only the namespace list (if a selector is used) can change that.
        index.putScope(rt.id, rt.namespaceLease != null ? Set.of(NAMESPACE) : Set.of(), Set.of());
      } else {
        index.putScope(rt.id, indexed, namespaces.names());
      }
      for (Iterator<Map.Entry<ResourceType, InformerLease>> it = rt.leases.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<ResourceType, InformerLease> e = it.next();
        if (readsNothing || !types.containsKey(e.getKey())) {
          e.getValue().close();
          it.remove();
        }
      }
      if (!readsNothing) {
        for (Map.Entry<ResourceType, GroupVersionKind> e : types.entrySet()) {
          LeaseRequest request = new LeaseRequest(e.getKey(), namespaces.names(),
              spec.scope().labelSelector(),
              Set.copyOf(spec.scope().names()), compiled.keepPaths(e.getValue()));
          InformerLease existing = rt.leases.get(e.getKey());
          if (existing == null || !existing.request().equals(request)) {
            rt.leases.put(e.getKey(), projections.track(inputs.lease(request, listener(rt))));
            if (existing != null) {
              existing.close();
            }
          }
        }
      }

      // Gate on sync: exporting a partial set would tombstone objects not listed yet. A lease that
      // was synced and is not any more (e.g. its projection no longer covers the profile's
      // fields) stops the export the same way: nothing is exported from an incomplete cache.
      List<String> unsynced = new ArrayList<>();
      Map<String, Record> previous = rt.desired;
      Map<String, Record> desired = new TreeMap<>();
      TenantBoundary.ServiceAccountRef subject = boundary.subjectOf(spec);
      Map<ResourceType, TenantBoundary.TypeAccess> access = new HashMap<>();
      for (Map.Entry<ResourceType, InformerLease> e : rt.leases.entrySet()) {
        LeaseStatus ls = e.getValue().status();
        for (LeaseStatus.Skipped s : ls.skipped()) {
          status.skipped(new SkippedScope(e.getKey().toString(), s.namespace(), s.reason(),
              s.message()));
        }
        for (LeaseSignals.SilentWatch w : signals.stalledWatches(ls)) {
          status.degraded(REASON_WATCH_STALLED, "the watch of " + e.getKey()
              + ("*".equals(w.namespace()) || w.namespace() == null ? ""
                  : " in namespace " + w.namespace())
              + " has been silent since " + w.silentSince() + " (" + w.reason() + ")");
        }
        TenantBoundary.TypeAccess typeAccess = boundary.access(subject, e.getKey(),
            namespaces.all());
        access.put(e.getKey(), typeAccess);
        if (!settled(ls)) {
          unsynced.add(e.getKey().toString());
        } else if (ls.served() && !typeAccess.resolved()) {
          // Served, but discovery has not shown its resource name to us yet: ask again shortly.
          unsynced.add(e.getKey().toString());
          queue.addAfter(rt.id, Duration.ofSeconds(1));
        }
      }
      if (!unsynced.isEmpty()) {
        status.notReady(REASON_NOT_SYNCED, "waiting for the informers of "
            + String.join(", ", unsynced) + " to sync");
        return status.build(counts(types.keySet(), previous.values(), rt.status), rt.status);
      }
      if (subject != null && !namespaces.all()) {
        // Ask for every namespace in scope up front, so a forbidden one is reported even when it
        // holds no objects.
        for (TenantBoundary.TypeAccess typeAccess : access.values()) {
          namespaces.names().forEach(typeAccess::allows);
        }
      }

      // What the engine itself cannot read (the tenant boundary's denials are reported below).
      List<SkippedScope> leaseSkipped = List.copyOf(status.skipped);

      // Read the caches, extract and scrub.
      Instant observedAt = clock.instant();
      RecordContext ctx = new RecordContext(cluster, rt.id.toString(), observedAt);
      rt.memo.begin(compiled);
      for (Map.Entry<ResourceType, InformerLease> e : rt.leases.entrySet()) {
        ResourceType type = e.getKey();
        TenantBoundary.TypeAccess typeAccess = access.get(type);
        ExtractionMemo.Projection projection = new ExtractionMemo.Projection(
            projections.version(type), signals.cachedProjectionVersion(e.getValue().status()));
        for (GenericKubernetesResource obj : e.getValue().list()) {
          String ns = obj.getMetadata() == null ? null : obj.getMetadata().getNamespace();
          if (ns != null && namespaces.all() && !namespaceFilter.test(ns)) {
            continue;
          }
          if (!typeAccess.allows(ns)) {
            continue;
          }
          Record r = rt.memo.recordOf(type, obj, projection,
              () -> extract(compiled, type, obj, ctx));
          if (r != null) {
            desired.put(r.key(), r);
          }
        }
        // Objects we may no longer read are unknown, not deleted: keep their last records rather
        // than tombstoning them. (What the target's ServiceAccount may not read is not kept: that
        // boundary is the point, not an outage.)
        for (LeaseStatus.Skipped s : e.getValue().status().skipped()) {
          if (LeaseStatus.Skipped.FORBIDDEN.equals(s.reason())) {
            for (Record r : previous.values()) {
              if (sameType(r.resource(), type)
                  && ("*".equals(s.namespace()) || Objects.equals(s.namespace(), r.namespace()))
                  && typeAccess.allows(r.namespace())) {
                desired.putIfAbsent(r.key(), r);
              }
            }
          }
        }
        for (SkippedScope s : typeAccess.forbidden()) {
          status.skipped(s);
          status.degraded(REASON_FORBIDDEN, s.resource() + " is forbidden in "
              + ("*".equals(s.namespace()) ? "all namespaces" : "namespace " + s.namespace())
              + " for ServiceAccount " + subject);
        }
      }
      rt.memo.end();
      status.extractionErrors(rt.memo.errors());
      for (SkippedScope s : leaseSkipped) {
        if (LeaseStatus.Skipped.FORBIDDEN.equals(s.reason())) {
          status.degraded(REASON_FORBIDDEN, s.resource() + " is forbidden in "
              + ("*".equals(s.namespace()) ? "all namespaces" : "namespace " + s.namespace()));
        } else if (LeaseStatus.Skipped.NOT_SERVED.equals(s.reason())) {
          status.degraded(REASON_NOT_SERVED, s.resource() + " is not served by the API server");
        }
      }

      // Hand over: the in-memory view always, the sinks only when this instance exports.
      feedInventoryView(previous, desired);
      rt.desired = desired;
      Instant lastExport = rt.status == null ? null : rt.status.lastExport();
      if (inputs.exportEnabled()) {
        Map<String, String> hashes = new HashMap<>();
        desired.forEach((k, r) -> hashes.put(k, r.contentHash()));
        exporter.converge(rt.id.toString(), sinks, desired.values());
        if (!hashes.equals(rt.exportedHashes) || !sinks.equals(rt.exportedSinks)) {
          lastExport = observedAt;
        }
        rt.exportedHashes = hashes;
        rt.exportedSinks = Set.copyOf(sinks);
      }
      status.lastExport(lastExport);
      if (inputs.exportEnabled()) {
        judgeDeliveries(status, DeliveryHealth.snapshot(exporter, rt.id, sinks));
      }
      status.ready(REASON_RECONCILED, desired.size() + " objects in scope"
          + (inputs.exportEnabled() ? ", exported to " + (sinks.isEmpty() ? "no sinks"
              : String.join(", ", sinks)) : ", not exporting (standby)"));
      return status.build(counts(types.keySet(), desired.values(), rt.status), rt.status);
    }
  }

  /**
   * The status of a target whose reconcile threw (an API call failed, e.g. an access review the
   * engine may not make): not Ready, Degraded, with the error's first line; counts, skipped scopes
   * and deliveries as last reported. The caller retries the reconcile with backoff.
   */
  static TargetStatus failedStatus(TargetRuntime rt, RuntimeException error, Instant now) {
    synchronized (rt) {
      TargetStatus previous = rt.status;
      StatusBuilder status = new StatusBuilder(rt, rt.definition.spec(), now);
      String message = "reconcile failed, retrying with backoff: " + firstLine(error);
      status.notReady(REASON_RECONCILE_FAILED, message);
      status.degraded(REASON_RECONCILE_FAILED, message);
      if (previous != null) {
        previous.skipped().forEach(status::skipped);
        status.deliveries(previous.deliveries());
      }
      return status.build(previous == null ? Map.of() : previous.objectCounts(), previous);
    }
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /**
   * Puts the sinks' delivery of this target into its status: a sink that keeps failing (past
   * {@link DeliveryHealth}'s threshold) makes the target not Ready and Degraded, refused records
   * make it Degraded; both name the sink and the cause.
   */
  private void judgeDeliveries(StatusBuilder status, Map<String, DeliveryStatus> deliveries) {
    status.deliveries(deliveries);
    for (Map.Entry<String, DeliveryStatus> e : deliveries.entrySet()) {
      DeliveryStatus d = e.getValue();
      if (DeliveryHealth.failing(d, status.now)) {
        String message = DeliveryHealth.failingMessage(e.getKey(), d);
        status.notReady(REASON_DELIVERY_FAILING, message);
        status.degraded(REASON_DELIVERY_FAILING, message);
      }
      if (!d.rejected().isEmpty()) {
        status.degraded(REASON_RECORDS_REJECTED, DeliveryHealth.rejectedMessage(e.getKey(), d));
      }
    }
  }

  /** Converts one cached object to JSON and extracts (and scrubs) its record (or its failure). */
  ExtractionMemo.Outcome extract(CompiledProfile compiled, ResourceType type, GenericKubernetesResource obj,
      RecordContext ctx) {
    JsonNode json = toJson.apply(obj);
    if (json instanceof ObjectNode on) {
      // List items may come without apiVersion/kind; the lease's type is authoritative.
      if (!on.hasNonNull("apiVersion")) {
        on.put("apiVersion", type.apiVersion());
      }
      if (!on.hasNonNull("kind")) {
        on.put("kind", type.kind());
      }
    }
    try {
      return ExtractionMemo.Outcome.of(compiled.extract(json, ctx).orElse(null));
    } catch (ExtractionException e) {
      // One object that cannot be represented (e.g. a corrupt Helm release) must not stop the
      // target; the memo remembers the miss, so this is logged once per object version, and the
      // target's status names it. The message names the object, never a value.
      LOG.warn("target {}: skipping {} {}/{}: {}", ctx.target(), type,
          obj.getMetadata().getNamespace(), obj.getMetadata().getName(), e.getMessage());
      return ExtractionMemo.Outcome.failed(e.getMessage());
    }
  }

  /**
   * Resolves which namespaces the target reads; {@code null} while the namespace list it needs is
   * not synced yet.
   */
  private NamespaceSet resolveNamespaces(TargetRuntime rt, TargetRuntime.Definition definition,
      StatusBuilder status) {
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
      rt.namespaceLease = inputs.lease(request, listener(rt));
      if (old != null) {
        old.close();
      }
    }
    if (!index.covers(rt.id, NAMESPACE, null)) {
      // Until the scope is set below, the index would drop the namespace lease's events.
      index.putScope(rt.id, Set.of(NAMESPACE), Set.of());
    }
    LeaseStatus ls = rt.namespaceLease.status();
    for (LeaseStatus.Skipped s : ls.skipped()) {
      status.skipped(new SkippedScope(NAMESPACE.toString(), s.namespace(), s.reason(), s.message()));
    }
    if (!settled(ls)) {
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

  private Set<String> filtered(Iterable<String> namespaces) {
    Set<String> out = new TreeSet<>();
    for (String ns : namespaces) {
      if (namespaceFilter.test(ns)) {
        out.add(ns);
      }
    }
    return out;
  }

  /**
   * Whether a lease's view is complete enough to export from: synced, or its type is not served
   * (nothing to wait for), or part of its scope is forbidden and the rest synced is reported by
   * the registry as synced.
   */
  static boolean settled(LeaseStatus ls) {
    return ls.synced() || !ls.served();
  }

  private LeaseListener listener(TargetRuntime rt) {
    return new LeaseListener() {
      @Override
      public void onEvent(ResourceEvent event) {
        // Events of a lease that a scope change already replaced are dropped here.
        if (event.namespace() != null && !namespaceFilter.test(event.namespace())
            && !NAMESPACE.equals(event.type())) {
          return;
        }
        if (index.covers(rt.id, event.type(), event.namespace())) {
          queue.add(rt.id);
        }
      }

      @Override
      public void onStatusChange(LeaseStatus status) {
        queue.add(rt.id);
      }
    };
  }

  /** Brings the in-memory inventory view from {@code previous} to {@code desired}. */
  private void feedInventoryView(Map<String, Record> previous, Map<String, Record> desired) {
    List<Record> batch = new ArrayList<>();
    for (Map.Entry<String, Record> e : desired.entrySet()) {
      Record before = previous.get(e.getKey());
      if (before == null || !Objects.equals(before.contentHash(), e.getValue().contentHash())) {
        batch.add(e.getValue());
      }
    }
    Instant now = clock.instant();
    for (Map.Entry<String, Record> e : previous.entrySet()) {
      if (!desired.containsKey(e.getKey())) {
        batch.add(e.getValue().tombstone(now));
      }
    }
    if (!batch.isEmpty()) {
      inventoryView.write(batch);
    }
  }

  /** Releases the target's leases, forgets its export state and clears its inventory view. */
  void remove(TargetRuntime rt) {
    synchronized (rt) {
      rt.removed = true;
      closeAllLeases(rt);
      Instant now = clock.instant();
      List<Record> tombstones = new ArrayList<>();
      for (Record r : rt.desired.values()) {
        tombstones.add(r.tombstone(now));
      }
      if (!tombstones.isEmpty()) {
        inventoryView.write(tombstones);
      }
      rt.desired = Map.of();
    }
    exporter.removeTarget(rt.id.toString(), false);
  }

  /**
   * Forgets what was handed to the exporter, so the next reconcile exports afresh; with {@code
   * alsoInExporter} the exporter forgets the target too (no heartbeats from a standby). Holding the
   * target's monitor orders this after a reconcile that read the old export flag.
   */
  void forgetExportState(TargetRuntime rt, boolean alsoInExporter) {
    synchronized (rt) {
      rt.exportedHashes = null;
      rt.exportedSinks = Set.of();
      rt.notified = null;
      if (alsoInExporter && !rt.removed) {
        exporter.removeTarget(rt.id.toString(), false);
      }
    }
  }

  private static boolean namespaceListForbidden(TargetRuntime rt) {
    return rt.namespaceLease != null && rt.namespaceLease.status().skipped().stream()
        .anyMatch(s -> LeaseStatus.Skipped.FORBIDDEN.equals(s.reason()));
  }

  private static void closeLeasesExceptNamespaces(TargetRuntime rt) {
    for (InformerLease lease : rt.leases.values()) {
      lease.close();
    }
    rt.leases.clear();
  }

  static void closeAllLeases(TargetRuntime rt) {
    for (InformerLease lease : rt.leases.values()) {
      lease.close();
    }
    rt.leases.clear();
    rt.memo.clear();
    if (rt.namespaceLease != null) {
      rt.namespaceLease.close();
      rt.namespaceLease = null;
    }
  }

  private static boolean sameType(GroupVersionKind gvk, ResourceType type) {
    return gvk.group().equals(type.group()) && gvk.kind().equals(type.kind());
  }

  /**
   * Objects per type: every type of the profile (zero when it has none), and a type counted before
   * that has none now is reported once as zero, so whatever mirrors these counts (a metric gauge)
   * drops to zero instead of keeping its last value.
   */
  private static Map<String, Integer> counts(Set<ResourceType> types, Iterable<Record> records,
      TargetStatus previous) {
    Map<String, Integer> out = new TreeMap<>();
    for (ResourceType t : types) {
      out.put(t.toString(), 0);
    }
    if (previous != null) {
      previous.objectCounts().forEach((type, n) -> {
        if (n > 0) {
          out.putIfAbsent(type, 0);
        }
      });
    }
    for (Record r : records) {
      out.merge(r.resource().apiVersion() + "/" + r.resource().kind(), 1, Integer::sum);
    }
    return out;
  }

  /** Degraded reasons, most important first: the first present names the condition. */
  static final List<String> DEGRADED_PRIORITY = List.of(
      REASON_INVALID_PROFILE, REASON_RECONCILE_FAILED, REASON_SINK_NOT_FOUND,
      REASON_DELIVERY_FAILING,
      REASON_RECORDS_REJECTED, REASON_WATCH_STALLED, REASON_FORBIDDEN, REASON_NOT_SERVED);

  /** Collects one reconcile's findings into a {@link TargetStatus}. */
  static final class StatusBuilder {
    private final TargetRuntime rt;
    private final TargetSpec spec;
    final Instant now;
    private final List<String[]> degraded = new ArrayList<>();
    private Map<String, DeliveryStatus> deliveries = Map.of();
    final List<SkippedScope> skipped = new ArrayList<>();
    private String readyStatus;
    private String readyReason;
    private String readyMessage;
    private Instant lastExport;
    private List<ExtractionError> extractionErrors = List.of();

    StatusBuilder(TargetRuntime rt, TargetSpec spec, Instant now) {
      this.rt = rt;
      this.spec = spec;
      this.now = now;
      this.lastExport = rt.status == null ? null : rt.status.lastExport();
    }

    void degraded(String reason, String message) {
      degraded.add(new String[] {reason, message});
    }

    void skipped(SkippedScope s) {
      if (!skipped.contains(s)) {
        skipped.add(s);
      }
    }

    void notReady(String reason, String message) {
      if (readyStatus == null) {
        readyStatus = FALSE;
        readyReason = reason;
        readyMessage = message;
      }
    }

    void ready(String reason, String message) {
      if (readyStatus == null) {
        readyStatus = TRUE;
        readyReason = reason;
        readyMessage = message;
      }
    }

    void lastExport(Instant when) {
      this.lastExport = when;
    }

    void deliveries(Map<String, DeliveryStatus> d) {
      this.deliveries = d;
    }

    void extractionErrors(List<ExtractionError> errors) {
      this.extractionErrors = List.copyOf(errors);
    }

    TargetStatus build(Map<String, Integer> counts, TargetStatus previous) {
      List<Condition> conditions = new ArrayList<>();
      conditions.add(condition(Condition.READY, readyStatus == null ? FALSE : readyStatus,
          readyReason == null ? REASON_NOT_SYNCED : readyReason,
          readyMessage == null ? "" : readyMessage, previous));
      if (degraded.isEmpty()) {
        conditions.add(condition(Condition.DEGRADED, FALSE, REASON_RECONCILED,
            "all parts of the target work", previous));
      } else {
        // The most important reason names the condition; the message lists all, in that order.
        degraded.sort(java.util.Comparator.comparingInt(d -> DEGRADED_PRIORITY.indexOf(d[0])));
        List<String> messages = new ArrayList<>();
        for (String[] d : degraded) {
          if (!messages.contains(d[1])) {
            messages.add(d[1]);
          }
        }
        conditions.add(condition(Condition.DEGRADED, TRUE, degraded.get(0)[0],
            String.join("; ", messages), previous));
      }
      if (extractionErrors.isEmpty()) {
        conditions.add(condition(Condition.EXTRACTION_ERRORS, FALSE, REASON_NO_ERRORS,
            "every object in scope was extracted", previous));
      } else {
        List<ExtractionError> samples = extractionErrors.subList(0,
            Math.min(TargetStatus.EXTRACTION_ERROR_SAMPLES, extractionErrors.size()));
        List<String> named = new ArrayList<>();
        for (ExtractionError e : samples) {
          named.add(e.resource() + " " + (e.namespace() == null ? "" : e.namespace() + "/")
              + e.name() + ": " + e.message());
        }
        int more = extractionErrors.size() - samples.size();
        conditions.add(condition(Condition.EXTRACTION_ERRORS, TRUE, REASON_EXTRACTION_FAILED,
            extractionErrors.size() + (extractionErrors.size() == 1 ? " object" : " objects")
                + " cannot be extracted and " + (extractionErrors.size() == 1 ? "is" : "are")
                + " left out: " + String.join("; ", named)
                + (more > 0 ? "; and " + more + " more" : ""), previous));
      }
      List<ExtractionError> samples = extractionErrors.subList(0,
          Math.min(TargetStatus.EXTRACTION_ERROR_SAMPLES, extractionErrors.size()));
      return new TargetStatus(rt.id, spec.generation(), conditions, counts, skipped, lastExport,
          extractionErrors.size(), samples, deliveries);
    }

    private Condition condition(String type, String status, String reason, String message,
        TargetStatus previous) {
      Instant since = now;
      if (previous != null) {
        Condition before = previous.condition(type);
        if (before != null && before.status().equals(status)) {
          since = before.lastTransitionTime();
        }
      }
      return new Condition(type, status, reason, message, since);
    }
  }

  /**
   * The status without what changes on every delivery (the last export and acknowledgement
   * times, pending counts): what is left must be reported at once when it changes.
   */
  static TargetStatus withoutLastExport(TargetStatus s) {
    return s == null ? null : new TargetStatus(s.id(), s.observedGeneration(), s.conditions(),
        s.objectCounts(), s.skipped(), null, s.extractionErrorCount(), s.extractionErrors(),
        DeliveryHealth.withoutFigures(s.deliveries()));
  }
}

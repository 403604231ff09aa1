package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.export.DeliveryStatus;
import io.kollect.export.Exporter;
import io.kollect.export.InventorySink;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings one target up to date: the pipeline an event walks down once.
 *
 * <pre>
 * informer event ─► lease listener: key dirty (latest event wins), target queued    [no monitor]
 * worker ─► reconcile(target)                                                         [monitor]
 *   plan: a full pass when requested (start, spec/profile/sink/lease-status/access change,
 *   export on, a failed pass) or due (the periodic resync)
 *   full pass:  NamespaceScope ─► LeasePlan ─► SyncGate ─► FullPass reads every cache (entries
 *               reused when unchanged) ─► returns RecordChanges + PassContext (status facts)
 *   delta pass: DeltaPass re-reads the dirty keys only ─► returns RecordChanges
 *   hand over:  HandOver.full (converge) / HandOver.delta (update) ─► view + Exporter
 *   status:     the full pass's facts + the counts and errors TargetRecords maintains
 *               (StatusBuilder); the caller publishes it (StatusPublisher)
 * </pre>
 *
 * <p><b>Why a delta equals a full pass.</b> Both decide each object by the same rule (in scope
 * per the last full pass's namespaces, namespace filter and tenant-boundary answers; its newest
 * cached state; its entry reused only for the same {@code resourceVersion}, projection and
 * profile) and apply it through the same {@link RecordChanges}. Everything a delta does not
 * re-read per key (profile, sinks, scope, access answers, sync state, projections) is an input
 * whose change requests a full pass: lease status changes and namespace events do so from the
 * listener, the engine does for spec, profile, sink, access and export changes. The property test
 * {@code IncrementalEqualsFullPassProperties} holds them equal on random event sequences.
 *
 * <p><b>Why nothing is lost under concurrency.</b> A listener marks the key before it queues the
 * target; a pass removes a key before reading its state, so an event that arrives during the
 * pass re-marks the key, and the queue runs the target again after this pass ({@link WorkQueue}
 * re-queues a key added while it is processed). A full pass clears the dirty keys before it reads
 * the caches, so it covers every event before the clear; later ones are re-marked.
 *
 * <p><b>Several clusters.</b> A target whose spec names clusters is worked as one unit per
 * cluster ({@link ClusterUnits}): each unit runs the pipeline above on its own cluster's leases
 * and records, under the target's monitor and queue key, and {@link ClusterStatusMerge} makes the
 * target's status from the units'. A unit's failure is retried with its own backoff; its
 * cluster's other targets and the target's other clusters carry on.
 */
final class TargetReconciler {

  private static final Logger LOG = LoggerFactory.getLogger(TargetReconciler.class);

  static final ResourceType NAMESPACE = NamespaceScope.NAMESPACE;

  /** Default interval of the periodic full pass (a correctness backstop, not a freshness knob). */
  static final Duration DEFAULT_FULL_PASS_INTERVAL = Duration.ofHours(1);

  /** What the reconciler reads from the engine. */
  interface Inputs {
    ProfileVersion profile(String name);

    boolean sinkConfigured(String name);

    boolean exportEnabled();

    InformerLease lease(LeaseRequest request, LeaseListener listener);

    /** Whether the sink is suspended: it is handed nothing, and targets say so. */
    default boolean sinkSuspended(String name) {
      return false;
    }

    /** Objects per target above which its status warns ({@code HighCardinality}). */
    default int warnObjectsPerTarget() {
      return Cardinality.DEFAULT_WARN_OBJECTS;
    }
  }

  private final Inputs inputs;
  private final Exporter exporter;
  private final TargetIndex index;
  private final WorkQueue<TargetId> queue;
  private final Predicate<String> namespaceFilter;
  private final Clock clock;
  private final HandOver handOver;
  private final FullPass fullPass;
  private final DeltaPass deltaPass;
  private final long fullPassIntervalNanos;
  /** The full pass of units of other clusters: no tenant boundary, the credential is one. */
  private final FullPass remoteFullPass;
  private final ClusterUnits units;
  private final OpenClusters clusters;
  /** Backoff of units whose pass failed (the target's other units carry on meanwhile). */
  private final ExponentialBackoffRateLimiter<UnitKey> unitRetries =
      new ExponentialBackoffRateLimiter<>(Duration.ofMillis(500), Duration.ofMinutes(5));

  private TargetReconciler(Builder b) {
    this.clusters = b.clusters;
    this.inputs = b.inputs;
    this.exporter = b.exporter;
    this.index = b.index;
    this.queue = b.queue;
    this.namespaceFilter = b.namespaceFilter;
    this.clock = b.clock;
    this.fullPassIntervalNanos = b.fullPassInterval.toNanos();
    ClusterInventoryView views = b.views != null ? b.views
        : new ClusterInventoryView(new InventorySink(KollectEngine.INVENTORY_VIEW), b.cluster);
    this.handOver = new HandOver(exporter, views, clock);
    NamespaceScope namespaces = new NamespaceScope(inputs::lease, index, namespaceFilter);
    RecordExtractor extractor = new RecordExtractor(b.toJson, b.shard.ownership(b.cluster));
    FullPass.Reading reading = new FullPass.Reading(b.cluster, inputs, b.hostInventorySink,
        namespaces, new LeasePlan(inputs::lease, index, b.projections), extractor, b.projections,
        b.signals, index);
    this.fullPass = new FullPass(reading, b.boundary);
    this.remoteFullPass = new FullPass(reading, TenantBoundary.off());
    this.deltaPass = new DeltaPass(b.cluster, extractor, b.projections, b.signals, namespaces);
    this.units = new ClusterUnits(b.cluster, b.shard, clusters, exporter, handOver, index,
        inputs::exportEnabled);
  }

  /**
   * Starts a reconciler of the engine's cluster {@code cluster}; every other collaborator has a
   * default fit for a test (no tenant boundary, no other clusters, no shard, all namespaces).
   */
  static Builder builder(String cluster, Inputs inputs, Exporter exporter,
      WorkQueue<TargetId> queue) {
    return new Builder(cluster, inputs, exporter, queue);
  }

  /** What a {@link TargetReconciler} works with; the engine gives all, tests what they vary. */
  static final class Builder {
    private final String cluster;
    private final Inputs inputs;
    private final Exporter exporter;
    private final WorkQueue<TargetId> queue;
    private ClusterInventoryView views;
    private String hostInventorySink;
    private TargetIndex index = new TargetIndex();
    private Predicate<String> namespaceFilter = ns -> true;
    private Function<GenericKubernetesResource, JsonNode> toJson;
    private Clock clock = Clock.systemUTC();
    private TenantBoundary boundary = TenantBoundary.off();
    private RequestedProjections projections = new RequestedProjections();
    private LeaseSignals signals = LeaseSignals.FROM_LEASE_STATUS;
    private Duration fullPassInterval = DEFAULT_FULL_PASS_INTERVAL;
    private OpenClusters clusters;
    private Shard shard = Shard.NONE;

    private Builder(String cluster, Inputs inputs, Exporter exporter,
        WorkQueue<TargetId> queue) {
      this.cluster = cluster;
      this.inputs = inputs;
      this.exporter = exporter;
      this.queue = queue;
    }

    /** The in-memory inventory of the engine's own cluster only. */
    Builder view(InventorySink view) {
      return views(new ClusterInventoryView(view, cluster));
    }

    /** The in-memory inventory, per cluster. */
    Builder views(ClusterInventoryView views) {
      this.views = views;
      return this;
    }

    /** The host's inventory sink, which targets with {@code writeInventory} also feed. */
    Builder hostInventorySink(String name) {
      this.hostInventorySink = name;
      return this;
    }

    Builder index(TargetIndex index) {
      this.index = index;
      return this;
    }

    /** Namespaces the engine may read at all. */
    Builder namespaceFilter(Predicate<String> filter) {
      this.namespaceFilter = filter;
      return this;
    }

    /** How a cached object becomes the JSON extraction reads. */
    Builder toJson(Function<GenericKubernetesResource, JsonNode> toJson) {
      this.toJson = toJson;
      return this;
    }

    Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** What targets may read (default: off, every target reads what the engine may). */
    Builder boundary(TenantBoundary boundary) {
      this.boundary = boundary;
      return this;
    }

    Builder projections(RequestedProjections projections) {
      this.projections = projections;
      return this;
    }

    Builder signals(LeaseSignals signals) {
      this.signals = signals;
      return this;
    }

    /** How often a full pass runs without a cause (zero: never). */
    Builder fullPassInterval(Duration interval) {
      this.fullPassInterval = interval;
      return this;
    }

    /** The other clusters targets may name (default: none). */
    Builder clusters(OpenClusters clusters) {
      this.clusters = clusters;
      return this;
    }

    /** The objects this engine owns; the others yield no record (default: all). */
    Builder shard(Shard shard) {
      this.shard = shard;
      return this;
    }

    TargetReconciler build() {
      return new TargetReconciler(this);
    }
  }

  /**
   * Brings the target up to date (a full pass when one is requested or due, then the dirty keys);
   * returns its status, or {@code null} when the target was removed meanwhile. Throws only on
   * unexpected failures (the caller retries with backoff; the retry is a full pass).
   */
  TargetStatus reconcile(TargetRuntime rt) {
    synchronized (rt) {
      if (rt.removed) {
        return null;
      }
      rt.reconciles.incrementAndGet();
      if (units.sync(rt)) {
        return fanOut(rt);
      }
      try {
        return pass(rt);
      } catch (RuntimeException e) {
        // Dirty keys this pass drained may be lost: the retry reads everything.
        rt.requestFullPass();
        throw e;
      }
    }
  }

  /**
   * Reconciles each unit of a target that reads several clusters, then merges their statuses. A
   * unit whose cluster cannot be opened reads nothing and keeps its records; a unit whose pass
   * fails is retried with its own backoff while the others carry on.
   */
  private TargetStatus fanOut(TargetRuntime rt) {
    Instant now = clock.instant();
    if (rt.takeFullPassRequest()) {
      rt.units.values().forEach(TargetRuntime::requestFullPass);
    }
    List<ClusterStatusMerge.Part> parts = new ArrayList<>();
    for (TargetRuntime unit : rt.units.values()) {
      TargetStatus status;
      Optional<ClusterConnectionException> failure = unit.connection == null
          ? Optional.empty() : unit.connection.failure();
      if (failure.isPresent() || (unit.connection != null && unit.link == null)) {
        status = unopened(unit, failure.orElse(null), now);
      } else {
        try {
          status = pass(unit);
          unitRetries.forget(unit.unit);
        } catch (RuntimeException e) {
          unit.requestFullPass();
          Duration retry = unitRetries.when(unit.unit);
          LOG.warn("reconcile of target {} in cluster {} failed, retrying in {}", rt.id,
              unit.cluster, retry, e);
          status = StatusBuilder.failed(unit, e, now);
          queue.addAfter(rt.id, retry);
        }
      }
      unit.status = status;
      parts.add(new ClusterStatusMerge.Part(unit.cluster, status, health(unit)));
    }
    return ClusterStatusMerge.merge(rt.id, rt.definition.spec().generation(), parts, rt.status,
        now);
  }

  private Optional<ClusterHealth> health(TargetRuntime unit) {
    return clusters == null || unit.connection == null ? Optional.empty()
        : unit.connection.health();
  }

  /** The status of a unit whose cluster cannot be opened: its records are kept, nothing read. */
  private TargetStatus unopened(TargetRuntime unit, ClusterConnectionException failure,
      Instant now) {
    StatusBuilder b = new StatusBuilder(unit, unit.definition.spec(), now);
    String reason = failure == null ? ClusterConnectionException.REASON_NOT_FOUND
        : failure.reason();
    String message = failure == null ? "cluster " + unit.cluster + " is not open"
        : failure.getMessage();
    b.notReady(reason, message);
    b.degraded(reason, message);
    return b.build(counts(Set.of(), unit.records, unit.status), unit.status);
  }

  /**
   * One pass of one unit, top to bottom: plan (is a full pass due?), pass (full, then the dirty
   * keys), hand over what changed, status. The caller publishes the status.
   */
  private TargetStatus pass(TargetRuntime rt) {
    if (rt.definition.spec().suspend()) {
      return TargetSuspension.pause(rt, index, clock.instant());
    }
    Instant now = clock.instant();
    long nanos = System.nanoTime();
    boolean handedOver = false;
    // plan: a full pass when one was requested or is due, else only the dirty keys
    if (rt.takeFullPassRequest() | rt.context == null | fullPassDue(rt, nanos)) {
      FullPass.Result full = (rt.connection == null ? fullPass : remoteFullPass).run(rt,
          new StatusBuilder(rt, rt.definition.spec(), now), listener(rt));
      rt.context = full.context();
      rt.lastFullPassNanos = nanos;
      if (full.changes() != null) { // hand over (null: stopped early, nothing to converge to)
        handedOver = handOver.full(rt, full.changes(), full.context().sinks(),
            full.context().exporting());
      }
      if (full.retrySoon()) {
        rt.requestFullPass();
        queue.addAfter(rt.id, Duration.ofSeconds(1));
      }
    }
    PassContext ctx = rt.context;
    if (!rt.dirty.isEmpty()) {
      RecordChanges changes = deltaPass.run(rt, ctx, now);
      // hand over
      handedOver |= handOver.delta(rt, changes, ctx.sinks(),
          ctx.exporting() && inputs.exportEnabled());
      if (rt.fullPassPending()) {
        queue.add(rt.id); // the delta met something only a full pass decides
      }
    }
    parkFullPass(rt, nanos);
    return status(rt, ctx, now, handedOver); // status; the caller publishes it
  }

  private boolean fullPassDue(TargetRuntime rt, long nanos) {
    return fullPassIntervalNanos > 0 && nanos - rt.lastFullPassNanos >= fullPassIntervalNanos;
  }

  /** Keeps one wake-up parked for the next periodic full pass. */
  private void parkFullPass(TargetRuntime rt, long nanos) {
    if (fullPassIntervalNanos <= 0) {
      return;
    }
    if (!rt.resyncParked || nanos - rt.resyncParkedUntilNanos >= 0) {
      long due = rt.lastFullPassNanos + fullPassIntervalNanos;
      queue.addAfter(rt.id, Duration.ofNanos(Math.max(1, due - nanos)));
      rt.resyncParked = true;
      rt.resyncParkedUntilNanos = due;
    }
  }

  /**
   * The status: the last full pass's findings, with what changes between full passes (counts,
   * extraction errors, deliveries, the last export). O(types + sinks + error samples).
   */
  private TargetStatus status(TargetRuntime rt, PassContext ctx, Instant now,
      boolean handedOver) {
    StatusBuilder b = ctx.statusBase().copy(now);
    if (handedOver) {
      b.lastExport(now);
    }
    if (ctx.complete()) {
      b.extractionErrors(rt.records.errorCount(),
          rt.records.errorSamples(TargetStatus.EXTRACTION_ERROR_SAMPLES));
      boolean exporting = ctx.exporting() && inputs.exportEnabled();
      if (exporting) {
        b.judgeDeliveries(DeliveryHealth.snapshot(exporter, rt.exportKey, ctx.sinks()));
      }
      Cardinality.judge(b, rt.records.size(), rt, inputs.warnObjectsPerTarget(), rt.status);
      String suspended = exporting ? SinkSuspension.describe(ctx.sinks(), inputs::sinkSuspended)
          : null;
      if (suspended != null) {
        b.ready(TargetSuspension.REASON_SUSPENDED, rt.records.size() + " objects in scope; "
            + suspended);
      }
      b.ready(StatusBuilder.REASON_RECONCILED, rt.records.size() + " objects in scope"
          + (exporting ? ", exported to " + (ctx.sinks().isEmpty() ? "no sinks"
              : String.join(", ", ctx.sinks())) : ", not exporting (standby)"));
    }
    return b.build(counts(ctx.countTypes(), rt.records, rt.status), rt.status);
  }

  /**
   * Objects per type: every type of the profile (zero when it has none), and a type counted before
   * that has none now is reported once as zero, so whatever mirrors these counts (a metric gauge)
   * drops to zero instead of keeping its last value.
   */
  static Map<String, Integer> counts(Set<ResourceType> types, TargetRecords records,
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
    records.forEachCount((t, n) -> {
      if (n > 0) {
        out.merge(t.toString(), n, Integer::sum);
      }
    });
    return out;
  }

  /**
   * The target's lease listener. Runs on informer threads: it never takes the target's monitor,
   * it only marks and queues.
   */
  private LeaseListener listener(TargetRuntime rt) {
    return new LeaseListener() {
      @Override
      public void onEvent(ResourceEvent event) {
        boolean namespaces = NAMESPACE.equals(event.type());
        if (event.namespace() != null && !namespaces && !namespaceFilter.test(event.namespace())) {
          return;
        }
        // Events of a lease that a scope change already replaced are dropped here.
        if (!index.covers(rt.unit, event.type(), event.namespace())) {
          return;
        }
        if (namespaces) {
          rt.requestFullPass(); // the resolved scope may change
        } else {
          rt.dirty.put(ObjectKey.of(event.type(), event.namespace(), event.name()), event);
        }
        queue.add(rt.id);
      }

      @Override
      public void onStatusChange(LeaseStatus status) {
        rt.requestFullPass();
        queue.add(rt.id);
      }
    };
  }

  /** Releases the target's leases, forgets its export state and clears its inventory view. */
  void remove(TargetRuntime rt) {
    synchronized (rt) {
      rt.removed = true;
      units.dropAll(rt);
      LeasePlan.closeAll(rt);
      handOver.clearView(rt);
      rt.records.clear();
      rt.dirty.clear();
      rt.context = null;
    }
    exporter.removeTarget(rt.id.toString(), false);
  }

  /**
   * Forgets what was handed to the exporter, so the next pass (a full one) exports afresh; with
   * {@code alsoInExporter} the exporter forgets the target too (no heartbeats from a standby).
   * Holding the target's monitor orders this after a pass that read the old export flag.
   */
  void forgetExportState(TargetRuntime rt, boolean alsoInExporter) {
    synchronized (rt) {
      HandOver.forgetExported(rt);
      rt.requestFullPass();
      for (TargetRuntime unit : rt.units.values()) {
        HandOver.forgetExported(unit);
        unit.requestFullPass();
        if (alsoInExporter && !rt.removed) {
          exporter.removeTarget(unit.exportKey, false);
        }
      }
      if (alsoInExporter && !rt.removed && rt.units.isEmpty()) {
        exporter.removeTarget(rt.exportKey, false);
      }
    }
  }

  /**
   * The target's deliveries now: its own, or summed over its units (for the periodic refresh,
   * without the target's monitor).
   */
  Map<String, DeliveryStatus> deliveries(TargetRuntime rt, Set<String> exported) {
    Map<String, TargetRuntime> parts = rt.units;
    if (parts.isEmpty()) {
      return DeliveryHealth.snapshot(exporter, rt.exportKey, exported);
    }
    List<Map<String, DeliveryStatus>> each = new ArrayList<>();
    for (TargetRuntime unit : parts.values()) {
      each.add(DeliveryHealth.snapshot(exporter, unit.exportKey, unit.exportedSinks));
    }
    return ClusterStatusMerge.deliveries(each);
  }

  /**
   * Marks the target removed and ends its leases and its units' (the engine closes: clusters are
   * closed after this); nothing is forgotten in the exporter, which closes next.
   */
  void close(TargetRuntime rt) {
    synchronized (rt) {
      rt.removed = true;
      LeasePlan.closeAll(rt);
      units.closeAll(rt);
    }
  }
}

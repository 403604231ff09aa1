package io.kollect.core;

import io.kollect.informers.LabelSelectorMatcher;

import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The mutable state the engine keeps for one target, and for each of its units. Everything but
 * {@link #definition}, {@link #dirty}, {@link #units}, the full-pass request and the counters is
 * guarded by the target's monitor, which a pass holds throughout; the work queue already
 * guarantees one pass per target at a time, the monitor orders it against removal.
 *
 * <p>A target of the engine's own cluster only is its own single unit (leases, records, export
 * state under the key {@code ns/name}), exactly as before targets could name clusters. A target
 * whose spec names clusters fans out: it holds one child runtime per cluster in {@link #units},
 * each a unit with its own leases, records, export state and status, and its own fields stay
 * empty. Children are guarded by their target's monitor.
 *
 * <p><b>Who writes what.</b> The runtime is a place, not an actor: each group of fields is
 * written by the one unit that owns that state, and only read elsewhere.
 *
 * <table>
 *   <caption>Owners of a runtime's state</caption>
 *   <tr><th>state</th><th>written by</th></tr>
 *   <tr><td>{@link #records}</td><td>{@link RecordChanges#apply} (the passes); cleared on
 *       removal</td></tr>
 *   <tr><td>{@link #dirty}</td><td>the lease listener (marks), the passes (drain)</td></tr>
 *   <tr><td>{@link #leases}, {@link #namespaceLease}</td><td>{@link LeasePlan} and {@link
 *       NamespaceScope}</td></tr>
 *   <tr><td>{@link #units}, {@link #link}</td><td>{@link ClusterUnits}</td></tr>
 *   <tr><td>{@link #context}, {@link #lastFullPassNanos}, resync parking</td><td>{@link
 *       TargetReconciler} (dropped by {@link ClusterUnits} and {@link TargetSuspension}, which
 *       request a full pass instead)</td></tr>
 *   <tr><td>{@link #exported}, {@link #exportedSinks}, {@link #cap}</td><td>{@link HandOver}
 *       (with its {@link ExportCap})</td></tr>
 *   <tr><td>{@link #status}, {@link #notified}</td><td>{@link StatusPublisher} (a unit's status:
 *       {@link TargetReconciler})</td></tr>
 *   <tr><td>{@link #definition}</td><td>{@link TargetSet} (a unit's: {@link
 *       ClusterUnits})</td></tr>
 *   <tr><td>{@link #removed}</td><td>{@link TargetReconciler} (a unit's: {@link
 *       ClusterUnits})</td></tr>
 * </table>
 */
final class TargetRuntime {

  /**
   * A target spec with its selectors compiled, swapped as one so a reconcile never mixes two specs.
   *
   * <p>The object label selector is compiled only to reject an invalid one up front: the informer
   * lease filters by it.
   *
   * @param spec the spec
   * @param namespaceLabels the scope's namespace selector ({@code null} when it has none)
   */
  record Definition(TargetSpec spec, LabelSelectorMatcher namespaceLabels) {

    /**
     * Checks what the engine needs of a spec (no blank names, no {@code /} in a cluster name)
     * and compiles it; throws naming the target and field when something is invalid.
     */
    static Definition validated(TargetSpec spec) {
      Objects.requireNonNull(spec.id(), "spec.id");
      requireName(spec.profileRef(), "spec.profileRef");
      for (String ns : spec.scope().namespaces()) {
        requireName(ns, "target " + spec.id() + ": scope.namespaces[]");
      }
      for (String n : spec.scope().names()) {
        requireName(n, "target " + spec.id() + ": scope.names[]");
      }
      for (String sink : spec.sinkRefs()) {
        requireName(sink, "target " + spec.id() + ": sinkRefs[]");
      }
      for (String cluster : spec.clusters()) {
        requireName(cluster, "target " + spec.id() + ": clusters[]");
        if (cluster.contains("/")) {
          throw new IllegalArgumentException("target " + spec.id() + ": clusters[]: " + cluster
              + " must not contain '/'");
        }
      }
      return of(spec);
    }

    private static void requireName(String name, String what) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException(what + ": must not be blank");
      }
    }

    /** Compiles the spec's selectors; throws naming the target and field when one is invalid. */
    static Definition of(TargetSpec spec) {
      String where = "target " + spec.id() + ": scope.";
      try {
        LabelSelectorMatcher.compile(spec.scope().labelSelector(), "labelSelector");
        LabelSelectorMatcher namespaces = spec.scope().namespaceSelector() == null ? null
            : LabelSelectorMatcher.compile(spec.scope().namespaceSelector(), "namespaceSelector");
        return new Definition(spec, namespaces);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + e.getMessage(), e);
      }
    }
  }

  final TargetId id;
  /** Which unit this is: the target itself, or the target on one cluster. */
  final UnitKey unit;
  /** The cluster named in records, {@code null} for the engine's own. */
  final String cluster;
  /** The exporter's key of this unit's records ({@link UnitKey#exportKey}). */
  final String exportKey;
  /** The connection of another cluster this unit reads, {@code null} for the engine's own. */
  final ClusterConnection connection;
  /** The generation of {@link #connection} this unit's leases are on ({@code null}: none). */
  ClusterConnection.Link link;
  /**
   * The units of a target whose spec names clusters, by cluster name in spec order (empty
   * otherwise); replaced whole, so readers without the monitor see a consistent map.
   */
  volatile Map<String, TargetRuntime> units;
  /**
   * Whether the target fans out to {@link #units}: its spec names clusters other than the
   * engine's own. Split by cluster, a shard may hold none of its units and still fan out.
   */
  boolean fansOut;
  volatile Definition definition;
  /** Set once, under the monitor, by removal; a reconcile that sees it does nothing. */
  boolean removed;

  /** Leases per resource type of the profile, in the resolved scope. */
  final Map<ResourceType, InformerLease> leases;
  /** The lease on {@code v1/Namespace} that resolves a namespace selector, if any. */
  InformerLease namespaceLease;

  /**
   * Objects changed since they were last read, with their latest event (latest wins). Written by
   * informer threads without the monitor, drained by delta passes; a full pass reads everything
   * and clears it.
   */
  final ConcurrentHashMap<ObjectKey, ResourceEvent> dirty;
  /** Whether the next pass must be a full pass; set by whatever a delta cannot judge. */
  private final AtomicBoolean fullPassRequested;

  /** What the target holds per object: memo, desired set, counts and errors in one. */
  final TargetRecords records;
  /** What the last full pass decided, reused by delta passes; {@code null} before the first. */
  PassContext context;
  /** When the last full pass ran ({@link System#nanoTime()}). */
  long lastFullPassNanos;
  /** Whether, and until when, a periodic full pass is parked on the queue. */
  boolean resyncParked;
  long resyncParkedUntilNanos;
  /** The export cap's state when the spec has {@code maxObjects}, else {@code null}. */
  ExportCap cap;
  /** Whether the exporter was handed this target's set since export was (re)enabled. */
  boolean exported;
  Set<String> exportedSinks = Set.of();

  /** The status the last reconcile computed. */
  volatile TargetStatus status;
  /** The status listeners were last told, or {@code null} when they have not been told one. */
  TargetStatus notified;
  long notifiedAtNanos;

  final AtomicLong reconciles;

  TargetRuntime(Definition definition) {
    this(definition, null, definition.spec().id().toString(), null);
  }

  /**
   * A unit of a fanned-out target: the target as read from {@code cluster} ({@code null}: the
   * target is its own unit on the engine's cluster).
   */
  TargetRuntime(Definition definition, String cluster, String exportKey,
      ClusterConnection connection) {
    this.id = definition.spec().id();
    this.definition = definition;
    this.unit = new UnitKey(id, cluster);
    // State starts empty, and the first pass is a full one.
    this.units = Map.of();
    this.leases = new HashMap<>();
    this.dirty = new ConcurrentHashMap<>();
    this.fullPassRequested = new AtomicBoolean(true);
    this.records = new TargetRecords();
    this.reconciles = new AtomicLong();
    this.cluster = cluster;
    this.exportKey = exportKey;
    this.connection = connection;
  }

  /** The cluster named in this unit's records. */
  String recordCluster(String engineCluster) {
    return cluster == null ? engineCluster : cluster;
  }

  /** Where this unit takes its leases: its cluster's current registry, else {@code fallback}. */
  BiFunction<LeaseRequest, LeaseListener, InformerLease> leaseSource(
      BiFunction<LeaseRequest, LeaseListener, InformerLease> fallback) {
    ClusterConnection.Link l = link;
    return connection == null || l == null ? fallback : l::lease;
  }

  /** Whether this target or any of its units has a changed object waiting. */
  boolean anyDirty() {
    if (!dirty.isEmpty()) {
      return true;
    }
    for (TargetRuntime u : units.values()) {
      if (!u.dirty.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  TargetSpec spec() {
    return definition.spec();
  }

  /** Makes the next pass a full pass (thread-safe, no monitor needed). */
  void requestFullPass() {
    fullPassRequested.set(true);
  }

  /** Whether a full pass is requested. */
  boolean fullPassPending() {
    return fullPassRequested.get();
  }

  /** Whether a full pass was requested; clears the request. */
  boolean takeFullPassRequest() {
    return fullPassRequested.getAndSet(false);
  }
}

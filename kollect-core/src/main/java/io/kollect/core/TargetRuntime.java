package io.kollect.core;

import io.kollect.informers.LabelSelectorMatcher;

import io.kollect.informers.InformerLease;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The mutable state the engine keeps for one target. Everything but {@link #definition}, {@link
 * #dirty}, the full-pass request and the counters is guarded by this object's monitor, which a
 * pass holds throughout; the work queue already guarantees one pass per target at a time, the
 * monitor orders it against removal.
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
  volatile Definition definition;
  /** Set once, under the monitor, by removal; a reconcile that sees it does nothing. */
  boolean removed;

  /** Leases per resource type of the profile, in the resolved scope. */
  final Map<ResourceType, InformerLease> leases = new HashMap<>();
  /** The lease on {@code v1/Namespace} that resolves a namespace selector, if any. */
  InformerLease namespaceLease;

  /**
   * Objects changed since they were last read, with their latest event (latest wins). Written by
   * informer threads without the monitor, drained by delta passes; a full pass reads everything
   * and clears it.
   */
  final ConcurrentHashMap<ObjectKey, ResourceEvent> dirty = new ConcurrentHashMap<>();
  /** Whether the next pass must be a full pass; set by whatever a delta cannot judge. */
  private final AtomicBoolean fullPassRequested = new AtomicBoolean(true);

  /** What the target holds per object: memo, desired set, counts and errors in one. */
  final TargetRecords records = new TargetRecords();
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

  final AtomicLong reconciles = new AtomicLong();

  TargetRuntime(Definition definition) {
    this.id = definition.spec().id();
    this.definition = definition;
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

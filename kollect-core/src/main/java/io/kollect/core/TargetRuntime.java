package io.kollect.core;

import io.kollect.informers.LabelSelectorMatcher;

import io.kollect.extract.Record;
import io.kollect.informers.InformerLease;
import io.kollect.informers.ResourceType;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The mutable state the engine keeps for one target. Everything but {@link #spec} and the counters
 * is guarded by this object's monitor, which a reconcile holds throughout; the work queue already
 * guarantees one reconcile per target at a time, the monitor orders it against removal.
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

  /** Records of unchanged objects, reused across reconciles. */
  final ExtractionMemo memo = new ExtractionMemo();
  /** The last desired record set by key; what the in-memory inventory view holds for the target. */
  Map<String, Record> desired = Map.of();
  /** Content hashes by key last handed to the exporter, or {@code null} when none were. */
  Map<String, String> exportedHashes;
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
}

package io.kollect.core;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * A suspended target ({@link TargetSpec#suspend()}): nothing is read (its leases are released
 * and its scope leaves the index, so no event reaches it) and nothing is exported, but its
 * records and the exporter's state stay, so resuming (a full pass) sends only what changed
 * meanwhile. Its status is {@code Ready=False} reason {@code Suspended}, counts as last reported.
 */
final class TargetSuspension {

  static final String REASON_SUSPENDED = "Suspended";

  private TargetSuspension() {}

  /** Pauses the target (caller holds its monitor) and gives its status. */
  static TargetStatus pause(TargetRuntime rt, TargetIndex index, Instant now) {
    LeasePlan.closeAll(rt);
    index.putScope(rt.id, Set.of(), Set.of());
    rt.dirty.clear();
    rt.context = null;
    rt.requestFullPass(); // resuming re-reads the whole scope
    TargetStatus previous = rt.status;
    StatusBuilder b = new StatusBuilder(rt, rt.definition.spec(), now);
    b.notReady(REASON_SUSPENDED, "suspended (spec.suspend): nothing is read or exported; "
        + rt.records.size() + " objects are kept, and resuming sends only what changed");
    if (previous != null) {
      previous.skipped().forEach(b::skipped);
    }
    return b.build(previous == null ? Map.of() : previous.objectCounts(), previous);
  }
}

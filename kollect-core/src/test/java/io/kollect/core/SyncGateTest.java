package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sync gate alone, over leases that only report a status. */
class SyncGateTest {

  static final ResourceType CM = new ResourceType("", "v1", "ConfigMap");
  static final ResourceType CRD = new ResourceType("x.io", "v1", "Thing");

  private final TargetRuntime rt = new TargetRuntime(TargetRuntime.Definition.of(new TargetSpec(
      new TargetId("ns", "t"), 1, "p", TargetScope.everything(), List.of(), false)));

  @Test
  void theGateOpensOnlyWhenEveryServedTypeIsSyncedAndANotServedTypeCountsAsSettled() {
    SyncGate gate = new SyncGate(TenantBoundary.off(), LeaseSignals.FROM_LEASE_STATUS);
    Map<ResourceType, InformerLease> leases = new LinkedHashMap<>();
    leases.put(CM, EmptyLease.reporting(new LeaseStatus(CM, true, false, List.of())));
    leases.put(CRD, EmptyLease.reporting(new LeaseStatus(CRD, false, false, List.of(
        new LeaseStatus.Skipped("*", LeaseStatus.Skipped.NOT_SERVED, "no such type")))));
    StatusBuilder status = new StatusBuilder(rt, rt.spec(), Instant.EPOCH);
    SyncGate.Verdict waiting = gate.check(leases, null, true, status);
    assertThat(waiting.open()).isFalse();
    assertThat(waiting.unsynced()).containsExactly("v1/ConfigMap");
    assertThat(status.skipped).extracting(SkippedScope::resource).containsExactly("x.io/v1/Thing");

    leases.put(CM, EmptyLease.reporting(new LeaseStatus(CM, true, true, List.of(), 3, List.of(
        new LeaseStatus.Stalled("ns", Instant.EPOCH, "liveness: no data for 75 s")))));
    StatusBuilder again = new StatusBuilder(rt, rt.spec(), Instant.EPOCH);
    SyncGate.Verdict open = gate.check(leases, null, true, again);
    assertThat(open.open()).isTrue();
    assertThat(open.access()).containsKeys(CM, CRD);
    assertThat(again.build(Map.of(), null).condition(Condition.DEGRADED).reason())
        .isEqualTo("WatchStalled");
  }
}

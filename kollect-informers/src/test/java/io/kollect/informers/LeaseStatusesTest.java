package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.informers.ApiDiscovery.TypeInfo;
import io.kollect.informers.LeaseStatus.Skipped;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a lease reports, from informer states that are plain values; no cluster. */
class LeaseStatusesTest {

  private static final TypeInfo SERVED = new TypeInfo(true, "configmaps", true, null);
  private static final ObjectProjection DATA_A = ObjectProjection.of(List.of(List.of("data", "a")));
  private static final Instant NOW = Instant.parse("2026-11-24T06:00:00Z");

  private record Informer(String scope, ObjectProjection projection, boolean synced,
      WatchLiveness.Stall stalled) implements InformerSet.Member {
    @Override
    public void activate() {}

    @Override
    public void retire() {}

    @Override
    public WatchLiveness.Stall stall(Instant now) {
      return stalled;
    }
  }

  private static LeaseStatus status(LeaseRequest lease, Map<String, Informer> active,
      Map<String, Informer> pending, List<Skipped> skipped) {
    return LeaseStatuses.of(Fixtures.CONFIG_MAP, lease, true, SERVED, 3, active, pending, skipped,
        p -> p.covers(lease.keepPaths()), NOW);
  }

  private static LeaseRequest tenant(String namespace, List<List<String>> paths) {
    return new LeaseRequest(Fixtures.CONFIG_MAP, Set.of(namespace), null, Set.of(), paths);
  }

  @Test
  void aLeaseIsSyncedWhenTheActiveInformerOfItsNamespaceListedUnderAProjectionKeepingItsPaths() {
    LeaseRequest a = tenant("a", List.of(List.of("data", "a")));
    Map<String, Informer> active = Map.of("*", new Informer("*", DATA_A, true, null));
    assertThat(status(a, active, Map.of(), List.of()).synced()).isTrue();
    // a lease reading data.b waits for the informer that keeps it
    LeaseRequest b = tenant("a", List.of(List.of("data", "b")));
    assertThat(status(b, active, Map.of(), List.of()).synced()).isFalse();
    assertThat(status(a, Map.of("a", new Informer("a", DATA_A, false, null)), Map.of(), List.of())
        .synced()).isFalse();
  }

  @Test
  void aLeaseSeesItsOwnForbiddenNamespacesAndStallsOnly() {
    LeaseRequest a = tenant("a", null);
    WatchLiveness.Stall stall = new WatchLiveness.Stall(NOW.minusSeconds(90), "liveness: no data");
    LeaseStatus s = status(a, Map.of("a", new Informer("a", ObjectProjection.full(), true, stall),
            "b", new Informer("b", ObjectProjection.full(), true, stall)), Map.of(),
        List.of(new Skipped("a", Skipped.FORBIDDEN, "no"), new Skipped("c", Skipped.FORBIDDEN, "no"),
            new Skipped("*", Skipped.FORBIDDEN, "cluster-wide")));
    assertThat(s.skipped()).extracting(Skipped::namespace).containsExactly("a");
    assertThat(s.stalled()).extracting(LeaseStatus.Stalled::namespace).containsExactly("a");
    assertThat(s.synced()).isTrue();
    assertThat(s.projectionVersion()).isEqualTo(3);
  }

  @Test
  void anUnplannedLeaseIsNotSyncedAndANotServedTypeCountsAsSynced() {
    LeaseRequest a = tenant("a", null);
    assertThat(LeaseStatuses.of(Fixtures.CONFIG_MAP, a, false, SERVED, 0, Map.of(), Map.of(),
        List.of(), p -> true, NOW).synced()).isFalse();
    LeaseStatus notServed = LeaseStatuses.of(Fixtures.CONFIG_MAP, a, true,
        TypeInfo.notServed("no such kind"), 0, Map.of(), Map.of(),
        List.of(new Skipped("*", Skipped.NOT_SERVED, "no such kind")), p -> true, NOW);
    assertThat(notServed.synced()).isTrue();
    assertThat(notServed.served()).isFalse();
  }
}

package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.export.DeliveryStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterStatusMergeTest {

  private static final TargetId ID = new TargetId("fleet", "t");
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String DEPLOY = "apps/v1/Deployment";

  private static TargetStatus unit(boolean ready, String reason, String message, int objects,
      Map<String, DeliveryStatus> deliveries, Condition... more) {
    List<Condition> conditions = new java.util.ArrayList<>(List.of(
        new Condition(Condition.READY, ready ? "True" : "False", reason, message, T0),
        new Condition(Condition.DEGRADED, "False", "Reconciled", "all parts of the target work",
            T0)));
    conditions.addAll(List.of(more));
    return new TargetStatus(ID, 3, conditions, Map.of(DEPLOY, objects), List.of(), T0, 0,
        List.of(), deliveries);
  }

  private static ClusterHealth health(ClusterHealth.State state, String reason, String message) {
    return new ClusterHealth("x", state, reason, message, "v1.20.2", List.of(DEPLOY), 1, T0);
  }

  @Test
  void everyReadyClusterMakesTheTargetReadyWithCountsSummedAndOnePartEach() {
    TargetStatus s = ClusterStatusMerge.merge(ID, 3, List.of(
        new ClusterStatusMerge.Part("east", unit(true, "Reconciled", "2 objects", 2, Map.of()),
            Optional.of(health(ClusterHealth.State.CONNECTED, "Connected", "connected"))),
        new ClusterStatusMerge.Part("west", unit(true, "Reconciled", "3 objects", 3, Map.of()),
            Optional.empty())), null, T0);

    assertThat(s.ready()).isTrue();
    assertThat(s.observedGeneration()).isEqualTo(3);
    assertThat(s.objectCounts()).containsExactly(Map.entry(DEPLOY, 5));
    assertThat(s.clusters()).containsExactly(
        new TargetStatus.ClusterPart("east", true, 2, "Reconciled", "2 objects"),
        new TargetStatus.ClusterPart("west", true, 3, "Reconciled", "3 objects"));
    assertThat(s.condition(Condition.DEGRADED).status()).isEqualTo("False");
  }

  @Test
  void anUnreachableClusterMakesItsPartAndTheTargetNotReadyNamingItAndKeepsItsCount() {
    TargetStatus s = ClusterStatusMerge.merge(ID, 3, List.of(
        new ClusterStatusMerge.Part("east", unit(true, "Reconciled", "2 objects", 2, Map.of()),
            Optional.of(health(ClusterHealth.State.UNREACHABLE, "Unreachable",
                "watch silent past its liveness window"))),
        new ClusterStatusMerge.Part("west", unit(true, "Reconciled", "3 objects", 3, Map.of()),
            Optional.empty())), null, T0);

    assertThat(s.ready()).isFalse();
    Condition ready = s.condition(Condition.READY);
    assertThat(ready.reason()).isEqualTo("Unreachable");
    assertThat(ready.message()).startsWith("cluster east: watch silent").doesNotContain("west");
    assertThat(s.condition(Condition.DEGRADED).status()).isEqualTo("True");
    assertThat(s.condition(Condition.DEGRADED).reason()).isEqualTo("Unreachable");
    assertThat(s.clusters().get(0)).satisfies(p -> {
      assertThat(p.ready()).isFalse();
      assertThat(p.reason()).isEqualTo("Unreachable");
      assertThat(p.objects()).isEqualTo(2);
    });
    assertThat(s.clusters().get(1).ready()).isTrue();
    assertThat(s.objectCounts()).containsEntry(DEPLOY, 5);
  }

  @Test
  void conditionsTrueInAnyClusterAreTrueWithTheMostImportantReasonAndEachClusterNamed() {
    Condition sinkMissing = new Condition(Condition.DEGRADED, "True", "SinkNotFound",
        "sink s not found", T0);
    TargetStatus east = new TargetStatus(ID, 3, List.of(
        new Condition(Condition.READY, "True", "Reconciled", "", T0),
        new Condition(Condition.DEGRADED, "True", "Forbidden", "Secrets forbidden", T0)),
        Map.of(), List.of(), null, 0, List.of(), Map.of());
    TargetStatus west = new TargetStatus(ID, 3, List.of(
        new Condition(Condition.READY, "True", "Reconciled", "", T0), sinkMissing),
        Map.of(), List.of(), null, 0, List.of(), Map.of());
    TargetStatus s = ClusterStatusMerge.merge(ID, 3, List.of(
        new ClusterStatusMerge.Part("east", east, Optional.empty()),
        new ClusterStatusMerge.Part("west", west, Optional.empty())), null, T0);
    Condition degraded = s.condition(Condition.DEGRADED);
    assertThat(degraded.reason()).isEqualTo("SinkNotFound");
    assertThat(degraded.message())
        .isEqualTo("cluster west: sink s not found; cluster east: Secrets forbidden");
  }

  @Test
  void deliveriesSumPendingAndKeepTheLatestAcknowledgementAndTheLongestFailure() {
    Instant later = T0.plusSeconds(5);
    TargetStatus s = ClusterStatusMerge.merge(ID, 3, List.of(
        new ClusterStatusMerge.Part("east", unit(true, "Reconciled", "", 1,
            Map.of("s", new DeliveryStatus(T0, 2, 0, null, null, List.of()))), Optional.empty()),
        new ClusterStatusMerge.Part("west", unit(true, "Reconciled", "", 1,
            Map.of("s", new DeliveryStatus(later, 3, 2, T0, "HTTP 503", List.of()))),
            Optional.empty())), null, T0);
    assertThat(s.deliveries()).containsOnlyKeys("s");
    DeliveryStatus d = s.deliveries().get("s");
    assertThat(d.pending()).isEqualTo(5);
    assertThat(d.lastAcknowledged()).isEqualTo(later);
    assertThat(d.consecutiveFailures()).isEqualTo(2);
    assertThat(d.lastError()).isEqualTo("HTTP 503");
  }

  @Test
  void aConditionKeepsItsTransitionTimeWhileItsStatusStays() {
    List<ClusterStatusMerge.Part> parts = List.of(new ClusterStatusMerge.Part("east",
        unit(true, "Reconciled", "", 1, Map.of()), Optional.empty()));
    TargetStatus first = ClusterStatusMerge.merge(ID, 3, parts, null, T0);
    TargetStatus second = ClusterStatusMerge.merge(ID, 3, parts, first, T0.plusSeconds(60));
    assertThat(second.condition(Condition.READY).lastTransitionTime()).isEqualTo(T0);
  }
}

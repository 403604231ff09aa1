package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Condition;
import io.kollect.operator.crd.KollectTargetStatus.ClusterEntry;
import io.kollect.operator.crd.KollectTargetStatus.ShardEntry;
import io.kollect.operator.crd.SkippedEntry;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.targets.CrTranslation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the aggregator makes of the shards' entries (a pure function of entries and N),
 * and which shard aggregates.
 */
class ShardStatusesTest {

  private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

  private static ShardEntry ready(int index, int objects, long generation) {
    return new ShardEntry(index, "True", "Reconciled", objects + " objects in scope", objects,
        Map.of("v1/ConfigMap", objects), generation, null);
  }

  private static ShardEntry notReady(int index, String reason, String message) {
    return new ShardEntry(index, "False", reason, message, 1, Map.of("v1/ConfigMap", 1), 1L,
        null);
  }

  private static KollectTargetStatus own(String ready, String reason) {
    List<Condition> conditions = new ArrayList<>();
    conditions.add(CrTranslation.condition("Ready", ready, reason, reason, NOW, 1));
    conditions.add(CrTranslation.condition("Degraded", "False", "Reconciled", "ok", NOW, 1));
    if (!"True".equals(ready)) {
      conditions.add(CrTranslation.condition("Stalled", "True", reason, reason, NOW, 1));
    }
    return new KollectTargetStatus(1L, conditions, Map.of("v1/ConfigMap", 4), List.of(),
        "2026-11-24T11:00:00Z", 4, null, null, null);
  }

  private static Condition condition(KollectTargetStatus s, String type) {
    return s.conditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
  }

  @Test
  void everyShardReadyAtTheCurrentGenerationMakesTheTargetReadyWithTheSumOfTheirObjects() {
    var all = ShardStatuses.aggregate(List.of(ready(0, 4, 2), ready(2, 5, 2), ready(1, 6, 2)), 3,
        2);

    assertThat(all.ready()).isTrue();
    assertThat(all.objects()).isEqualTo(15);
    assertThat(all.objectCounts()).isEqualTo(Map.of("v1/ConfigMap", 15));
    assertThat(all.message()).isEqualTo("15 objects in scope in 3 shards");
  }

  @Test
  void aShardThatNeverReportedIsNamedAndTheTargetIsNotReady() {
    var all = ShardStatuses.aggregate(List.of(ready(0, 4, 1), ready(1, 6, 1)), 3, 1);

    assertThat(all.ready()).isFalse();
    assertThat(all.message()).isEqualTo("1 of 3 shards not ready: shard 2: no status yet");
    assertThat(all.objects()).as("the shards that reported").isEqualTo(10);
  }

  @Test
  void aNotReadyShardIsNamedWithItsReasonAndMessageInIndexOrder() {
    var all = ShardStatuses.aggregate(List.of(notReady(1, "SinkDeliveryFailing",
        "sink hook: connection refused"), ready(0, 4, 1)), 3, 1);

    assertThat(all.message()).isEqualTo("2 of 3 shards not ready: shard 1: SinkDeliveryFailing: "
        + "sink hook: connection refused; shard 2: no status yet");
    assertThat(all.stalled()).as("a failing sink is stalled (kstatus), as unsharded").isNotNull()
        .extracting(ShardEntry::index).isEqualTo(1);
  }

  @Test
  void aReadyShardOfAnOlderGenerationIsNotReadyYet() {
    var all = ShardStatuses.aggregate(List.of(ready(0, 4, 2), ready(1, 6, 1)), 2, 2);

    assertThat(all.ready()).isFalse();
    assertThat(all.message()).isEqualTo("1 of 2 shards not ready: shard 1: at generation 1, "
        + "not yet 2");
    assertThat(all.stalled()).isNull();
  }

  @Test
  void entriesOfShardsBeyondTheTotalAreNeitherCountedNorAwaited() {
    var all = ShardStatuses.aggregate(List.of(ready(0, 4, 1), ready(1, 6, 1),
        notReady(2, "NotSynced", "listing")), 2, 1);

    assertThat(all.ready()).isTrue();
    assertThat(all.objects()).isEqualTo(10);
  }

  @Test
  void manyShardsNotReadyAreNamedUpToALimitAndCountedBeyond() {
    var all = ShardStatuses.aggregate(List.of(), 8, 1);

    assertThat(all.message()).startsWith("8 of 8 shards not ready: shard 0: no status yet; ")
        .endsWith("shard 4: no status yet; and 3 more");
  }

  @Test
  void theLatestExportOfAnyShardIsTheTargetsLastExport() {
    var all = ShardStatuses.aggregate(List.of(
        new ShardEntry(0, "True", "R", "m", 1, Map.of(), 1L, "2026-11-24T10:00:00Z"),
        new ShardEntry(1, "True", "R", "m", 1, Map.of(), 1L, "2026-11-24T11:30:00Z"),
        new ShardEntry(2, "True", "R", "m", 1, Map.of(), 1L, null)), 3, 1);

    assertThat(all.lastExportTime()).isEqualTo("2026-11-24T11:30:00Z");
  }

  @Test
  void theTopLevelUsesShardZerosFreshEntryKeepsTheStoredListAndDropsRemovedShards() {
    List<ShardEntry> stored = List.of(ready(1, 6, 1), notReady(0, "NotSynced", "listing"),
        ready(2, 9, 1));

    KollectTargetStatus top = ShardStatuses.topLevel(own("True", "Reconciled"), stored,
        ready(0, 4, 1), 2, 1, List.of(), NOW);

    assertThat(top.objects()).isEqualTo(10);
    assertThat(top.objectCounts()).isEqualTo(Map.of("v1/ConfigMap", 10));
    assertThat(condition(top, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(top, "Ready").getMessage()).isEqualTo("10 objects in scope in 2 shards");
    assertThat(top.shards()).as("stored order, shard 2 dropped, entries as their shards wrote them")
        .containsExactly(ready(1, 6, 1), notReady(0, "NotSynced", "listing"));
    assertThat(condition(top, "Degraded")).as("shard 0's other conditions stay").isNotNull();
  }

  private static ShardEntry withClusters(ShardEntry e, List<ClusterEntry> clusters,
      List<SkippedEntry> skipped) {
    return new ShardEntry(e.index(), e.ready(), e.reason(), e.message(), e.objects(),
        e.objectCounts(), e.observedGeneration(), e.lastExportTime(), clusters, skipped);
  }

  @Test
  void theTopLevelClustersAndSkippedMergeEveryShardsEntryNotTheAggregatorsOwnView() {
    // split by cluster: shard 0 (the aggregator) reads the local cluster only; shard 1 reads
    // its part of the local cluster and all of "west", and cannot read Secrets in "shop"
    KollectTargetStatus mine = new KollectTargetStatus(1L, own("True", "Reconciled").conditions(),
        Map.of("v1/ConfigMap", 3), List.of(), null, 3, null, null,
        List.of(new ClusterEntry("it", true, 3, "ready")));
    SkippedEntry secrets = new SkippedEntry("v1/Secret", "shop", "forbidden", "no list");
    ShardEntry zero = ShardStatuses.entry(0, mine);
    ShardEntry one = withClusters(ready(1, 7, 1), List.of(new ClusterEntry("it", true, 2,
        "ready"), new ClusterEntry("west", true, 5, "ready")), List.of(secrets));

    KollectTargetStatus top = ShardStatuses.topLevel(mine, List.of(one), zero, 2, 1, List.of(),
        NOW);

    assertThat(top.clusters()).containsExactly(new ClusterEntry("it", true, 5, "ready"),
        new ClusterEntry("west", true, 5, "ready"));
    assertThat(top.skipped()).containsExactly(secrets);
    assertThat(top.objects()).isEqualTo(10);
  }

  @Test
  void aClusterIsReadyAtTheTopOnlyWhenEveryShardsPartOfItIsAndSaysWhyNot() {
    ShardEntry zero = withClusters(ready(0, 1, 1),
        List.of(new ClusterEntry("west", true, 1, "ready")), null);
    ShardEntry one = withClusters(ready(1, 1, 1),
        List.of(new ClusterEntry("west", false, 1, "Unreachable: connection refused")),
        List.of());
    assertThat(ShardStatuses.clusters(List.of(one, zero)))
        .containsExactly(new ClusterEntry("west", false, 2, "Unreachable: connection refused"));
    assertThat(ShardStatuses.clusters(List.of(ready(0, 1, 1)))).isNull();
    assertThat(ShardStatuses.skipped(List.of(zero, one))).isNull();
  }

  @Test
  void aShardWithNoPartOfTheTargetWritesAReadyEntryWithZeroCountsAndTheTargetBecomesReady() {
    // split by cluster, a shard that owns none of the target's clusters: the engine reports the
    // target Ready with nothing in it
    KollectTargetStatus nothing = new KollectTargetStatus(1L, own("True", "Reconciled")
        .conditions(), Map.of(), List.of(), null, null, null, null, null);
    ShardEntry empty = ShardStatuses.entry(1, nothing);
    assertThat(empty.ready()).isEqualTo("True");
    assertThat(empty.objects()).isZero();
    assertThat(empty.objectCounts()).isEmpty();
    assertThat(empty.observedGeneration()).isEqualTo(1L);

    var all = ShardStatuses.aggregate(List.of(ready(0, 4, 1), empty), 2, 1);
    assertThat(all.ready()).isTrue();
    assertThat(all.objects()).isEqualTo(4);
  }

  @Test
  void theTopLevelIsNotReadyAndReconcilingWhileAShardIsMissing() {
    KollectTargetStatus top = ShardStatuses.topLevel(own("True", "Reconciled"),
        List.of(ready(0, 4, 1)), ready(0, 4, 1), 2, 1, List.of(), NOW);

    Condition readyCondition = condition(top, "Ready");
    assertThat(readyCondition.getStatus()).isEqualTo("False");
    assertThat(readyCondition.getReason()).isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
    assertThat(readyCondition.getMessage()).contains("shard 1: no status yet");
    assertThat(condition(top, "Reconciling").getReason())
        .isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
    assertThat(condition(top, "Stalled")).isNull();
    assertThat(top.objects()).isEqualTo(4);
  }

  @Test
  void theTopLevelIsStalledWhenAShardsProblemIsOneARetryDoesNotFix() {
    KollectTargetStatus top = ShardStatuses.topLevel(own("False", "ProfileNotFound"),
        List.of(), notReady(0, "ProfileNotFound", "no profile p"), 2, 1, List.of(), NOW);

    assertThat(condition(top, "Ready").getReason())
        .isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
    assertThat(condition(top, "Stalled").getReason()).isEqualTo("ProfileNotFound");
    assertThat(condition(top, "Reconciling")).isNull();
    assertThat(top.conditions()).filteredOn(c -> c.getType().equals("Stalled")).hasSize(1);
  }

  @Test
  void theReadyTransitionTimeIsKeptWhileItsStatusDoesNotChange() {
    Instant earlier = Instant.parse("2026-11-24T09:00:00Z");
    List<Condition> previous = List.of(CrTranslation.condition("Ready", "False",
        ShardStatuses.REASON_SHARDS_NOT_READY, "old", earlier, 1));

    KollectTargetStatus top = ShardStatuses.topLevel(own("True", "Reconciled"), List.of(),
        ready(0, 4, 1), 2, 1, previous, NOW);

    assertThat(condition(top, "Ready").getLastTransitionTime()).isEqualTo("2026-11-24T09:00:00Z");
  }

  @Test
  void aShardsEntryIsItsReadyConditionAndCountsAsItWouldWriteThemUnsharded() {
    ShardEntry e = ShardStatuses.entry(2, own("True", "Reconciled"));

    assertThat(e).isEqualTo(new ShardEntry(2, "True", "Reconciled", "Reconciled", 4,
        Map.of("v1/ConfigMap", 4), 1L, "2026-11-24T11:00:00Z"));
    assertThat(ShardStatuses.fieldManager(2)).isEqualTo("kollect-shard-2");
  }

  @Test
  void aShardWithoutLeaderIsNotReadyWhateverItsEntrySaysAndItsLastCountsStillCount() {
    String why = "no leader since 2026-11-24T11:59:00Z (Lease kollect-leader-shard-1 expired)";

    var all = ShardStatuses.aggregate(List.of(ready(0, 4, 2), ready(1, 6, 2)), 2, 2,
        Map.of(1, why));

    assertThat(all.ready()).isFalse();
    assertThat(all.message()).isEqualTo("1 of 2 shards not ready: shard 1: " + why
        + ", its last counts still summed");
    assertThat(all.objects()).as("shard 1's last entry").isEqualTo(10);
    assertThat(all.stalled()).as("no leader is not a problem a retry cannot fix").isNull();
  }

  @Test
  void aShardWithoutLeaderNorEntryIsNamedByItsLease() {
    var all = ShardStatuses.aggregate(List.of(ready(0, 4, 1)), 2, 1,
        Map.of(1, "no leader (Lease kollect-leader-shard-1 not found)"));

    assertThat(all.message()).isEqualTo(
        "1 of 2 shards not ready: shard 1: no leader (Lease kollect-leader-shard-1 not found)");
  }

  @Test
  void theTopLevelNamesAShardWithoutLeaderButNeverTheWritersOwnShard() {
    Map<Integer, String> down = Map.of(0, "no leader (Lease kollect-leader-shard-0 not found)",
        1, "no leader since 2026-11-24T11:59:00Z (Lease kollect-leader-shard-1 released)");

    KollectTargetStatus top = ShardStatuses.topLevel(own("True", "Reconciled"),
        List.of(ready(1, 6, 1)), ready(0, 4, 1), 2, 1, List.of(), NOW, down);

    assertThat(condition(top, "Ready").getStatus()).isEqualTo("False");
    assertThat(condition(top, "Ready").getMessage()).isEqualTo("1 of 2 shards not ready: shard 1: "
        + "no leader since 2026-11-24T11:59:00Z (Lease kollect-leader-shard-1 released), "
        + "its last counts still summed");
    assertThat(condition(top, "Reconciling").getReason())
        .isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
    assertThat(top.objects()).isEqualTo(10);
  }

  @Test
  void theLowestIndexShardWithALeaderAggregatesAndAShardNeverCountsItselfDown() {
    assertThat(ShardStatuses.aggregates(0, 3, Set.of())).as("shard 0 runs").isTrue();
    assertThat(ShardStatuses.aggregates(1, 3, Set.of())).isFalse();
    assertThat(ShardStatuses.aggregates(2, 3, Set.of())).isFalse();

    assertThat(ShardStatuses.aggregates(1, 3, Set.of(0))).as("shard 0 down: shard 1 takes over")
        .isTrue();
    assertThat(ShardStatuses.aggregates(2, 3, Set.of(0))).isFalse();
    assertThat(ShardStatuses.aggregates(2, 3, Set.of(0, 1))).as("0 and 1 down").isTrue();
    assertThat(ShardStatuses.aggregates(1, 3, Set.of(0, 1))).as("it runs this code").isTrue();
    assertThat(ShardStatuses.aggregates(0, 3, Set.of(0))).as("shard 0 judged by another's view")
        .isTrue();
    assertThat(ShardStatuses.aggregates(2, 3, Set.of(1))).as("shard 0 runs, 1 down").isFalse();
    assertThat(ShardStatuses.aggregates(0, 1, Set.of())).as("unsharded").isTrue();
  }

  @Test
  void anAggregatorChoiceForAnIndexOutsideTheShardsNamesTheIndex() {
    assertThatThrownBy(() -> ShardStatuses.aggregates(2, 2, Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("shard index 2 is not in 0..1");
  }

  @Test
  void twoAggregatorsComputeTheSameTopLevelFromTheSameStoredStatus() {
    // A hand-over: shard 0 came back while shard 1 still aggregates. Each has its own engine's
    // transition times; the stored ones win, so neither rewrites what the other wrote.
    List<Condition> stored = List.of(
        CrTranslation.condition("Ready", "True", "Reconciled", "x", NOW.minusSeconds(600), 1),
        CrTranslation.condition("Degraded", "False", "Reconciled", "ok", NOW.minusSeconds(600),
            1));
    List<ShardEntry> entries = List.of(ready(0, 4, 1), ready(1, 6, 1));

    KollectTargetStatus byZero = ShardStatuses.topLevel(own("True", "Reconciled"), entries,
        ready(0, 4, 1), 2, 1, stored, NOW);
    KollectTargetStatus ownOfOne = own("True", "Reconciled");
    List<Condition> laterConditions = new ArrayList<>();
    for (Condition c : ownOfOne.conditions()) {
      laterConditions.add(new io.fabric8.kubernetes.api.model.ConditionBuilder(c)
          .withLastTransitionTime(CrTranslation.rfc3339(NOW.plusSeconds(7))).build());
    }
    KollectTargetStatus byOne = ShardStatuses.topLevel(new KollectTargetStatus(
        ownOfOne.observedGeneration(), laterConditions, ownOfOne.objectCounts(),
        ownOfOne.skipped(), ownOfOne.lastExportTime(), ownOfOne.objects(), null, null, null),
        entries, ready(1, 6, 1), 2, 1, stored, NOW.plusSeconds(3));

    assertThat(byOne).isEqualTo(byZero);
    assertThat(condition(byOne, "Degraded").getLastTransitionTime())
        .isEqualTo(CrTranslation.rfc3339(NOW.minusSeconds(600)));
  }
}

package io.kollect.operator.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.core.Condition;
import io.kollect.core.TargetId;
import io.kollect.core.TargetStatus;
import io.kollect.operator.inventory.InventoryObjectSink;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.shard.ShardStatuses;
import io.kollect.operator.status.CoalescedWrites;
import io.kollect.operator.status.StatusWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class TargetStatusesTest {

  private static final TargetId ID = new TargetId("ns", "t");
  private static final Instant NOW = Instant.parse("2024-05-01T10:00:00Z");

  private record Scheduled(Runnable task, long delayNanos) {}

  private final List<Scheduled> scheduled = new ArrayList<>();
  private final List<Object> written = new ArrayList<>();
  private final AtomicBoolean leader = new AtomicBoolean(true);
  private final TargetStatuses statuses = new TargetStatuses(
      new CoalescedWrites<>(Duration.ofSeconds(10),
          (task, delay) -> scheduled.add(new Scheduled(task, delay)), () -> 0L),
      new StatusWriter(new StatusWriter.Api() {
        @Override
        public GenericKubernetesResource putStatus(GenericKubernetesResource object) {
          written.add(object.getAdditionalProperties().get("status"));
          return object;
        }

        @Override
        public GenericKubernetesResource get(GenericKubernetesResource object) {
          return object;
        }
      }, new KubernetesSerialization(), Runnable::run),
      new OperatorMetrics(), new InventoryObjectSink(null, id -> Optional.empty(), 1024),
      id -> Optional.of(cachedTarget()), leader::get, Clock.fixed(NOW, ZoneOffset.UTC));

  private static GenericKubernetesResource cachedTarget() {
    GenericKubernetesResource o = new GenericKubernetesResource();
    o.setApiVersion("kollect.io/v1alpha1");
    o.setKind("KollectTarget");
    o.setMetadata(new ObjectMetaBuilder().withNamespace("ns").withName("t")
        .withResourceVersion("1").build());
    return o;
  }

  private static TargetStatus status(String ready, String reason) {
    return new TargetStatus(ID, 1, List.of(new Condition("Ready", ready, reason, reason, NOW)),
        Map.of("v1/ConfigMap", 1), List.of(), null);
  }

  private void runScheduled() {
    List<Scheduled> due = List.copyOf(scheduled);
    scheduled.clear();
    due.forEach(s -> s.task().run());
  }

  @SuppressWarnings("unchecked")
  private static String readyReason(Object status) {
    List<Map<String, Object>> conditions = (List<Map<String, Object>>) ((Map<String, Object>) status)
        .get("conditions");
    return conditions.stream().filter(c -> "Ready".equals(c.get("type")))
        .map(c -> (String) c.get("reason")).findFirst().orElseThrow();
  }

  @Test
  void aTargetThatSyncsQuicklyCostsOneWriteOfItsSettledStatus() {
    statuses.onStatus(status("False", "NotSynced"));
    assertThat(scheduled).singleElement().extracting(Scheduled::delayNanos)
        .isEqualTo(Duration.ofSeconds(10).toNanos());
    statuses.onStatus(status("True", "Reconciled"));
    runScheduled();
    assertThat(written).singleElement().extracting(TargetStatusesTest::readyReason)
        .isEqualTo("Reconciled");
  }

  @Test
  void aTargetStillSyncingAfterAnIntervalHasThatWritten() {
    statuses.onStatus(status("False", "NotSynced"));
    runScheduled();
    assertThat(written).singleElement().extracting(TargetStatusesTest::readyReason)
        .isEqualTo("NotSynced");
  }

  @Test
  void aProblemIsWrittenAtOnce() {
    statuses.onStatus(status("False", "ProfileNotFound"));
    assertThat(scheduled).singleElement().extracting(Scheduled::delayNanos).isEqualTo(0L);
  }

  /** Statuses of shard {@code index} of 2, recording each API call as "APPLY manager" or "PUT". */
  private TargetStatuses shard(int index, List<String> calls) {
    return shard(index, calls, Map::of);
  }

  /** The same, told which shards have no leader by {@code downShards}. */
  private TargetStatuses shard(int index, List<String> calls,
      java.util.function.Supplier<Map<Integer, String>> downShards) {
    return new TargetStatuses(
        new CoalescedWrites<>(Duration.ofSeconds(10),
            (task, delay) -> scheduled.add(new Scheduled(task, delay)), () -> 0L),
        new StatusWriter(new StatusWriter.Api() {
          @Override
          public GenericKubernetesResource putStatus(GenericKubernetesResource object) {
            calls.add("PUT");
            written.add(object.getAdditionalProperties().get("status"));
            return object;
          }

          @Override
          public GenericKubernetesResource get(GenericKubernetesResource object) {
            return object;
          }

          @Override
          public GenericKubernetesResource applyStatus(GenericKubernetesResource partial,
              String fieldManager) {
            calls.add("APPLY " + fieldManager);
            GenericKubernetesResource after = cachedTarget();
            after.getMetadata().setResourceVersion("2");
            after.setAdditionalProperty("status", partial.getAdditionalProperties().get("status"));
            return after;
          }
        }, new KubernetesSerialization(), Runnable::run),
        new OperatorMetrics(), new InventoryObjectSink(null, id -> Optional.empty(), 1024),
        new TargetStatuses.Sources(id -> Optional.of(cachedTarget()), leader::get, id -> null,
            downShards), Clock.fixed(NOW, ZoneOffset.UTC), new io.kollect.core.Shard(2, index));
  }

  @Test
  void aShardOtherThanZeroAppliesOnlyItsOwnEntryAndNoTopLevelWhileShardZeroRuns() {
    List<String> calls = new ArrayList<>();
    TargetStatuses one = shard(1, calls);
    one.onStatus(status("True", "Reconciled"));
    runScheduled();
    one.shardsChanged(ID);

    assertThat(calls).containsExactly("APPLY kollect-shard-1");
    assertThat(scheduled).as("another shard's entry is shard 0's business").isEmpty();
  }

  @Test
  void shardZeroAppliesItsEntryThenWritesTheTopLevelFromTheAppliedObject() {
    List<String> calls = new ArrayList<>();
    TargetStatuses zero = shard(0, calls);
    zero.onStatus(status("True", "Reconciled"));
    runScheduled();

    assertThat(calls).containsExactly("APPLY kollect-shard-0", "PUT");
    assertThat(readyReason(written.get(0))).as("shard 1 has not reported")
        .isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> shards = (List<Map<String, Object>>)
        ((Map<String, Object>) written.get(0)).get("shards");
    assertThat(shards).as("the PUT carries the entry the apply stored").singleElement()
        .satisfies(e -> assertThat(e).containsEntry("index", 0));

    zero.shardsChanged(ID);
    assertThat(scheduled).as("another shard's entry changed: the top level is written again")
        .hasSize(1);
  }

  @SuppressWarnings("unchecked")
  private static String readyMessage(Object status) {
    List<Map<String, Object>> conditions = (List<Map<String, Object>>) ((Map<String, Object>) status)
        .get("conditions");
    return conditions.stream().filter(c -> "Ready".equals(c.get("type")))
        .map(c -> (String) c.get("message")).findFirst().orElseThrow();
  }

  @Test
  void shardZeroNamesAShardWithoutLeaderAndWritesAgainWhenLivenessChanges() {
    List<String> calls = new ArrayList<>();
    String why = "no leader since 2024-05-01T09:59:00Z (Lease kollect-leader-shard-1 expired)";
    TargetStatuses zero = shard(0, calls, () -> Map.of(1, why));
    zero.onStatus(status("True", "Reconciled"));
    runScheduled();

    assertThat(readyMessage(written.get(0))).as("rather than 'no status yet'")
        .endsWith("; shard 1: " + why);

    zero.livenessChanged();
    assertThat(scheduled).as("a shard stopped or came back: the top level is written again")
        .hasSize(1);
  }

  @Test
  void aShardThatDoesNotAggregateIgnoresAnotherShardsLiveness() {
    TargetStatuses one = shard(1, new ArrayList<>());
    one.onStatus(status("True", "Reconciled"));
    runScheduled();
    one.livenessChanged();

    assertThat(scheduled).isEmpty();
  }

  @Test
  void aStandbyWritesNothingButKnowsTheStatus() {
    leader.set(false);
    statuses.onStatus(status("True", "Reconciled"));
    runScheduled();
    assertThat(written).isEmpty();
    assertThat(statuses.status(ID)).isPresent();
    assertThat(statuses.reportedWhileLeading(ID)).isFalse();
  }

  @Test
  void shardOneWritesTheTopLevelNamingShardZeroWhileShardZeroHasNoLeaderAndStopsWhenItLeads() {
    List<String> calls = new ArrayList<>();
    String why = "no leader since 2024-05-01T09:59:00Z (Lease kollect-leader-shard-0 expired)";
    Map<Integer, String> down = new java.util.concurrent.ConcurrentHashMap<>();
    TargetStatuses one = shard(1, calls, () -> Map.copyOf(down));
    one.onStatus(status("True", "Reconciled"));
    runScheduled();
    assertThat(calls).containsExactly("APPLY kollect-shard-1");

    down.put(0, why);
    one.livenessChanged();
    assertThat(scheduled).as("it is the aggregator now: every target's top level is written")
        .hasSize(1);
    runScheduled();
    assertThat(calls).as("its unchanged entry is not applied again").containsExactly(
        "APPLY kollect-shard-1", "PUT");
    assertThat(readyMessage(written.get(written.size() - 1))).contains("shard 0: " + why);

    one.shardsChanged(ID);
    assertThat(scheduled).as("another shard's entry changed: the aggregator writes again")
        .hasSize(1);
    runScheduled();

    down.clear();
    calls.clear();
    one.livenessChanged();
    one.shardsChanged(ID);
    assertThat(scheduled).as("shard 0 leads again: it is shard 0's business").isEmpty();
    one.onStatus(status("False", "ProfileNotFound"));
    runScheduled();
    assertThat(calls).as("its own entry only").containsExactly("APPLY kollect-shard-1");
  }
}

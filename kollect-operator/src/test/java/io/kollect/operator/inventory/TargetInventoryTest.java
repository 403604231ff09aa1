package io.kollect.operator.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.core.ClientJson;
import io.kollect.core.TargetId;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import io.kollect.operator.crd.KollectInventorySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetInventoryTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private static TargetInventory inventory() {
    return new TargetInventory(new TargetId("ns", "t"), 10_000, 5_000);
  }

  @Test
  void aRecordTooLargeForAnObjectIsLeftOutAndReportedWithItsObjectAndSize() {
    TargetInventory inv = inventory();
    inv.apply(List.of(InventoryObjectSinkTest.rec("small", 10), InventoryObjectSinkTest.rec("huge", 6_000)));

    assertThat(inv.snapshot().records()).extracting(r -> r.json().get("name").asText())
        .containsExactly("small");
    InventoryHealth health = inv.health();
    assertThat(health.records()).isEqualTo(1);
    assertThat(health.rejected()).singleElement().satisfies(r -> {
      assertThat(r.object()).isEqualTo("Deployment ns/huge");
      assertThat(r.bytes()).isGreaterThan(6_000);
      assertThat(r.reason()).contains("at most 5000");
    });
  }

  @Test
  void aRejectedRecordComesBackWhenALaterStateFitsAndIsForgottenWhenDeleted() {
    TargetInventory inv = inventory();
    inv.apply(List.of(InventoryObjectSinkTest.rec("a", 6_000), InventoryObjectSinkTest.rec("b", 6_000)));
    assertThat(inv.health().rejected()).hasSize(2);

    inv.apply(List.of(InventoryObjectSinkTest.rec("a", 10), delete(InventoryObjectSinkTest.rec("b", 1))));

    assertThat(inv.health().rejected()).isEmpty();
    assertThat(inv.snapshot().records()).extracting(r -> r.json().get("name").asText()).containsExactly("a");
  }

  @Test
  void aStateThatGrowsTooLargeReplacesNoStubAndDropsTheOlderState() {
    TargetInventory inv = inventory();
    inv.apply(List.of(InventoryObjectSinkTest.rec("a", 10)));
    inv.apply(List.of(InventoryObjectSinkTest.rec("a", 6_000)));
    assertThat(inv.snapshot().records()).isEmpty();
    assertThat(inv.health().rejected()).hasSize(1);
  }

  @Test
  void changesStayPendingUntilAWriteThatIncludedThemSucceeds() {
    TargetInventory inv = inventory();
    inv.apply(List.of(InventoryObjectSinkTest.rec("a", 1), InventoryObjectSinkTest.rec("b", 1)));
    TargetInventory.Snapshot first = inv.snapshot();
    inv.apply(List.of(InventoryObjectSinkTest.rec("c", 1)));
    assertThat(inv.health().pending()).isEqualTo(3);

    inv.succeeded(first, List.of(), T0);

    assertThat(inv.health().pending()).isEqualTo(1);
    assertThat(inv.snapshot().records()).extracting(TargetInventory.Sized::key).hasSize(3);
  }

  @Test
  void oneFailedAttemptIsAHiccupButThreeInARowOrAMinuteIsFailing() {
    TargetInventory inv = inventory();
    inv.failed("boom", T0);
    assertThat(inv.health().failing(T0.plusSeconds(1))).isFalse();
    assertThat(inv.health().failing(T0.plus(InventoryHealth.FAILING_AFTER))).isTrue();
    inv.failed("boom", T0.plusSeconds(1));
    inv.failed("boom again", T0.plusSeconds(2));
    assertThat(inv.health().failing(T0.plusSeconds(2))).isTrue();
    assertThat(inv.health().lastError()).isEqualTo("boom again");

    inv.succeeded(inv.snapshot(), List.of(), T0.plusSeconds(3));
    assertThat(inv.health().failing(T0.plus(Duration.ofHours(1)))).isFalse();
    assertThat(inv.health().consecutiveFailures()).isZero();
  }

  @Test
  void recordsAppliedBeforeTheExistingPartsAreLoadedWin() {
    TargetInventory inv = inventory();
    inv.apply(List.of(InventoryObjectSinkTest.rec("a", 20), delete(InventoryObjectSinkTest.rec("b", 1))));
    List<KollectInventorySpec> existing = TargetInventory.split("t", List.of(
        sized(InventoryObjectSinkTest.rec("a", 1)), sized(InventoryObjectSinkTest.rec("b", 1)),
        sized(InventoryObjectSinkTest.rec("c", 1))), 10_000);

    inv.load(existing);

    assertThat(inv.snapshot().records()).extracting(r -> r.json().get("name").asText())
        .containsExactly("a", "c");
    assertThat(inv.snapshot().records().get(0).json().get("fields").get("pad").asText()).hasSize(20);
  }

  @Test
  void aServerRefusalOfSeveralRecordsHalvesThePartSize() {
    TargetInventory inv = inventory();
    inv.shrinkParts(8_000);
    assertThat(inv.snapshot().partLimit()).isEqualTo(4_000);
  }

  private static TargetInventory.Sized sized(Record r) {
    var json = (tools.jackson.databind.node.ObjectNode) ClientJson.toClient(Records.toTree(r));
    return new TargetInventory.Sized(r.key(), json, TargetInventory.size(json));
  }

  private static Record delete(Record r) {
    return new Record(io.kollect.extract.Op.DELETE, r.cluster(), r.target(), r.profile(),
        r.resource(), r.namespace(), r.name(), r.uid(), r.resourceVersion(), r.observedAt(),
        r.contentHash(), java.util.Map.of(), java.util.Map.of(), java.util.Map.of());
  }

  @Test
  void readingBackInventoryObjectsDropsTheRecordsOfObjectsTheShardNoLongerOwns() {
    TargetInventory inv = new TargetInventory(new TargetId("ns", "t"), 10_000, 5_000);
    List<tools.jackson.databind.JsonNode> records = List.of(
        ClientJson.toClient(Records.toTree(InventoryObjectSinkTest.rec("kept", 10))),
        ClientJson.toClient(Records.toTree(InventoryObjectSinkTest.rec("moved", 10))));
    inv.load(List.of(new KollectInventorySpec("t", 0, 1, 2, records)),
        r -> !r.name().equals("moved"));
    assertThat(inv.snapshot().records()).extracting(r -> r.json().get("name").asText())
        .containsExactly("kept");
  }
}

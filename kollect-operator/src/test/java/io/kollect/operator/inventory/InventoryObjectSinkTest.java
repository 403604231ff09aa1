package io.kollect.operator.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kollect.core.ClientJson;
import io.kollect.core.TargetId;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import io.kollect.operator.crd.KollectInventorySpec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

public class InventoryObjectSinkTest {

  private static ObjectNode record(String name, int padding) {
    return Records.toTree(rec(name, padding));
  }

  public static Record rec(String name, int padding) {
    return new Record(Op.UPSERT, "c", "ns/t", "p", new GroupVersionKind("apps", "v1", "Deployment"),
        "ns", name, "uid", "1", Instant.EPOCH, "hash",
        Map.of("pad", Records.mapper().getNodeFactory().textNode("x".repeat(padding))), Map.of(), Map.of());
  }

  private static List<KollectInventorySpec> split(TreeMap<String, ObjectNode> state, int limit) {
    return TargetInventory.split("t", state.entrySet().stream()
        .map(e -> (tools.jackson.databind.node.ObjectNode) ClientJson.toClient(e.getValue()))
        .map(json -> new TargetInventory.Sized(Records.fromJson(json.toString()).key(), json,
            TargetInventory.size(json)))
        .toList(), limit);
  }

  @Test
  void recordsAreCutIntoOrderedPartsUnderTheSizeLimit() {
    TreeMap<String, ObjectNode> state = new TreeMap<>();
    for (int i = 0; i < 50; i++) {
      ObjectNode r = record(String.format("d%03d", i), 900);
      state.put(Records.fromJson(r.toString()).key(), r);
    }
    List<KollectInventorySpec> parts = split(state, 10_000);
    assertThat(parts.size()).isGreaterThan(4);
    int total = 0;
    String previous = "";
    for (int i = 0; i < parts.size(); i++) {
      KollectInventorySpec p = parts.get(i);
      assertThat(p.part()).isEqualTo(i);
      assertThat(p.parts()).isEqualTo(parts.size());
      assertThat(p.target()).isEqualTo("t");
      assertThat(p.recordCount()).isEqualTo(p.records().size());
      long bytes = p.records().stream()
          .mapToLong(n -> n.toString().getBytes(StandardCharsets.UTF_8).length + 1).sum();
      assertThat(bytes).isLessThanOrEqualTo(10_000);
      for (tools.jackson.databind.JsonNode n : p.records()) {
        assertThat(n.get("name").asText()).isGreaterThan(previous);
        previous = n.get("name").asText();
      }
      total += p.records().size();
    }
    assertThat(total).isEqualTo(50);
  }

  @Test
  void anEmptyInventoryIsOnePartWithNoRecords() {
    List<KollectInventorySpec> parts = split(new TreeMap<>(), 10_000);
    assertThat(parts).singleElement().satisfies(p -> {
      assertThat(p.recordCount()).isZero();
      assertThat(p.parts()).isEqualTo(1);
    });
  }

  @Test
  void aRecordLargerThanAPartGetsAPartOfItsOwn() {
    TreeMap<String, ObjectNode> state = new TreeMap<>();
    state.put("a", record("a", 10));
    state.put("b", record("b", 5_000));
    state.put("c", record("c", 10));
    List<KollectInventorySpec> parts = split(state, 1_000);
    assertThat(parts).extracting(KollectInventorySpec::recordCount).containsExactly(1, 1, 1);
  }

  @Test
  void onlySizeRefusalsCountAsTooLarge() {
    assertThat(InventoryObjectSink.tooLarge(new io.fabric8.kubernetes.client.KubernetesClientException(
        "Request entity too large: limit is 3145728", 413, null))).isTrue();
    assertThat(InventoryObjectSink.tooLarge(new io.fabric8.kubernetes.client.KubernetesClientException(
        "etcdserver: request is too large", 500, null))).isTrue();
    assertThat(InventoryObjectSink.tooLarge(new io.fabric8.kubernetes.client.KubernetesClientException(
        "etcdserver: leader changed", 500, null))).isFalse();
    assertThat(InventoryObjectSink.tooLarge(new io.fabric8.kubernetes.client.KubernetesClientException(
        "forbidden", 403, null))).isFalse();
  }

  @Test
  void longTargetNamesGetAValidStableLabelValue() {
    assertThat(InventoryObjectSink.targetLabel("shop")).isEqualTo("shop");
    String longName = "a".repeat(200);
    String label = InventoryObjectSink.targetLabel(longName);
    assertThat(label).hasSizeLessThanOrEqualTo(63).startsWith("sha-")
        .isEqualTo(InventoryObjectSink.targetLabel(longName))
        .isNotEqualTo(InventoryObjectSink.targetLabel("b".repeat(200)));
  }
}

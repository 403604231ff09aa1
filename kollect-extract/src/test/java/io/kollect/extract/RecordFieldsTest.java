package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A record's fields as held in memory (field names shared, text held as its string) read back,
 * serialise, compare and hash exactly as the map of nodes they were made from.
 */
class RecordFieldsTest {

  private static final GroupVersionKind CM = new GroupVersionKind("", "v1", "ConfigMap");

  private static Map<String, JsonNode> mixedFields() {
    ObjectNode selector = JsonNodeFactory.instance.objectNode().put("app", "shop");
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    fields.put("image", TextNode.valueOf("shop:1.2"));
    fields.put("replicas", IntNode.valueOf(3));
    fields.put("selector", selector);
    fields.put("owner", NullNode.getInstance());
    fields.put("gone", null);
    fields.put("empty", TextNode.valueOf(""));
    return fields;
  }

  private static Record record(Map<String, JsonNode> fields) {
    return new Record(Op.UPSERT, "c1", "ns/t1", "p", CM, "shop", "checkout", "uid-1", "7",
        Instant.parse("2024-05-01T12:00:00Z"), "h", fields, Map.of("app", "shop"), Map.of());
  }

  @Test
  void aTextFieldReadsBackAsTheTextNodeItWasGiven() {
    Record r = record(mixedFields());

    assertThat(r.fields().get("image")).isInstanceOf(TextNode.class)
        .isEqualTo(TextNode.valueOf("shop:1.2"));
    assertThat(r.fields().get("empty")).isEqualTo(TextNode.valueOf(""));
    assertThat(r.fields().get("replicas")).isEqualTo(IntNode.valueOf(3));
    assertThat(r.fields().get("owner")).isSameAs(NullNode.getInstance());
    assertThat(r.fields().get("gone")).isNull();
    assertThat(r.fields().containsKey("gone")).isTrue();
    assertThat(new ArrayList<>(r.fields().values())).containsExactly(TextNode.valueOf("shop:1.2"),
        IntNode.valueOf(3), mixedFields().get("selector"), NullNode.getInstance(), null,
        TextNode.valueOf(""));
    List<String> seen = new ArrayList<>();
    r.fields().forEach((k, v) -> seen.add(k + "=" + v));
    assertThat(seen).containsExactly("image=\"shop:1.2\"", "replicas=3",
        "selector={\"app\":\"shop\"}", "owner=null", "gone=null", "empty=\"\"");
  }

  @Test
  void fieldsOfTextNumberObjectAndNullCompareHashAndPrintAsThePlainMapTheyCameFrom() {
    Map<String, JsonNode> source = mixedFields();
    Record r = record(source);

    assertThat(r.fields()).isEqualTo(source).hasSameHashCodeAs(source);
    assertThat(source).isEqualTo(r.fields());
    assertThat(r.fields()).hasToString(source.toString());
    assertThat(r.fields()).isNotEqualTo(Map.of("image", TextNode.valueOf("shop:1.3")));
    // map equality ignores order, as it did: a record from a HashMap of the same values is equal
    Record unordered = record(new HashMap<>(source));
    assertThat(unordered).isEqualTo(r).hasSameHashCodeAs(r);
    Map<String, JsonNode> changed = mixedFields();
    changed.put("image", TextNode.valueOf("shop:1.3"));
    assertThat(record(changed)).isNotEqualTo(r);
  }

  @Test
  void theJsonFormAndContentHashOfMixedFieldsAreUnchanged() {
    Record r = record(mixedFields());

    assertThat(Records.toJsonLine(r)).contains("\"fields\":{\"image\":\"shop:1.2\",\"replicas\":3,"
        + "\"selector\":{\"app\":\"shop\"},\"owner\":null,\"gone\":null,\"empty\":\"\"},"
        + "\"labels\":{\"app\":\"shop\"},\"annotations\":{}}");
    assertThat(Records.contentHash(CM, "shop", "checkout", r.fields(), r.labels(), r.annotations()))
        .isEqualTo("6766174990225982310ca892681e52bb9707c5f7d207361abbe833baf59e3ec0");
  }

  @Test
  void aTextValueIsHeldAsItsStringAndOtherNodesAsThemselves() {
    Map<String, JsonNode> source = mixedFields();
    FrozenMap<?> held = (FrozenMap<?>) record(source).fields();

    assertThat(held.heldValue(0)).isEqualTo("shop:1.2");
    assertThat(held.heldValue(1)).isSameAs(source.get("replicas"));
    assertThat(held.heldValue(2)).isSameAs(source.get("selector"));
    assertThat(held.heldValue(3)).isSameAs(NullNode.getInstance());
    assertThat(held.heldValue(4)).isNull();
    assertThat(held.heldValue(5)).isEqualTo("");
  }

  @Test
  void recordsOfOneProfileRuleShareOneArrayOfFieldNames() {
    CompiledProfile profile = TestObjects.profile("""
        resources:
          - version: v1
            kind: ConfigMap
            fields:
              - name: a
                path: .data.a
              - name: b
                path: .data.b
        """);
    Record first = profile.extract(configMap("one", "x1", "y1"), TestObjects.CTX).orElseThrow();
    Record second = profile.extract(configMap("two", "x2", "y2"), TestObjects.CTX).orElseThrow();
    Record onlyA = profile.extract(configMap("three", "x3", null), TestObjects.CTX).orElseThrow();

    String[] names = ((FrozenMap<?>) first.fields()).heldKeys();
    assertThat(names).containsExactly("a", "b");
    assertThat(((FrozenMap<?>) second.fields()).heldKeys()).isSameAs(names);
    // a record built by hand (as a deserialised one is) with the same names shares them too
    Record byHand = record(new LinkedHashMap<>(Map.of("a", TextNode.valueOf("x1"))));
    assertThat(((FrozenMap<?>) byHand.fields()).heldKeys())
        .isSameAs(((FrozenMap<?>) onlyA.fields()).heldKeys()).containsExactly("a");
    assertThat(second.fields().get("b")).isEqualTo(TextNode.valueOf("y2"));
  }

  private static JsonNode configMap(String name, String a, String b) {
    ObjectNode cm = JsonNodeFactory.instance.objectNode().put("apiVersion", "v1")
        .put("kind", "ConfigMap");
    cm.putObject("metadata").put("name", name).put("namespace", "ns");
    ObjectNode data = cm.putObject("data").put("a", a);
    if (b != null) {
      data.put("b", b);
    }
    return cm;
  }
}

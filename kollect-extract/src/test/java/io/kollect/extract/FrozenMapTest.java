package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class FrozenMapTest {

  @Test
  void keepsTheSourceOrderAndAnswersLikeTheMapItCopied() {
    Map<String, String> source = new LinkedHashMap<>();
    source.put("zeta", "1");
    source.put("alpha", "2");
    source.put("mid", null);
    Map<String, String> frozen = FrozenMap.of(source);

    assertThat(List.copyOf(frozen.keySet())).containsExactly("zeta", "alpha", "mid");
    assertThat(frozen).isEqualTo(source).hasSameHashCodeAs(source);
    assertThat(frozen.get("alpha")).isEqualTo("2");
    assertThat(frozen.containsKey("mid")).isTrue();
    assertThat(frozen.get("nope")).isNull();
    assertThat(new TreeMap<>(frozen)).isEqualTo(new TreeMap<>(source));
  }

  @Test
  void isACopyThatNoOneCanChange() {
    Map<String, String> source = new HashMap<>(Map.of("a", "1"));
    Map<String, String> frozen = FrozenMap.of(source);
    source.put("b", "2");

    assertThat(frozen).containsOnlyKeys("a");
    assertThatThrownBy(() -> frozen.put("c", "3")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> frozen.entrySet().iterator().next().setValue("x"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void recordsDerivedFromARecordShareItsMapsAndEmptyMapsAreTheSharedEmptyMap() {
    Record r = new Record(Op.UPSERT, "c", "t", "p", new GroupVersionKind("", "v1", "ConfigMap"),
        "ns", "n", "uid", "1", Instant.EPOCH, "h", Map.<String, JsonNode>of("a", IntNode.valueOf(1)),
        new HashMap<>(), null);

    Record sequenced = r.withSequence(7);

    assertThat(sequenced.fields()).isSameAs(r.fields());
    assertThat(r.labels()).isSameAs(Map.of());
    assertThat(r.annotations()).isSameAs(Map.of());
    assertThat(sequenced).isEqualTo(new Record(Op.UPSERT, "c", "t", "p",
        new GroupVersionKind("", "v1", "ConfigMap"), "ns", "n", "uid", "1", Instant.EPOCH, "h",
        Map.of("a", IntNode.valueOf(1)), Map.of(), Map.of(), 7L));
  }

  @Test
  void answersEveryMapQueryAsTheLinkedHashMapItCopied() {
    Map<String, String> source = new LinkedHashMap<>();
    source.put("b", "2");
    source.put("a", null);
    source.put("c", "3");
    Map<String, String> frozen = FrozenMap.of(source);

    assertThat(frozen.isEmpty()).isFalse();
    assertThat(frozen.keySet()).isEqualTo(source.keySet()).contains("a").doesNotContain("z");
    assertThat(List.copyOf(frozen.entrySet())).isEqualTo(List.copyOf(source.entrySet()));
    assertThat(new java.util.ArrayList<>(frozen.values())).containsExactly("2", null, "3");
    assertThat(frozen.containsValue("3")).isTrue();
    assertThat(frozen.containsValue(null)).isTrue();
    assertThat(frozen.containsValue("4")).isFalse();
    assertThat(frozen.getOrDefault("a", "x")).isNull();
    assertThat(frozen.getOrDefault("z", "x")).isEqualTo("x");
    assertThat(frozen).hasToString(source.toString());
    assertThat(frozen).isNotEqualTo(Map.of("b", "2", "z", "0", "c", "3"));
    Map<String, String> otherNull = new HashMap<>(source);
    otherNull.remove("a");
    otherNull.put("z", null);
    assertThat(frozen).isNotEqualTo(otherNull);
    assertThat(frozen.equals(new TreeMap<>(Map.of(1, "2", 2, "3", 3, "4")))).isFalse();
    assertThatThrownBy(() -> frozen.remove("b")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(frozen::clear).isInstanceOf(UnsupportedOperationException.class);
  }
}

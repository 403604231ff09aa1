package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FixtureTest {

  @Test
  void aConfigMapHasTwoDataKeysOfAboutOneHundredBytesAndOneLabel() throws Exception {
    JsonNode cm = PlainApi.JSON.readTree(Fixture.configMapJson(42));
    assertThat(cm.path("metadata").path("namespace").asText()).isEqualTo("bench-02");
    assertThat(cm.path("metadata").path("labels").size()).isEqualTo(1);
    int bytes = 0;
    for (var e : (Iterable<java.util.Map.Entry<String, JsonNode>>) cm.path("data")::fields) {
      bytes += e.getKey().length() + e.getValue().asText().length();
    }
    assertThat(cm.path("data").size()).isEqualTo(2);
    assertThat(bytes).isBetween(95, 110);
  }

  @Test
  void ownedObjectsShareTheirOwnerTenToANamespaceAndUnownedOnesHaveNone() throws Exception {
    JsonNode first = owner(42);
    // the next object of the same namespace, and the first of the next group of ten there
    assertThat(owner(42 + Fixture.NAMESPACES)).isEqualTo(first);
    assertThat(owner(42 + Fixture.NAMESPACES * Fixture.OBJECTS_PER_OWNER)).isNotEqualTo(first);
    assertThat(first.path("kind").asText()).isEqualTo("ReplicaSet");
    assertThat(first.path("controller").asBoolean()).isTrue();
    assertThat(first.path("uid").asText()).hasSize(36);
    assertThat(PlainApi.JSON.readTree(Fixture.configMapJson(42)).path("metadata").has("ownerReferences"))
        .isFalse();
    // an owner reference leaves the data alone: the profile's fields read the same
    assertThat(PlainApi.JSON.readTree(Fixture.configMapJson(42, Fixture.OBJECTS_PER_OWNER)).path("data"))
        .isEqualTo(PlainApi.JSON.readTree(Fixture.configMapJson(42)).path("data"));
  }

  @Test
  void withOneObjectPerOwnerNoTwoObjectsShareAnOwner() throws Exception {
    java.util.Set<JsonNode> owners = new java.util.HashSet<>();
    for (int i = 0; i < 200; i++) {
      owners.add(owner(i, 1));
    }
    assertThat(owners).hasSize(200);
  }

  private static JsonNode owner(int index) throws Exception {
    return owner(index, Fixture.OBJECTS_PER_OWNER);
  }

  private static JsonNode owner(int index, int objectsPerOwner) throws Exception {
    JsonNode owners = PlainApi.JSON.readTree(Fixture.configMapJson(index, objectsPerOwner))
        .path("metadata").path("ownerReferences");
    assertThat(owners.size()).isEqualTo(1);
    return owners.get(0);
  }

  @Test
  void aStampSurvivesTheRoundTripIncludingNegativeNanoTimes() {
    for (long stamp : new long[] {1L, 123_456_789_012L, -5L, Long.MIN_VALUE}) {
      assertThat(Fixture.parseStamp(Fixture.stampText(stamp))).isEqualTo(stamp);
    }
    assertThat(Fixture.parseStamp("")).isZero();
    assertThat(Fixture.parseStamp(Fixture.stampText(0))).isZero();
  }

  @Test
  void aTargetWithANamespaceIsScopedToIt() throws Exception {
    JsonNode t = new ObjectMapper(new YAMLFactory()).readTree(
        Fixture.targetYaml("t-0001", List.of("bench-http"), "bench-01"));
    assertThat(t.path("spec").path("scope").path("namespaces").get(0).asText()).isEqualTo("bench-01");
    assertThat(t.path("spec").path("sinkRefs").get(0).asText()).isEqualTo("bench-http");
    assertThat(t.path("spec").path("writeInventory").asBoolean(true)).isFalse();
    JsonNode all = new ObjectMapper(new YAMLFactory()).readTree(Fixture.targetYaml("bench", List.of("a", "b"), null));
    assertThat(all.path("spec").has("scope")).isFalse();
    assertThat(all.path("spec").path("sinkRefs")).hasSize(2);
  }

  @Test
  void goDurationsAsTheOperatorFlagsTakeThem() {
    assertThat(GoDurations.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(GoDurations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> GoDurations.parse("5 minutes"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProfileDiffTest {

  private static final GroupVersionKind DEPLOY = new GroupVersionKind("apps", "v1", "Deployment");

  private static Record record(String name, Map<String, JsonNode> fields,
      Map<String, String> labels, Map<String, String> annotations) {
    return record(DEPLOY, name, fields, labels, annotations);
  }

  private static Record record(GroupVersionKind gvk, String name, Map<String, JsonNode> fields,
      Map<String, String> labels, Map<String, String> annotations) {
    return new Record(Op.UPSERT, "c1", "ns/t", "p", gvk, "ns", name, "uid-" + name, "1",
        Instant.parse("2024-05-01T12:00:00Z"),
        Records.contentHash(gvk, "ns", name, fields, labels, annotations),
        fields, labels, annotations);
  }

  private static Record simple(String name, int replicas) {
    return record(name, Map.of("replicas", IntNode.valueOf(replicas)), Map.of(), Map.of());
  }

  @Test
  void sameContentIsNoChangeButCountsObjectsAndBytes() {
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(5);
    acc.add(simple("a", 1), simple("a", 1), false);
    acc.add(null, null, false);

    ProfileDiff d = acc.result();
    assertThat(d.objects()).isEqualTo(2);
    assertThat(d.added() + d.removed() + d.changed() + d.errors()).isZero();
    assertThat(d.differs()).isFalse();
    assertThat(d.samples()).isEmpty();
    // observedAt 2024-05-01T12:00:00Z counts as 2024-05-01T12:00:00.000000000Z: ten more
    long oneLine = Records.toJsonLine(simple("a", 1)).getBytes(
        java.nio.charset.StandardCharsets.UTF_8).length + 10;
    assertThat(d.bytesBaseline()).isEqualTo(oneLine);
    assertThat(d.bytesCandidate()).isEqualTo(oneLine);
  }

  @Test
  void aRecordsSizeDoesNotDependOnHowManyDigitsItsObservedAtFractionHas() {
    Record r = simple("a", 1);
    long[] sizes = java.util.stream.Stream.of("2024-05-01T12:00:00Z", "2024-05-01T12:00:00.100Z",
            "2024-05-01T12:00:00.000100Z", "2024-05-01T12:00:00.000000100Z")
        .map(Instant::parse)
        .mapToLong(at -> ProfileDiff.jsonSize(new Record(r.op(), r.cluster(), r.target(),
            r.profile(), r.resource(), r.namespace(), r.name(), r.uid(), r.resourceVersion(), at,
            r.contentHash(), r.fields(), r.labels(), r.annotations())))
        .toArray();
    assertThat(sizes).containsOnly(Records.toJsonLine(r).getBytes(
        java.nio.charset.StandardCharsets.UTF_8).length + 10L);
  }

  @Test
  void countsAddedRemovedAndChangedWithTheDifferingFieldsByName() {
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(5);
    acc.add(null, simple("added", 1), false);
    acc.add(simple("removed", 1), null, false);
    acc.add(record("changed", Map.of("replicas", IntNode.valueOf(1), "image",
            TextNode.valueOf("a:1")), Map.of("app", "x", "tier", "web"), Map.of("note", "old")),
        record("changed", Map.of("replicas", IntNode.valueOf(3), "image",
            TextNode.valueOf("a:1")), Map.of("app", "y"), Map.of("note", "old", "new", "n")),
        false);

    ProfileDiff d = acc.result();
    assertThat(d.added()).isEqualTo(1);
    assertThat(d.removed()).isEqualTo(1);
    assertThat(d.changed()).isEqualTo(1);
    assertThat(d.fieldChanges()).containsOnly(Map.entry("replicas", 1L),
        Map.entry("labels.app", 1L), Map.entry("labels.tier", 1L),
        Map.entry("annotations.new", 1L));
    assertThat(d.differs()).isTrue();

    ProfileDiff.ChangedRecord changed = d.samples().stream()
        .filter(c -> c.key().endsWith("/changed")).findFirst().orElseThrow();
    assertThat(changed.before()).containsOnly(Map.entry("replicas", IntNode.valueOf(1)),
        Map.entry("labels.app", TextNode.valueOf("x")),
        Map.entry("labels.tier", TextNode.valueOf("web")));
    assertThat(changed.after()).containsOnly(Map.entry("replicas", IntNode.valueOf(3)),
        Map.entry("labels.app", TextNode.valueOf("y")),
        Map.entry("annotations.new", TextNode.valueOf("n")));
    ProfileDiff.ChangedRecord added = d.samples().stream()
        .filter(c -> c.key().endsWith("/added")).findFirst().orElseThrow();
    assertThat(added.before()).isEmpty();
    assertThat(added.after()).containsKey("replicas");
    ProfileDiff.ChangedRecord removed = d.samples().stream()
        .filter(c -> c.key().endsWith("/removed")).findFirst().orElseThrow();
    assertThat(removed.after()).isEmpty();
  }

  @Test
  void aFailedCandidateIsAnErrorAndRemovesWhatTheBaselineSent() {
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(5);
    acc.add(simple("a", 1), null, true);
    acc.add(null, null, true);

    ProfileDiff d = acc.result();
    assertThat(d.errors()).isEqualTo(2);
    assertThat(d.removed()).isEqualTo(1);
    assertThat(d.differs()).isTrue();
  }

  @Test
  void onlyAnApiVersionChangeIsReportedAsResource() {
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(5);
    Map<String, JsonNode> fields = Map.of("replicas", IntNode.valueOf(1));
    acc.add(record(DEPLOY, "a", fields, Map.of(), Map.of()),
        record(new GroupVersionKind("apps", "v2", "Deployment"), "a", fields, Map.of(), Map.of()),
        false);

    assertThat(acc.result().fieldChanges()).containsOnly(Map.entry("resource", 1L));
  }

  @Test
  void scrubHitsCountMaskedValuesOfTheCandidate() {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    fields.put("env", TestObjects.yaml("[{name: PASSWORD, value: '" + Scrubber.MASK
        + "'}, {name: TOKEN, value: '" + Scrubber.MASK + "'}, {name: MODE, value: prod}]"));
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(5);
    acc.add(simple("a", 1), record("a", fields, Map.of(),
        Map.of("secret", Scrubber.MASK, "plain", "x")), false);

    assertThat(acc.result().scrubHits()).isEqualTo(3);
  }

  @Test
  void samplesKeepTheSmallestKeysWhateverTheOrderOfAddsAndMerges() {
    ProfileDiff.Accumulator forward = ProfileDiff.accumulator(2);
    for (String n : new String[] {"d", "a", "c", "b"}) {
      forward.add(simple(n, 1), simple(n, 2), false);
    }
    ProfileDiff.Accumulator shardOne = ProfileDiff.accumulator(2);
    shardOne.add(simple("c", 1), simple("c", 2), false);
    shardOne.add(simple("d", 1), simple("d", 2), false);
    ProfileDiff.Accumulator shardTwo = ProfileDiff.accumulator(2);
    shardTwo.add(simple("b", 1), simple("b", 2), false);
    shardTwo.add(simple("a", 1), simple("a", 2), false);
    ProfileDiff.Accumulator merged = ProfileDiff.accumulator(2);
    merged.merge(shardOne.result());
    merged.merge(shardTwo.result());

    assertThat(forward.result().samples()).extracting(ProfileDiff.ChangedRecord::key)
        .containsExactly("apps/Deployment/ns/a", "apps/Deployment/ns/b");
    assertThat(merged.result()).isEqualTo(forward.result());
    assertThat(merged.result().changed()).isEqualTo(4);
    assertThat(merged.result().fieldChanges()).containsOnly(Map.entry("replicas", 4L));
  }

  @Test
  void aNegativeSampleSizeIsRefusedNamingTheArgument() {
    assertThatThrownBy(() -> ProfileDiff.accumulator(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("samples:");
  }
}

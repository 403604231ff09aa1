package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.RecordContext;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.ResourceType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The per-target state alone: reuse of entries, incremental counts and errors. */
class TargetRecordsTest {

  static final ResourceType DEPLOY = new ResourceType("apps", "v1", "Deployment");
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final RecordContext ctx = new RecordContext("c", "ns/t", Instant.EPOCH);
  private final TargetRecords records = new TargetRecords();
  private int conversions;
  private final RecordExtractor extractor = new RecordExtractor(obj -> {
    conversions++;
    return ClientJson.toTree(serialization, obj);
  });

  static CompiledProfile profile(String... fields) {
    return ProfileCompiler.compile("p", new ProfileSpec(List.of(new ResourceRule("apps", "v1",
        "Deployment", java.util.Arrays.stream(fields).map(f -> FieldRule.of(f, ".spec." + f))
        .toList(), List.of(), List.of(), List.of(), false, false))));
  }

  static GenericKubernetesResource deployment(String name, String rv, int replicas) {
    return new GenericKubernetesResourceBuilder().withApiVersion("apps/v1").withKind("Deployment")
        .withNewMetadata().withName(name).withNamespace("ns").withResourceVersion(rv)
        .withUid("uid-" + name).endMetadata()
        .addToAdditionalProperties("spec", Map.of("replicas", replicas, "paused", false)).build();
  }

  private Record apply(TargetRecords.Stamp stamp, GenericKubernetesResource obj) {
    ObjectKey key = ObjectKey.of(DEPLOY, "ns", obj.getMetadata().getName());
    new RecordChanges().apply(records, key, extractor.entry(records, key, obj, stamp, ctx));
    return records.get(key).record();
  }

  @Test
  void anObjectIsExtractedAgainOnlyWhenItsResourceVersionProjectionOrProfileChanges() {
    CompiledProfile p = profile("replicas");
    TargetRecords.Stamp s1 = records.stamp(DEPLOY, p, 1, 0);
    Record first = apply(s1, deployment("a", "1", 1));
    assertThat(apply(s1, deployment("a", "1", 1))).isSameAs(first);
    assertThat(conversions).isEqualTo(1);
    assertThat(apply(s1, deployment("a", "2", 5)).fields().get("replicas").asInt()).isEqualTo(5);
    assertThat(conversions).isEqualTo(2);
    // The same resourceVersion under another projection, or another profile version.
    apply(records.stamp(DEPLOY, p, 2, 0), deployment("a", "2", 5));
    apply(records.stamp(DEPLOY, p, 2, 7), deployment("a", "2", 5));
    apply(records.stamp(DEPLOY, profile("replicas", "paused"), 2, 7), deployment("a", "2", 5));
    assertThat(conversions).isEqualTo(5);
    assertThat(records.extractions()).isEqualTo(5);
    // An object without a version is never reused.
    apply(s1, deployment("b", null, 1));
    apply(s1, deployment("b", null, 1));
    assertThat(conversions).isEqualTo(7);
  }

  @Test
  void aRecordWhoseContentDidNotChangeKeepsItsInstanceAndIsNotAChange() {
    CompiledProfile p = profile("replicas");
    TargetRecords.Stamp s = records.stamp(DEPLOY, p, 1, 0);
    Record first = apply(s, deployment("a", "1", 1));
    ObjectKey key = ObjectKey.of(DEPLOY, "ns", "a");
    RecordChanges changes = new RecordChanges();
    changes.apply(records, key, extractor.entry(records, key, deployment("a", "2", 1), s, ctx));
    assertThat(changes.isEmpty()).isTrue();
    assertThat(records.get(key).record()).isSameAs(first);
    assertThat(records.get(key).resourceVersion()).isEqualTo("2");
  }

  @Test
  void countsAndErrorsFollowEveryChangeAndErrorsAreOrderedByTypeNamespaceAndName() {
    TargetRecords.Stamp s = records.stamp(DEPLOY, profile("replicas"), 1, 0);
    ObjectKey a = ObjectKey.of(DEPLOY, "ns", "a");
    ObjectKey b = ObjectKey.of(DEPLOY, "ns", "b");
    ObjectKey c = ObjectKey.of(DEPLOY, "ns", "c");
    RecordChanges changes = new RecordChanges();
    changes.apply(records, c, new TargetRecords.Entry("1", s, "broken c"));
    changes.apply(records, b, new TargetRecords.Entry("1", s, "broken b"));
    apply(s, deployment("a", "1", 1));
    assertThat(records.size()).isEqualTo(1);
    assertThat(records.count(DEPLOY)).isEqualTo(1);
    assertThat(records.errorSamples(5)).containsExactly(
        new ExtractionError("apps/v1/Deployment", "ns", "b", "broken b"),
        new ExtractionError("apps/v1/Deployment", "ns", "c", "broken c"));
    // a breaks, b is fixed, c goes.
    changes.apply(records, a, new TargetRecords.Entry("2", s, "broken a"));
    apply(s, deployment("b", "2", 3));
    changes.apply(records, c, null);
    assertThat(records.count(DEPLOY)).isEqualTo(1);
    assertThat(records.errorCount()).isEqualTo(1);
    assertThat(records.errorSamples(5)).extracting(ExtractionError::name).containsExactly("a");
    assertThat(changes.removed).extracting(Record::name).containsExactly("a");
    Map<String, Integer> counts = new TreeMap<>();
    records.forEachCount((t, n) -> counts.put(t.toString(), n));
    assertThat(counts).isEqualTo(Map.of("apps/v1/Deployment", 1));
  }
}

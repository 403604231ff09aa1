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
import org.junit.jupiter.api.Test;

class ExtractionMemoTest {

  static final ResourceType DEPLOY = new ResourceType("apps", "v1", "Deployment");
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final RecordContext ctx = new RecordContext("c", "ns/t", Instant.EPOCH);
  private final ExtractionMemo memo = new ExtractionMemo();
  private int conversions;

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

  private Record pass(CompiledProfile compiled, GenericKubernetesResource obj) {
    return memo.recordOf(DEPLOY, obj, () -> {
      conversions++;
      JsonNode json = serialization.convertValue(obj, JsonNode.class);
      return compiled.extract(json, ctx).orElse(null);
    });
  }

  @Test
  void anObjectIsExtractedAgainOnlyWhenItsResourceVersionChanges() {
    CompiledProfile p = profile("replicas");
    memo.begin(p);
    Record first = pass(p, deployment("a", "1", 1));
    pass(p, deployment("b", "1", 1));
    memo.end();
    assertThat(conversions).isEqualTo(2);

    memo.begin(p);
    Record again = pass(p, deployment("a", "1", 1));
    Record changed = pass(p, deployment("b", "2", 5));
    memo.end();
    assertThat(conversions).isEqualTo(3);
    assertThat(again).isSameAs(first);
    assertThat(changed.fields().get("replicas").asInt()).isEqualTo(5);
    assertThat(memo.extractions()).isEqualTo(3);
  }

  @Test
  void aNewProfileVersionReExtractsEverything() {
    CompiledProfile v1 = profile("replicas");
    memo.begin(v1);
    pass(v1, deployment("a", "1", 1));
    memo.end();
    CompiledProfile v2 = profile("replicas", "paused");
    memo.begin(v2);
    Record r = pass(v2, deployment("a", "1", 1));
    memo.end();
    assertThat(conversions).isEqualTo(2);
    assertThat(r.fields()).containsKeys("replicas", "paused");
  }

  @Test
  void objectsNotSeenInAPassAreForgottenAndObjectsWithoutVersionAreNeverReused() {
    CompiledProfile p = profile("replicas");
    memo.begin(p);
    pass(p, deployment("a", "1", 1));
    pass(p, deployment("noversion", null, 1));
    memo.end();
    memo.begin(p);
    pass(p, deployment("noversion", null, 1));
    memo.end();
    memo.begin(p);
    pass(p, deployment("a", "1", 1)); // forgotten in the pass before: extracted again
    memo.end();
    assertThat(conversions).isEqualTo(4);
  }

  @Test
  void aChangedProjectionOfTheTypeReExtractsObjectsWhoseVersionDidNotChange() {
    CompiledProfile p = profile("replicas");
    memo.begin(p);
    Record narrow = memo.recordOf(DEPLOY, deployment("a", "1", 1),
        new ExtractionMemo.Projection(1, 0), () -> ExtractionMemo.Outcome.of(
            p.extract(serialization.convertValue(deployment("a", "1", 1), JsonNode.class), ctx)
                .orElseThrow()));
    memo.end();
    // The same resourceVersion, now read from a cache holding more of the object.
    memo.begin(p);
    Record wide = memo.recordOf(DEPLOY, deployment("a", "1", 7),
        new ExtractionMemo.Projection(2, 0), () -> ExtractionMemo.Outcome.of(
            p.extract(serialization.convertValue(deployment("a", "1", 7), JsonNode.class), ctx)
                .orElseThrow()));
    memo.end();
    assertThat(memo.extractions()).isEqualTo(2);
    assertThat(narrow.fields().get("replicas").asInt()).isEqualTo(1);
    assertThat(wide.fields().get("replicas").asInt()).isEqualTo(7);
    // ... and so does a change of the cached projection alone.
    memo.begin(p);
    memo.recordOf(DEPLOY, deployment("a", "1", 7), new ExtractionMemo.Projection(2, 5),
        () -> ExtractionMemo.Outcome.of(wide));
    memo.end();
    assertThat(memo.extractions()).isEqualTo(3);
  }

  @Test
  void aFailedExtractionIsReportedUntilTheObjectSucceedsOrVanishes() {
    CompiledProfile p = profile("replicas");
    var none = ExtractionMemo.Projection.NONE;
    memo.begin(p);
    assertThat(memo.recordOf(DEPLOY, deployment("b", "1", 1), none,
        () -> ExtractionMemo.Outcome.failed("release cannot be decoded"))).isNull();
    memo.recordOf(DEPLOY, deployment("a", "1", 1), none,
        () -> ExtractionMemo.Outcome.failed("also broken"));
    memo.end();
    assertThat(memo.errors()).containsExactly(
        new ExtractionError("apps/v1/Deployment", "ns", "a", "also broken"),
        new ExtractionError("apps/v1/Deployment", "ns", "b", "release cannot be decoded"));

    // Unchanged: still failing, without extracting again.
    memo.begin(p);
    memo.recordOf(DEPLOY, deployment("a", "1", 1), none, () -> {
      throw new AssertionError("not re-extracted");
    });
    memo.recordOf(DEPLOY, deployment("b", "1", 1), none, () -> {
      throw new AssertionError("not re-extracted");
    });
    memo.end();
    assertThat(memo.errors()).hasSize(2);

    // a is fixed (new version), b is deleted.
    memo.begin(p);
    memo.recordOf(DEPLOY, deployment("a", "2", 1), none, () -> ExtractionMemo.Outcome.of(null));
    memo.end();
    assertThat(memo.errors()).isEmpty();
  }
}

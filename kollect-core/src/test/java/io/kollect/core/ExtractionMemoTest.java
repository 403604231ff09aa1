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
}

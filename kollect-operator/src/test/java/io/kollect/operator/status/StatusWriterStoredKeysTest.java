package io.kollect.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.operator.crd.KollectProfileStatus;
import io.kollect.operator.profile.ProfileStates;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A profile's conditions and its lifecycle keys have two writers: the condition write keeps the
 * lifecycle keys as stored, also when its cache is behind (a CLI just started an experiment).
 */
class StatusWriterStoredKeysTest {

  private GenericKubernetesResource stored;
  private final StatusWriter writer = new StatusWriter(new StatusWriter.Api() {
    @Override
    public GenericKubernetesResource putStatus(GenericKubernetesResource object) {
      if (!object.getMetadata().getResourceVersion()
          .equals(stored.getMetadata().getResourceVersion())) {
        throw new KubernetesClientException("conflict", 409, null);
      }
      stored = profile(String.valueOf(Integer.parseInt(
          stored.getMetadata().getResourceVersion()) + 1),
          object.getAdditionalProperties().get("status"));
      return stored;
    }

    @Override
    public GenericKubernetesResource get(GenericKubernetesResource object) {
      return stored;
    }
  }, new KubernetesSerialization(), Runnable::run);

  private static GenericKubernetesResource profile(String version, Object status) {
    GenericKubernetesResource o = new GenericKubernetesResource();
    o.setApiVersion("kollect.io/v1alpha1");
    o.setKind("KollectProfile");
    o.setMetadata(new ObjectMetaBuilder().withName("p").withResourceVersion(version).build());
    if (status != null) {
      o.setAdditionalProperty("status", status);
    }
    return o;
  }

  @Test
  void aConditionWriteFromAStaleCacheKeepsTheExperimentWrittenMeanwhile() {
    GenericKubernetesResource cached = profile("3", Map.of("currentRevision", "p-aaa"));
    stored = profile("4", Map.of("currentRevision", "p-aaa",
        "experiment", Map.of("id", "e1", "phase", "running")));

    writer.writeNow(cached, new KollectProfileStatus(2L, List.of(), 1),
        ProfileStates.STATUS_KEYS);

    @SuppressWarnings("unchecked")
    Map<String, Object> status = (Map<String, Object>) stored.getAdditionalProperties()
        .get("status");
    assertThat(status).containsEntry("observedGeneration", 2)
        .containsEntry("currentRevision", "p-aaa")
        .containsEntry("experiment", Map.of("id", "e1", "phase", "running"));
  }

  @Test
  void withoutStoredKeysTheWriteReplacesTheWholeStatus() {
    GenericKubernetesResource cached = profile("3", Map.of("currentRevision", "p-aaa"));
    stored = cached;

    writer.writeNow(cached, new KollectProfileStatus(2L, List.of(), 1), Set.of());

    assertThat(stored.getAdditionalProperties().get("status"))
        .isEqualTo(Map.of("observedGeneration", 2, "conditions", List.of(), "resources", 1));
  }
}

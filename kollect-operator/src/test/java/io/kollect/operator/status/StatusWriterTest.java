package io.kollect.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.operator.crd.KollectSinkStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusWriterTest {

  /** The API server's side of status writes, in memory: resourceVersion checks as the real one. */
  private static final class FakeApi implements StatusWriter.Api {
    final List<String> calls = new ArrayList<>();
    GenericKubernetesResource stored;

    @Override
    public GenericKubernetesResource putStatus(GenericKubernetesResource object) {
      calls.add("PUT " + object.getMetadata().getResourceVersion());
      if (!object.getMetadata().getResourceVersion().equals(stored.getMetadata().getResourceVersion())) {
        throw new KubernetesClientException("conflict", 409, null);
      }
      stored = copy(object, String.valueOf(Integer.parseInt(stored.getMetadata().getResourceVersion()) + 1));
      return stored;
    }

    @Override
    public GenericKubernetesResource get(GenericKubernetesResource object) {
      calls.add("GET");
      return stored;
    }
  }

  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final FakeApi api = new FakeApi();
  private final StatusWriter writer = new StatusWriter(api, serialization, Runnable::run);

  private static GenericKubernetesResource sink(String version, Object status) {
    GenericKubernetesResource o = new GenericKubernetesResource();
    o.setApiVersion("kollect.io/v1alpha1");
    o.setKind("KollectSink");
    o.setMetadata(new ObjectMetaBuilder().withNamespace("ns").withName("hook")
        .withResourceVersion(version).build());
    o.setAdditionalProperty("spec", Map.of("type", "stdout"));
    if (status != null) {
      o.setAdditionalProperty("status", status);
    }
    return o;
  }

  private static GenericKubernetesResource copy(GenericKubernetesResource o, String version) {
    GenericKubernetesResource c = sink(version, o.getAdditionalProperties().get("status"));
    return c;
  }

  @Test
  void aStatusIsWrittenFromTheCachedObjectWithoutReadingItFirst() {
    api.stored = sink("5", null);
    writer.writeNow(sink("5", null), new KollectSinkStatus(1L, List.of(), 2));
    assertThat(api.calls).containsExactly("PUT 5");
    assertThat(api.stored.getAdditionalProperties().get("status"))
        .isEqualTo(Map.of("observedGeneration", 1, "conditions", List.of(), "targets", 2));
  }

  @Test
  void aStatusTheObjectAlreadyHasIsNotWritten() {
    api.stored = sink("5", Map.of("observedGeneration", 1, "conditions", List.of(), "targets", 2));
    // null fields are left out, as the API server stores them
    writer.writeNow(api.stored, new KollectSinkStatus(1L, List.of(), 2));
    assertThat(api.calls).isEmpty();
  }

  @Test
  void aStaleCacheCostsOneReadOnTheConflictAndTheWriteIsRetried() {
    api.stored = sink("7", null);
    writer.writeNow(sink("5", null), new KollectSinkStatus(1L, List.of(), 2));
    assertThat(api.calls).containsExactly("PUT 5", "GET", "PUT 7");
    assertThat(api.stored.getMetadata().getResourceVersion()).isEqualTo("8");
  }

  @Test
  void theSameStatusFromTheSameCachedVersionIsWrittenOnceEvenBeforeTheCacheCatchesUp() {
    api.stored = sink("5", null);
    GenericKubernetesResource cached = sink("5", null);
    writer.writeNow(cached, new KollectSinkStatus(1L, List.of(), 2));
    writer.writeNow(cached, new KollectSinkStatus(1L, List.of(), 2));
    assertThat(api.calls).containsExactly("PUT 5");
  }

  @Test
  void aGoneObjectIsNotAnError() {
    StatusWriter gone = new StatusWriter(new StatusWriter.Api() {
      @Override
      public GenericKubernetesResource putStatus(GenericKubernetesResource object) {
        throw new KubernetesClientException("not found", 404, null);
      }

      @Override
      public GenericKubernetesResource get(GenericKubernetesResource object) {
        return null;
      }
    }, serialization, Runnable::run);
    gone.writeNow(sink("5", null), new KollectSinkStatus(1L, List.of(), 2));
  }
}

package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeClientsTest {

  @Test
  void rateLimitLetsABurstThroughThenMakesCallersWait() {
    KubeClients.RateLimit limit = new KubeClients.RateLimit(1, 3);
    assertThat(limit.reserve()).isZero();
    assertThat(limit.reserve()).isZero();
    assertThat(limit.reserve()).isZero();
    // The fourth request within the same instant waits about one token interval (1 s at 1 qps).
    assertThat(limit.reserve()).isGreaterThan(500_000_000L);
    // and the fifth queues behind it.
    assertThat(limit.reserve()).isGreaterThan(1_500_000_000L);
  }

  @Test
  void nonsensicalLimitsAreRejectedNamingTheFlag() {
    assertThatThrownBy(() -> new KubeClients.RateLimit(0, 1)).hasMessageContaining("--kube-api-qps");
    assertThatThrownBy(() -> new KubeClients.RateLimit(1, 0)).hasMessageContaining("--kube-api-burst");
  }

  @Test
  void aMissingKubeconfigIsNamed() {
    assertThatThrownBy(() -> KubeClients.create(Optional.of(java.nio.file.Path.of("/no/such/kubeconfig")),
        Optional.empty(), 5, 10)).hasMessageContaining("--kubeconfig").hasMessageContaining("/no/such/kubeconfig");
  }

  /** Objects of several shapes, with every JSON value type beyond apiVersion, kind and metadata. */
  private static final String LIST = """
      {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": "42", "continue": "c"},
       "items": [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "a", "namespace": "ns", "uid": "u1", "resourceVersion": "7",
           "labels": {"app": "x"}, "annotations": {"note": "y"},
           "managedFields": [{"manager": "m", "operation": "Update", "fieldsType": "FieldsV1",
             "fieldsV1": {"f:data": {"f:k": {}}}}]},
         "data": {"k": "v", "empty": ""}, "immutable": true},
        {"apiVersion": "example.io/v1", "kind": "Widget",
         "metadata": {"name": "b", "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap",
           "name": "a", "uid": "u1", "controller": true}]},
         "spec": {"int": 1, "long": 12345678901234, "big": 123456789012345678901234567890,
           "double": 2.5, "exp": 1e3, "neg": -0.0, "null": null, "no": false,
           "list": [1, "two", [3], {"four": 4}, null], "nested": {"deeper": {"deepest": []}}},
         "status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        {"apiVersion": "example.io/v1", "kind": "Widget", "metadata": {"name": "c"},
         "additionalProperties": {"status": {"forged": true}}, "spec": {}}]}
      """;

  @Test
  void theClientMappingDecodesGenericResourcesAsFabric8sDefaultDoes() {
    KubernetesSerialization fabric8 = new KubernetesSerialization();
    KubernetesSerialization ours = KubeClients.serialization();

    List<GenericKubernetesResource> expected =
        fabric8.unmarshal(LIST, GenericKubernetesResourceList.class).getItems();
    List<GenericKubernetesResource> decoded =
        ours.unmarshal(LIST, GenericKubernetesResourceList.class).getItems();

    assertThat(decoded).isEqualTo(expected);
    for (int i = 0; i < decoded.size(); i++) {
      assertThat(ours.asJson(decoded.get(i))).isEqualTo(fabric8.asJson(expected.get(i)));
    }
    // the number types too (equal maps could still hold an Integer where a Long was)
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) decoded.get(1).getAdditionalProperties().get("spec");
    assertThat(spec.get("int")).isInstanceOf(Integer.class);
    assertThat(spec.get("long")).isInstanceOf(Long.class);
    assertThat(spec.get("big")).isInstanceOf(BigInteger.class);
    assertThat(spec.get("double")).isInstanceOf(Double.class);
    assertThat(spec).containsEntry("null", null);
    // a key named like the map's field sets nothing through it, as with fabric8's mapping
    assertThat(decoded.get(2).getAdditionalProperties()).containsOnlyKeys("spec");
  }

  @Test
  void theOperatorsClientFillsAGenericResourceThroughItsMapNotItsSetter(@TempDir Path dir)
      throws IOException {
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """);
    SetterCounting.calls.set(0);
    try (KubernetesClient client = KubeClients.create(Optional.of(kubeconfig), Optional.empty(), 5, 10)) {
      SetterCounting decoded = client.getKubernetesSerialization().unmarshal(
          "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"},"
              + " \"data\": {\"k\": \"v\"}, \"immutable\": true}", SetterCounting.class);

      assertThat(decoded.getAdditionalProperties()).containsOnlyKeys("data", "immutable");
      assertThat(SetterCounting.calls).hasValue(0);
    }
    // fabric8's own mapping goes through the setter, once per property: what the mapping avoids
    new KubernetesSerialization().unmarshal("{\"kind\": \"ConfigMap\", \"data\": {}}",
        SetterCounting.class);
    assertThat(SetterCounting.calls).hasValue(1);
  }

  /** Counts the calls of the any-setter method fabric8's model declares. */
  public static final class SetterCounting extends GenericKubernetesResource {
    static final AtomicInteger calls = new AtomicInteger();

    @Override
    public void setAdditionalProperty(String name, Object value) {
      calls.incrementAndGet();
      super.setAdditionalProperty(name, value);
    }
  }
}

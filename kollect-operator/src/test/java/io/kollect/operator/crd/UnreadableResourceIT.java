package io.kollect.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.kollect.operator.PerClassCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Objects this operator cannot read: a KollectSink from a newer CRD (a {@code type} or a field this
 * operator does not know) gets a status condition saying what is not understood, and the operator's
 * watch of KollectSinks goes on: a sink created afterwards is still seen.
 */
class UnreadableResourceIT {

  @RegisterExtension static final PerClassCluster api = PerClassCluster.withNamespaces("team");

  @BeforeAll
  static void start() {
    // A newer KollectSink CRD: any type, unknown fields kept.
    api.client().apiextensions().v1().customResourceDefinitions()
        .withName("kollectsinks.kollect.io").edit(crd -> {
          JSONSchemaProps spec = crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema()
              .getProperties().get("spec");
          spec.getProperties().get("type").setEnum(null);
          spec.setXKubernetesPreserveUnknownFields(true);
          spec.getProperties().get("http").setXKubernetesPreserveUnknownFields(true);
          return crd;
        });
    api.start();
  }

  private static Condition condition(String name, String type) {
    GenericKubernetesResource sink = api.client()
        .genericKubernetesResources("kollect.io/v1alpha1", "KollectSink").inNamespace("team")
        .withName(name).get();
    if (sink == null || !(sink.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
        || !(status.get("conditions") instanceof List<?> conditions)) {
      return null;
    }
    return conditions.stream()
        .map(c -> api.client().getKubernetesSerialization().convertValue(c, Condition.class))
        .filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  @Test
  void aSinkOfAnUnknownTypeOrWithAnUnknownFieldIsReportedAndTheWatchGoesOn() {
    await().atMost(Duration.ofSeconds(30)).until(() -> api.operator().operator().isReady());
    api.cluster().apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: future, namespace: team}
        spec: {type: nats, nats: {subject: inventory}}
        """);
    api.cluster().apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: mtls, namespace: team}
        spec: {type: http, http: {url: "https://example.org/hook", mtlsProfile: strict}}
        """);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Condition ready = condition("future", "Ready");
      assertThat(ready).isNotNull();
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("NotUnderstood");
      assertThat(ready.getMessage()).contains("spec.type: 'nats' is not understood")
          .contains("known: stdout, file, http, kafka");
      assertThat(condition("future", "Stalled").getStatus()).isEqualTo("True");
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(condition("mtls", "Ready").getMessage())
            .contains("spec.http.mtlsProfile: unknown field"));

    // The watch of the kind goes on: a sink created later is seen and configured.
    api.cluster().apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: later, namespace: team}
        spec: {type: stdout}
        """);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectSink later = api.client().resources(KollectSink.class).inNamespace("team")
          .withName("later").get();
      assertThat(later.getStatus()).isNotNull();
      assertThat(later.getStatus().conditions()).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("Ready");
        assertThat(c.getStatus()).isEqualTo("True");
      });
    });
    // And a sink fixed to a known type reads again.
    api.cluster().apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: future, namespace: team}
        spec: {type: stdout}
        """);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(condition("future", "Ready").getStatus()).isEqualTo("True"));
  }
}

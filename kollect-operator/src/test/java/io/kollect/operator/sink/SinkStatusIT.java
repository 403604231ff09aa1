package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.operator.PerClassCluster;
import io.kollect.operator.crd.KollectSink;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sink settings checked on a real API server: a sink port outside 1-65535 is refused by the CRD
 * naming the field, and a {@code tls} block naming a missing Secret or key gets a status condition
 * naming the field, the Secret and the key, and recovers once the Secret exists.
 */
class SinkStatusIT {

  @RegisterExtension static final PerClassCluster api = PerClassCluster.withNamespaces("team");

  @BeforeAll
  static void start() {
    // A Secret found missing is remembered for SecretValues' TTL (30 s when shipped); the sink's
    // recovery should be seen at the next sink re-check (every 5 s), not after that.
    SecretValues.ttl = Duration.ofSeconds(1);
    api.start();
  }

  @AfterAll
  static void restoreSecretTtl() {
    SecretValues.ttl = SecretValues.TTL;
  }

  private static Condition ready(String name) {
    KollectSink sink = api.client().resources(KollectSink.class).inNamespace("team")
        .withName(name).get();
    if (sink == null || sink.getStatus() == null || sink.getStatus().conditions() == null) {
      return null;
    }
    return sink.getStatus().conditions().stream().filter(c -> c.getType().equals("Ready"))
        .findFirst().orElse(null);
  }

  @Test
  void aPortOutsideTheRangeIsRefusedByTheApiServerNamingTheField() {
    assertThatThrownBy(() -> api.cluster().apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: badport, namespace: team}
        spec: {type: http, http: {url: "http://127.0.0.1:70000/ingest"}}
        """))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.http.url");
  }

  @Test
  void aMissingTlsSecretOrKeyIsAConditionNamingThemAndTheSinkRecoversWhenItAppears() {
    api.cluster().apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: tls-missing, namespace: team}
        spec:
          type: http
          http: {url: "https://127.0.0.1:8443/ingest"}
          tls: {caSecretRef: {name: receiver-ca}}
        """);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Condition ready = ready("tls-missing");
      assertThat(ready).isNotNull();
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getMessage())
          .contains("spec.tls.caSecretRef: Secret team/receiver-ca does not exist");
    });

    api.cluster().apply("""
        apiVersion: v1
        kind: Secret
        metadata: {name: receiver-ca, namespace: team}
        stringData: {ca.pem: "-----BEGIN CERTIFICATE-----"}
        """);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(ready("tls-missing").getMessage())
            .contains("spec.tls.caSecretRef: Secret team/receiver-ca has no key ca.crt"));
  }
}

package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.kafka.KafkaBroker;
import io.kollect.export.kafka.TopicContent;
import io.kollect.operator.crd.KollectSink;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: a kafka KollectSink's {@code sasl.secretRef} is read from the sink's namespace and
 * authenticates to a real broker listener that requires SCRAM-SHA-512; a Secret with the wrong
 * password is a not-ready condition saying the authentication failed.
 */
class KafkaSinkSaslOperatorIT {

  private static final String NS = "sasl";

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static KafkaBroker broker;
  private static TestOperator operator;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start();
    client = cluster.client();
    cluster.namespace("kollect-system");
    cluster.namespace(NS);
    broker = KafkaBroker.launchWithScram("kollect", "s3cret");
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: configmaps}
        spec:
          resources:
            - version: v1
              kind: ConfigMap
              fields: [{name: v, path: "{.data.v}"}]
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: kafka-user, namespace: %1$s}
        stringData: {username: kollect, password: s3cret}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: kafka-wrong-user, namespace: %1$s}
        stringData: {user: kollect, pass: wrong}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: fleet, namespace: %1$s}
        spec:
          type: kafka
          kafka:
            bootstrapServers: ["%2$s"]
            topic: inventory-sasl
            createTopic: {partitions: 1, replicationFactor: 1}
            sasl: {mechanism: SCRAM-SHA-512, secretRef: {name: kafka-user}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: denied, namespace: %1$s}
        spec:
          type: kafka
          kafka:
            bootstrapServers: ["%2$s"]
            topic: inventory-denied
            createTopic: {partitions: 1, replicationFactor: 1}
            deliveryTimeout: 5s
            sasl:
              mechanism: SCRAM-SHA-512
              secretRef: {name: kafka-wrong-user, usernameKey: user, passwordKey: pass}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: configmaps, namespace: %1$s}
        spec: {profileRef: configmaps, scope: {namespaces: [%1$s]}, sinkRefs: [fleet, denied]}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cm-1, namespace: %1$s}
        data: {v: "1"}
        """.formatted(NS, broker.secureBootstrapServers()));
    operator = TestOperator.on(cluster).trusting(NS)
        .configure(c -> c.withStatusWriteInterval(Duration.ofMillis(500)))
        .start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (operator != null) {
      operator.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Condition ready(String sink) {
    KollectSink s = client.resources(KollectSink.class).inNamespace(NS).withName(sink).get();
    return s.getStatus().conditions().stream().filter(c -> c.getType().equals("Ready"))
        .findFirst().orElseThrow();
  }

  @Test
  void scramCredentialsFromTheSinksSecretAuthenticateAndTheRecordsReachTheTopic() {
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      try (var admin = broker.admin()) {
        assertThat(admin.listTopics().names().get()).contains("inventory-sasl");
      }
      assertThat(TopicContent.fold(broker.bootstrapServers(), "inventory-sasl"))
          .containsOnlyKeys("it/" + NS + "/configmaps//ConfigMap/" + NS + "/cm-1");
      assertThat(ready("fleet").getStatus()).isEqualTo("True");
    });
  }

  @Test
  void aWrongPasswordIsANotReadyConditionSayingTheAuthenticationFailed() {
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Condition ready = ready("denied");
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("TopicCheckFailed");
      assertThat(ready.getMessage()).containsIgnoringCase("authentication failed");
    });
  }
}

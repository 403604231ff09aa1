package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kollect.export.kafka.KafkaBroker;
import io.kollect.export.kafka.KafkaSink;
import io.kollect.export.kafka.KafkaSinkConfig;
import io.kollect.export.kafka.TopicContent;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka SASL credentials: a kafka KollectSink's {@code sasl.secretRef} is read from the sink's
 * namespace and authenticates to a real broker listener that requires SCRAM-SHA-512; a Secret with
 * the wrong password is a not-ready condition saying the authentication failed; a password rotated
 * on the broker and in the Secret is picked up by the same sink, without re-sending what was
 * delivered; the TLS PEM suppliers of a translated kafka sink follow their Secrets the same way.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaSinkSaslOperatorIT {

  private static final String NS = "sasl";

  // The operator reads a Secret at most every 30 s, a kafka sink asks for its credentials at most
  // every 10 s and retries up to 2 min apart: the rotation step should not wait for any of these.
  @RegisterExtension
  static final SinkScenario scenario =
      SinkScenario.in(NS).secretsReadEverySecond().retriedEverySecond();

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static KafkaBroker broker;

  @BeforeAll
  static void start() throws Exception {
    cluster = scenario.cluster();
    client = scenario.client();
    broker = scenario.closeAfter(KafkaBroker.launchWithScram("kollect", "s3cret"));
    String bootstrap = broker.secureBootstrapServers();
    cluster.apply(TestCluster.CONFIGMAP_PROFILE
        + ScramSinks.secret(NS, "kafka-user", "username: kollect, password: s3cret")
        + ScramSinks.secret(NS, "kafka-wrong-user", "user: kollect, pass: wrong")
        + ScramSinks.sink(NS, "fleet", bootstrap, "inventory-sasl", "", "name: kafka-user")
        + ScramSinks.sink(NS, "denied", bootstrap, "inventory-denied", "deliveryTimeout: 5s",
            "name: kafka-wrong-user, usernameKey: user, passwordKey: pass") + """
        apiVersion: v1
        kind: Secret
        metadata: {name: kafka-blank-user, namespace: %1$s}
        stringData: {username: " ", password: s3cret}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: no-secret, namespace: %1$s}
        spec:
          type: kafka
          kafka:
            bootstrapServers: ["%2$s"]
            topic: inventory-none
            sasl: {mechanism: SCRAM-SHA-512, secretRef: {name: absent}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: blank-user, namespace: %1$s}
        spec:
          type: kafka
          kafka:
            bootstrapServers: ["%2$s"]
            topic: inventory-none
            sasl: {mechanism: SCRAM-SHA-512, secretRef: {name: kafka-blank-user}}
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
    scenario.startOperator();
  }

  private static Condition ready(String sink) {
    KollectSink s = client.resources(KollectSink.class).inNamespace(NS).withName(sink).get();
    return s.getStatus().conditions().stream().filter(c -> c.getType().equals("Ready"))
        .findFirst().orElseThrow();
  }

  @Test
  @Order(1)
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
  @Order(2)
  void aWrongPasswordIsANotReadyConditionSayingTheAuthenticationFailed() {
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Condition ready = ready("denied");
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("TopicCheckFailed");
      assertThat(ready.getMessage()).containsIgnoringCase("authentication failed");
    });
  }

  @Test
  @Order(2)
  void aMissingSecretOrABlankUsernameIsReportedWhenTheSinkIsConfiguredNamingTheField() {
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Condition missing = ready("no-secret");
      assertThat(missing.getStatus()).isEqualTo("False");
      assertThat(missing.getMessage())
          .contains("spec.kafka.sasl.secretRef: Secret " + NS + "/absent does not exist");
      Condition blank = ready("blank-user");
      assertThat(blank.getStatus()).isEqualTo("False");
      assertThat(blank.getMessage()).contains("spec.kafka.sasl.secretRef: Secret " + NS
          + "/kafka-blank-user key username is empty");
    });
  }

  @Test
  @Order(3)
  void aPasswordRotatedOnTheBrokerAndInTheSecretResumesDeliveryOnTheSameSinkWithoutResending()
      throws Exception {
    String cm1 = "it/" + NS + "/configmaps//ConfigMap/" + NS + "/cm-1";
    String cm2 = "it/" + NS + "/configmaps//ConfigMap/" + NS + "/cm-2";
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(TopicContent.fold(broker.bootstrapServers(), "inventory-sasl"))
            .containsKey(cm1));

    // the broker now knows only the new password; its restart ends the sessions authenticated
    // with the old one, as a re-authentication or a reconnect would
    try (Admin admin = broker.admin()) {
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("kollect",
          new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "n3w"))).all().get();
    }
    broker.stop();
    broker.start();
    client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
        .withNewMetadata().withName("cm-2").endMetadata().withData(Map.of("v", "2")).build())
        .create();
    // (delivery figures alone reach the status at most every second here: SinkScenario)
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
      KollectTargetStatus.SinkStatus fleet = sinkStatus("fleet");
      assertThat(fleet.consecutiveFailures()).isPositive();
      assertThat(fleet.lastError()).isNotNull().doesNotContain("s3cret").doesNotContain("n3w");
    });
    assertThat(TopicContent.fold(broker.bootstrapServers(), "inventory-sasl"))
        .as("the old password delivers nothing").doesNotContainKey(cm2);

    client.secrets().inNamespace(NS).withName("kafka-user").edit(s -> {
      s.setData(Map.of("username", base64("kollect"), "password", base64("n3w")));
      return s;
    });
    // the next retry (at most 1 s apart here) asks the sink's suppliers again (at most every
    // second here) and they read the Secret again (TTL 1 s here): a few seconds, the bound is
    // for a loaded machine
    await().atMost(Duration.ofSeconds(180)).untilAsserted(() -> {
      assertThat(TopicContent.fold(broker.bootstrapServers(), "inventory-sasl"))
          .containsKey(cm2);
      KollectTargetStatus.SinkStatus fleet = sinkStatus("fleet");
      assertThat(fleet.consecutiveFailures()).isZero();
      assertThat(fleet.lastError()).isNull();
    });
    assertThat(TopicContent.read(broker.bootstrapServers(), "inventory-sasl"))
        .extracting(TopicContent.Message::key)
        .as("cm-1 once: the same sink went on (a replaced sink is re-sent the full current set)")
        .containsExactly(cm1, cm2);
  }

  @Test
  @Order(4)
  void theTlsSuppliersOfATranslatedSinkFollowItsSecretsSoRotatedPemsReachTheSameSink() {
    cluster.apply("""
        apiVersion: v1
        kind: Secret
        metadata: {name: kafka-ca, namespace: %1$s}
        stringData: {ca.crt: ca-1}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: kafka-client, namespace: %1$s}
        stringData: {tls.crt: cert-1, tls.key: key-1}
        """.formatted(NS));
    KollectSink resource = Serialization.unmarshal("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: tls, namespace: %s}
        spec:
          type: kafka
          kafka:
            bootstrapServers: ["kafka:9093"]
            topic: t
            tls: {caSecretRef: {name: kafka-ca}, clientCertSecretRef: {name: kafka-client}}
        """.formatted(NS), KollectSink.class);
    KafkaSink sink = (KafkaSink) new SinkTranslation(client).build(NS + "/tls", resource).sink();
    try {
      KafkaSinkConfig.Tls tls = sink.config().tls();
      assertThat(List.of(tls.caPem().get(), tls.clientCertPem().get(), tls.clientKeyPem().get()))
          .containsExactly("ca-1", "cert-1", "key-1");
      client.secrets().inNamespace(NS).withName("kafka-ca").edit(s -> {
        s.setData(Map.of("ca.crt", base64("ca-2")));
        return s;
      });
      client.secrets().inNamespace(NS).withName("kafka-client").edit(s -> {
        s.setData(Map.of("tls.crt", base64("cert-2"), "tls.key", base64("key-2")));
        return s;
      });
      // SecretValues reads a Secret again once its TTL (1 s here) has passed
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(List.of(tls.caPem().get(), tls.clientCertPem().get(),
              tls.clientKeyPem().get())).containsExactly("ca-2", "cert-2", "key-2"));
    } finally {
      sink.close();
    }
  }

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static KollectTargetStatus.SinkStatus sinkStatus(String sink) {
    KollectTarget t = client.resources(KollectTarget.class).inNamespace(NS).withName("configmaps")
        .get();
    assertThat(t.getStatus()).isNotNull();
    assertThat(t.getStatus().sinks()).isNotNull();
    return t.getStatus().sinks().stream().filter(s -> sink.equals(s.name())).findFirst()
        .orElseThrow(() -> new AssertionError("no sink " + sink + " in " + t.getStatus().sinks()));
  }
}

package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.SinkException;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.export.kafka.KafkaSinkConfig.Tls;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Mutual TLS from PEM text against a broker listener that requires a client certificate. */
class TlsIT {

  private static final TestCertificates CA = TestCertificates.authority("kafka-ca");
  private static final TestCertificates.Issued CLIENT = CA.issue("kollect");
  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    TestCertificates.Issued server = CA.issue("kafka-0");
    broker = KafkaBroker.launchWithTls(server.certificatePem(), server.pkcs8KeyPem(),
        CA.certificatePem());
  }

  @AfterAll
  static void stopBroker() throws Exception {
    broker.close();
  }

  private static KafkaSink sink(String topic, Tls tls) {
    return new KafkaSink("fleet", KafkaSinkConfig.builder()
        .bootstrapServers(broker.secureBootstrapServers()).topic(topic)
        .createTopic(new CreateTopic(1, 1)).deliveryTimeout(Duration.ofSeconds(5)).tls(tls)
        .build());
  }

  @Test
  void pemCaAndClientCertificateConnectAndWrite() throws Exception {
    try (KafkaSink sink = sink("inventory-tls", new Tls(CA.certificatePem(),
        CLIENT.certificatePem(), CLIENT.pkcs8KeyPem()))) {
      sink.write(List.of(InventoryRecords.configMap("cm-7", 1).withSequence(1)));
      assertThat(sink.topicCheck().reason()).isEqualTo("TopicCreated");
    }
    assertThat(TopicContent.fold(broker.bootstrapServers(), "inventory-tls"))
        .containsOnlyKeys(InventoryRecords.key("cm-7"));
  }

  @Test
  void aBrokerCertificateFromAnotherCaIsARetryableFailureNamingTheHandshake() {
    TestCertificates other = TestCertificates.authority("other-ca");
    try (KafkaSink sink = sink("inventory-tls-untrusted", new Tls(other.certificatePem(),
        CLIENT.certificatePem(), CLIENT.pkcs8KeyPem()))) {
      assertThatThrownBy(() -> sink.write(List.of(InventoryRecords.configMap("cm-7", 1)
          .withSequence(1))))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e).hasMessageContaining(broker.secureBootstrapServers())
                .hasMessageContaining("SSL");
          });
    }
  }
}

package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kollect.export.SinkException;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.export.kafka.KafkaSinkConfig.Tls;
import io.kollect.testing.TestCertificateAuthority;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mutual TLS from PEM text against a broker listener that requires a client certificate, and a
 * CA and client certificate rotated on the broker and in the sink's suppliers.
 */
class TlsIT {

  private static final TestCertificateAuthority CA = TestCertificateAuthority.create("kafka-ca");
  private static final TestCertificateAuthority.Issued CLIENT = CA.leaf("kollect", "127.0.0.1");
  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    TestCertificateAuthority.Issued server = CA.leaf("kafka-0", "127.0.0.1");
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
    TestCertificateAuthority other = TestCertificateAuthority.create("other-ca");
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

  @Test
  void aRotatedCaAndClientCertificateArePickedUpBySameSinkWithoutResendingAcked()
      throws Exception {
    TestCertificateAuthority oldCa = TestCertificateAuthority.create("old-ca");
    TestCertificateAuthority.Issued oldServer = oldCa.leaf("kafka-0", "127.0.0.1");
    TestCertificateAuthority newCa = TestCertificateAuthority.create("new-ca");
    TestCertificateAuthority.Issued newServer = newCa.leaf("kafka-0", "127.0.0.1");
    TestCertificateAuthority.Issued oldClient = oldCa.leaf("kollect", "127.0.0.1");
    TestCertificateAuthority.Issued newClient = newCa.leaf("kollect", "127.0.0.1");
    AtomicReference<String> ca = new AtomicReference<>(oldCa.certificatePem());
    AtomicReference<TestCertificateAuthority.Issued> client = new AtomicReference<>(oldClient);
    try (KafkaBroker rotating = KafkaBroker.launchWithTls(oldServer.certificatePem(),
        oldServer.pkcs8KeyPem(), oldCa.certificatePem());
        KafkaSink sink = new KafkaSink("fleet", KafkaSinkConfig.builder()
            .bootstrapServers(rotating.secureBootstrapServers()).topic("inventory-rotated")
            .createTopic(new CreateTopic(1, 1)).deliveryTimeout(Duration.ofSeconds(5))
            .credentialsCheckInterval(Duration.ofSeconds(1))
            .tls(new Tls(ca::get, () -> client.get().certificatePem(),
                () -> client.get().pkcs8KeyPem()))
            .build())) {
      sink.write(List.of(InventoryRecords.configMap("cm-1", 1).withSequence(1),
          InventoryRecords.configMap("cm-2", 1).withSequence(2)));

      // the broker moves to the new CA: its certificate is signed by it, and it trusts only
      // client certificates the new CA signed
      rotating.restartWithTls(newServer.certificatePem(), newServer.pkcs8KeyPem(),
          newCa.certificatePem());
      assertThatThrownBy(() -> sink.write(List.of(InventoryRecords.configMap("cm-3", 1)
          .withSequence(3))))
          .as("the old CA and client certificate no longer connect: nothing is delivered")
          .isInstanceOfSatisfying(SinkException.class, e -> assertThat(e.retryable()).isTrue());

      ca.set(newCa.certificatePem());
      client.set(newClient);
      // retried like the exporter would, bounded, until the check interval (1 s) passed and the
      // sink connected with the new material
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
          .ignoreExceptionsInstanceOf(SinkException.class)
          .until(() -> {
            sink.write(List.of(InventoryRecords.configMap("cm-3", 1).withSequence(3)));
            return true;
          });
      assertThat(TopicContent.read(rotating.bootstrapServers(), "inventory-rotated"))
          .extracting(TopicContent.Message::key)
          .as("each record once: the acknowledged ones were not sent again")
          .containsExactly(InventoryRecords.key("cm-1"), InventoryRecords.key("cm-2"),
              InventoryRecords.key("cm-3"));
    }
  }
}

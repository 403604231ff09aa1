package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.SinkException;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.export.kafka.KafkaSinkConfig.Sasl;
import io.kollect.export.kafka.KafkaSinkConfig.SaslMechanism;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SASL/SCRAM-SHA-512 against a broker listener that requires it. */
class SaslScramIT {

  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaBroker.launchWithScram("kollect", "s3cret");
  }

  @AfterAll
  static void stopBroker() throws Exception {
    broker.close();
  }

  private static KafkaSink sink(String topic, String password) {
    return new KafkaSink("fleet", KafkaSinkConfig.builder()
        .bootstrapServers(broker.secureBootstrapServers()).topic(topic)
        .createTopic(new CreateTopic(1, 1)).deliveryTimeout(Duration.ofSeconds(5))
        .sasl(new Sasl(SaslMechanism.SCRAM_SHA_512, "kollect", password)).build());
  }

  @Test
  void scramCredentialsAuthenticateTheTopicCheckAndTheProducer() throws Exception {
    try (KafkaSink sink = sink("inventory-sasl", "s3cret")) {
      sink.write(List.of(InventoryRecords.configMap("cm-7", 1).withSequence(1)));
      assertThat(sink.topicCheck().reason()).isEqualTo("TopicCreated");
    }
    assertThat(TopicContent.fold(broker.bootstrapServers(), "inventory-sasl"))
        .containsOnlyKeys(InventoryRecords.key("cm-7"));
  }

  @Test
  void aWrongPasswordIsARetryableFailureThatSaysAuthenticationFailed() {
    try (KafkaSink sink = sink("inventory-sasl-denied", "wrong")) {
      assertThatThrownBy(() -> sink.write(List.of(InventoryRecords.configMap("cm-7", 1)
          .withSequence(1))))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e).hasMessageContaining(broker.secureBootstrapServers())
                .hasMessageContainingAll("Authentication failed");
            assertThat(e.getMessage()).doesNotContain("wrong");
          });
    }
  }
}

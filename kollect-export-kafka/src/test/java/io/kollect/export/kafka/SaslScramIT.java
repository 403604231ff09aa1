package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kollect.export.SinkException;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.export.kafka.KafkaSinkConfig.Sasl;
import io.kollect.export.kafka.KafkaSinkConfig.SaslMechanism;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * SASL/SCRAM-SHA-512 against a broker listener that requires it, and a password rotated on the
 * broker and in the sink's supplier.
 */
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

  @Test
  void aPasswordRotatedOnTheBrokerAndInTheSupplierIsPickedUpBySameSinkWithoutResendingAcked()
      throws Exception {
    setPassword("rotating", "first");
    AtomicReference<String> password = new AtomicReference<>("first");
    Logger log = (Logger) LoggerFactory.getLogger(KafkaSink.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    log.addAppender(logged);
    Level level = log.getLevel();
    log.setLevel(Level.INFO);
    try (KafkaSink sink = new KafkaSink("fleet", KafkaSinkConfig.builder()
        .bootstrapServers(broker.secureBootstrapServers()).topic("inventory-rotated")
        .createTopic(new CreateTopic(1, 1)).deliveryTimeout(Duration.ofSeconds(5))
        .credentialsCheckInterval(Duration.ofSeconds(1))
        .sasl(new Sasl(SaslMechanism.SCRAM_SHA_512, () -> "rotating", password::get)).build())) {
      sink.write(List.of(InventoryRecords.configMap("cm-1", 1).withSequence(1),
          InventoryRecords.configMap("cm-2", 1).withSequence(2)));

      // the broker now knows only the new password; a restart ends the sessions that were
      // authenticated with the old one, as a re-authentication or a reconnect would
      setPassword("rotating", "second");
      broker.stop();
      broker.start();
      assertThatThrownBy(() -> sink.write(List.of(InventoryRecords.configMap("cm-3", 1)
          .withSequence(3))))
          .as("the old password is refused: nothing is delivered")
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).doesNotContain("first").doesNotContain("second");
          });

      password.set("second");
      // the exporter would retry the failed batch with backoff: the same here, bounded, until
      // the check interval (1 s) passed and the sink connected with the new password
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
          .ignoreExceptionsInstanceOf(SinkException.class)
          .until(() -> {
            sink.write(List.of(InventoryRecords.configMap("cm-3", 1).withSequence(3)));
            return true;
          });
    } finally {
      log.detachAppender(logged);
      log.setLevel(level);
    }
    assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(m -> assertThat(m).contains("Kafka credentials changed"))
        .allSatisfy(m -> assertThat(m).doesNotContain("first").doesNotContain("second"));
    List<TopicContent.Message> messages = TopicContent.read(broker.bootstrapServers(),
        "inventory-rotated");
    assertThat(messages).extracting(TopicContent.Message::key)
        .as("each record once: the acknowledged ones were not sent again")
        .containsExactly(InventoryRecords.key("cm-1"), InventoryRecords.key("cm-2"),
            InventoryRecords.key("cm-3"));
  }

  @Test
  void theCredentialSuppliersAreAskedAtMostOncePerCheckIntervalNotPerWrite() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    try (KafkaSink sink = new KafkaSink("fleet", KafkaSinkConfig.builder()
        .bootstrapServers(broker.secureBootstrapServers()).topic("inventory-asked")
        .createTopic(new CreateTopic(1, 1)).deliveryTimeout(Duration.ofSeconds(5))
        .credentialsCheckInterval(Duration.ofHours(1))
        .sasl(new Sasl(SaslMechanism.SCRAM_SHA_512, () -> "kollect", () -> {
          asked.incrementAndGet();
          return "s3cret";
        })).build())) {
      for (int i = 1; i <= 5; i++) {
        sink.write(List.of(InventoryRecords.configMap("cm-" + i, 1).withSequence(i)));
      }
      sink.checkTopic();
    }
    assertThat(asked).hasValue(1);
  }

  /** Sets (replacing any previous) the SCRAM-SHA-512 password of {@code user} on the broker. */
  private static void setPassword(String user, String password) throws Exception {
    try (Admin admin = broker.admin()) {
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
          new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password))).all().get();
    }
  }
}

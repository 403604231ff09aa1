package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.export.DeliveryStatus;
import io.kollect.export.Exporter;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.export.kafka.TopicContent.Message;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The broker goes away while changes stream in and comes back with what it acknowledged. */
class BrokerRestartIT {

  @RegisterExtension static final PerClassBroker broker = new PerClassBroker();

  @Test
  void aBrokerRestartMidStreamLosesNothingAndWritesDuringTheOutageFailRetryablyThenArrive()
      throws Exception {
    String topic = "inventory-restart";
    KafkaSink sink = new KafkaSink("fleet", KafkaSinkConfig.builder()
        .bootstrapServers(broker.bootstrapServers()).topic(topic)
        .createTopic(new CreateTopic(3, 1)).deliveryTimeout(Duration.ofSeconds(2)).build());
    AtomicReference<Map<String, Record>> lastDesired = new AtomicReference<>(Map.of());
    AtomicInteger rounds = new AtomicInteger();
    AtomicBoolean running = new AtomicBoolean(true);
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, KafkaSink.defaultOptions().withBackoff(Duration.ofMillis(100),
          Duration.ofSeconds(1)));
      // churn: changes, deletes and re-creates, one converge every 20 ms, until told to stop
      Thread writer = new Thread(() -> {
        Random random = new Random(4);
        Map<String, Record> desired = new HashMap<>();
        while (running.get()) {
          int round = rounds.incrementAndGet();
          for (int i = 0; i < 20; i++) {
            String name = "cm-" + random.nextInt(100);
            if (random.nextInt(4) == 0) {
              desired.remove(name);
            } else {
              desired.put(name, InventoryRecords.configMap(name, round));
            }
          }
          try {
            ex.converge(InventoryRecords.TARGET, Set.of("fleet"),
                List.copyOf(desired.values()));
          } catch (IllegalStateException closed) {
            return;  // the test failed and closed the exporter
          }
          lastDesired.set(Map.copyOf(desired));
          try {
            Thread.sleep(20);  // pacing of the churn, not a wait for a result
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "churn");
      writer.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> rounds.get() >= 20
          && sink.topicCheck().writable());

      broker.broker().stop();
      // writes during the outage fail, retryably: the exporter keeps retrying them
      await().atMost(Duration.ofSeconds(30)).alias("two failed writes during the outage")
          .until(() -> ex.deliveryStatus(
              InventoryRecords.TARGET, "fleet").map(DeliveryStatus::consecutiveFailures)
              .orElse(0) >= 2);
      DeliveryStatus outage = ex.deliveryStatus(InventoryRecords.TARGET, "fleet").orElseThrow();
      assertThat(outage.lastError()).contains(broker.bootstrapServers()).contains(topic);
      assertThat(outage.rejected()).isEmpty();
      int roundsAtRestart = rounds.get();

      broker.broker().start();
      await().atMost(Duration.ofSeconds(60)).until(() -> rounds.get() >= roundsAtRestart + 50);
      running.set(false);
      writer.join(10_000);
      assertThat(ex.awaitIdle(Duration.ofSeconds(60))).isTrue();
      assertThat(ex.deliveryStatus(InventoryRecords.TARGET, "fleet").orElseThrow().failing())
          .isFalse();
      assertThat(sink.lag()).isZero();
    }
    Map<String, Message> fold = TopicContent.fold(broker.bootstrapServers(), topic);
    assertThat(fold.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> e.getValue().headers().get("contentHash"))))
        .isEqualTo(lastDesired.get().values().stream().collect(Collectors.toMap(
            KafkaSink::messageKey, Record::contentHash)));
  }
}

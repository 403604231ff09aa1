package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.DeliveryStatus;
import io.kollect.export.Exporter;
import io.kollect.export.RecordsRejectedException;
import io.kollect.export.SinkException;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.export.kafka.KafkaSinkConfig.Deletes;
import io.kollect.export.kafka.TopicContent.Message;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The kafka sink against a real in-process KRaft broker (one per class, a topic per test). */
class KafkaSinkIT {

  private static final AtomicInteger TOPICS = new AtomicInteger();
  @RegisterExtension static final PerClassBroker broker = new PerClassBroker();

  private static String newTopic() {
    return "inventory-" + TOPICS.incrementAndGet();
  }

  private static KafkaSinkConfig.Builder config(String topic) {
    return KafkaSinkConfig.builder().bootstrapServers(broker.bootstrapServers()).topic(topic)
        .deliveryTimeout(Duration.ofSeconds(10));
  }

  private static Exporter exporter(KafkaSink sink) {
    Exporter ex = Exporter.builder().build();
    ex.addSink(sink, KafkaSink.defaultOptions().withBackoff(Duration.ofMillis(50),
        Duration.ofMillis(500)));
    return ex;
  }

  @Test
  void foldOfTheTopicEqualsTheCurrentStateAfterChurnWithDeletesAndRecreates() throws Exception {
    String topic = newTopic();
    KafkaSink sink = new KafkaSink("fleet", config(topic)
        .createTopic(new CreateTopic(3, 1)).build());
    Random random = new Random(15);
    Map<String, Record> desired = new HashMap<>();
    try (Exporter ex = exporter(sink)) {
      for (int round = 0; round < 30; round++) {
        for (int i = 0; i < 40; i++) {
          String name = "cm-" + random.nextInt(120);
          if (random.nextInt(4) == 0) {
            desired.remove(name);  // deleted; a later round may create it again
          } else {
            desired.put(name, InventoryRecords.configMap(name, round));
          }
        }
        ex.converge(InventoryRecords.TARGET, Set.of("fleet"), List.copyOf(desired.values()));
      }
      assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(sink.lag()).isZero();
    }
    Map<String, Message> fold = TopicContent.fold(broker.bootstrapServers(), topic);
    assertThat(hashes(fold)).isEqualTo(desired.values().stream().collect(Collectors.toMap(
        KafkaSink::messageKey, Record::contentHash)));
    assertThat(fold.values()).allSatisfy(m -> assertThat(Records.fromJson(m.value()).contentHash())
        .isEqualTo(m.headers().get("contentHash")));
  }

  /**
   * Delivery is at least once: a write whose acknowledgement times out (a slow first metadata
   * fetch on a busy machine) is sent again though the broker kept it, so one state may appear
   * twice. What must hold is that a key lives in one partition, that its states arrive in order
   * and none is missing, and that a repeated sequence is the same state, never a different one.
   */
  @Test
  void everyMessageOfOneKeyIsInOnePartitionWithIncreasingSequences() throws Exception {
    String topic = newTopic();
    KafkaSink sink = new KafkaSink("fleet", config(topic).createTopic(new CreateTopic(4, 1))
        .build());
    try (Exporter ex = exporter(sink)) {
      for (int version = 0; version < 20; version++) {
        List<Record> desired = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          desired.add(InventoryRecords.configMap("cm-" + i, version));
        }
        ex.converge(InventoryRecords.TARGET, Set.of("fleet"), desired);
        assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
      }
    }
    Map<String, List<Message>> byKey = TopicContent.read(broker.bootstrapServers(), topic)
        .stream().collect(Collectors.groupingBy(Message::key));
    assertThat(byKey).hasSize(10);
    byKey.forEach((key, messages) -> {
      assertThat(messages.stream().map(Message::partition).distinct()).hasSize(1);
      List<Long> sequences = messages.stream()
          .map(m -> Long.parseLong(m.headers().get("sequence"))).toList();
      assertThat(sequences).isSorted();
      assertThat(sequences.stream().distinct()).hasSize(20);
      Map<Long, Set<String>> hashesBySequence = messages.stream().collect(Collectors.groupingBy(
          m -> Long.parseLong(m.headers().get("sequence")),
          Collectors.mapping(m -> m.headers().get("contentHash"), Collectors.toSet())));
      assertThat(hashesBySequence.values()).as("a repeated sequence repeats its state")
          .allSatisfy(hashes -> assertThat(hashes).hasSize(1));
    });
  }

  @Test
  void anOversizedRecordIsRejectedAloneAndTheOthersArrive() throws Exception {
    String topic = newTopic();
    broker.broker().createTopic(topic, 1, Map.of("cleanup.policy", "compact",
        "max.message.bytes", "20000"));
    KafkaSink sink = new KafkaSink("fleet", config(topic).build());
    List<Record> batch = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batch.add(InventoryRecords.configMap("cm-" + i, 1).withSequence(1));
    }
    Record huge = InventoryRecords.record(InventoryRecords.CONFIG_MAP, "load", "huge", 1,
        "x".repeat(50_000)).withSequence(1);
    batch.add(5, huge);
    try (sink) {
      assertThatThrownBy(() -> sink.write(batch))
          .isInstanceOfSatisfying(RecordsRejectedException.class, e -> {
            assertThat(e.othersDelivered()).isTrue();
            assertThat(e.reasonsByKey()).containsOnlyKeys(huge.key());
            assertThat(e.reasonsByKey().get(huge.key())).contains("too large");
          });
    }
    assertThat(TopicContent.fold(broker.bootstrapServers(), topic).keySet())
        .containsExactlyInAnyOrderElementsOf(batch.stream().filter(r -> r != huge)
            .map(KafkaSink::messageKey).toList());
  }

  @Test
  void throughTheExporterAnOversizedRecordIsReportedAndNeverBlocksTheOthers() throws Exception {
    String topic = newTopic();
    broker.broker().createTopic(topic, 1, Map.of("cleanup.policy", "compact",
        "max.message.bytes", "20000"));
    KafkaSink sink = new KafkaSink("fleet", config(topic).build());
    List<Record> desired = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      desired.add(InventoryRecords.configMap("cm-" + i, 1));
    }
    Record huge = InventoryRecords.record(InventoryRecords.CONFIG_MAP, "load", "huge", 1,
        "x".repeat(50_000));
    desired.add(huge);
    try (Exporter ex = exporter(sink)) {
      ex.converge(InventoryRecords.TARGET, Set.of("fleet"), desired);
      assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
      DeliveryStatus status = ex.deliveryStatus(InventoryRecords.TARGET, "fleet").orElseThrow();
      assertThat(status.rejected()).singleElement()
          .satisfies(r -> assertThat(r.key()).isEqualTo(huge.key()));
      assertThat(status.failing()).isFalse();
    }
    assertThat(TopicContent.fold(broker.bootstrapServers(), topic)).hasSize(10)
        .doesNotContainKey(KafkaSink.messageKey(huge));
  }

  @Test
  void aMissingTopicWithoutCreateTopicIsAClearErrorAndIsNotCreated() throws Exception {
    String topic = newTopic();
    KafkaSink sink = new KafkaSink("fleet", config(topic).build());
    try (sink) {
      TopicCheck check = sink.checkTopic();
      assertThat(check.status()).isEqualTo(TopicCheck.Status.ERROR);
      assertThat(check.reason()).isEqualTo("TopicMissing");
      assertThat(check.message()).contains(topic).contains("does not exist")
          .contains(broker.bootstrapServers());
      assertThatThrownBy(() -> sink.write(List.of(InventoryRecords.configMap("a", 1)
          .withSequence(1))))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e).hasMessageContaining(topic).hasMessageContaining("does not exist");
          });
    }
    try (Admin admin = broker.broker().admin()) {
      // the broker auto-creates topics on a producer's metadata request; the sink never asked
      assertThat(admin.listTopics().names().get()).doesNotContain(topic);
    }
  }

  @Test
  void createTopicCreatesTheMissingTopicCompactedWithItsRetentionAndLag() throws Exception {
    String topic = newTopic();
    KafkaSink sink = new KafkaSink("fleet", config(topic).createTopic(new CreateTopic(3,
        (short) 1, null, Duration.ofMinutes(5))).build());
    try (sink) {
      TopicCheck check = sink.checkTopic();
      assertThat(check.status()).isEqualTo(TopicCheck.Status.READY);
      assertThat(check.reason()).isEqualTo("TopicCreated");
      assertThat(sink.topicCheck()).isEqualTo(check);
      sink.write(List.of(InventoryRecords.configMap("a", 1).withSequence(1)));
    }
    try (Admin admin = broker.broker().admin()) {
      assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
          .partitions()).hasSize(3);
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
      assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
      assertThat(config.get("delete.retention.ms").value())
          .isEqualTo(String.valueOf(Duration.ofDays(1).toMillis()));
      assertThat(config.get("min.compaction.lag.ms").value())
          .isEqualTo(String.valueOf(Duration.ofMinutes(5).toMillis()));
    }
  }

  @Test
  void anExistingTopicWithoutCompactionIsAWarningAndWritesGoOn() throws Exception {
    String topic = newTopic();
    broker.broker().createTopic(topic, 1, Map.of("cleanup.policy", "delete"));
    KafkaSink sink = new KafkaSink("fleet", config(topic).createTopic(new CreateTopic(1, 1))
        .build());
    try (sink) {
      sink.write(List.of(InventoryRecords.configMap("a", 1).withSequence(1)));
      TopicCheck check = sink.topicCheck();
      assertThat(check.status()).isEqualTo(TopicCheck.Status.WARNING);
      assertThat(check.reason()).isEqualTo("TopicNotCompacted");
      assertThat(check.message()).contains(topic).contains("cleanup.policy=delete");
    }
    assertThat(TopicContent.fold(broker.bootstrapServers(), topic))
        .containsOnlyKeys(InventoryRecords.key("a"));
  }

  @Test
  void anExistingCompactedTopicIsReady() throws Exception {
    String topic = newTopic();
    broker.broker().createTopic(topic, 1, Map.of("cleanup.policy", "compact"));
    try (KafkaSink sink = new KafkaSink("fleet", config(topic).build())) {
      assertThat(sink.checkTopic().reason()).isEqualTo("TopicReady");
    }
  }

  @Test
  void deletesRecordAndBothArriveAsTheDeleteRecordAndThenATombstoneWithHeaders()
      throws Exception {
    for (Deletes deletes : List.of(Deletes.RECORD, Deletes.BOTH, Deletes.TOMBSTONE)) {
      String topic = newTopic();
      KafkaSink sink = new KafkaSink("fleet", config(topic).deletes(deletes)
          .createTopic(new CreateTopic(1, 1)).build());
      try (Exporter ex = exporter(sink)) {
        ex.converge(InventoryRecords.TARGET, Set.of("fleet"),
            List.of(InventoryRecords.configMap("cm-7", 1)));
        assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
        ex.converge(InventoryRecords.TARGET, Set.of("fleet"), List.of());
        assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
      }
      List<Message> messages = TopicContent.read(broker.bootstrapServers(), topic);
      assertThat(messages).allSatisfy(m -> assertThat(m.key())
          .isEqualTo("prod-eu-1/platform/cms//ConfigMap/load/cm-7"));
      Message upsert = messages.get(0);
      assertThat(upsert.headers()).containsEntry("op", "UPSERT")
          .containsEntry("contentHash", InventoryRecords.hash("cm-7", 1, 0))
          .containsKey("sequence");
      long upsertSeq = Long.parseLong(upsert.headers().get("sequence"));
      List<Message> deleteMessages = messages.subList(1, messages.size());
      assertThat(deleteMessages).allSatisfy(m -> {
        assertThat(m.headers()).containsEntry("op", "DELETE").doesNotContainKey("contentHash");
        assertThat(Long.parseLong(m.headers().get("sequence"))).isGreaterThan(upsertSeq);
      });
      switch (deletes) {
        case TOMBSTONE -> assertThat(deleteMessages).singleElement()
            .satisfies(m -> assertThat(m.value()).isNull());
        case RECORD -> assertThat(deleteMessages).singleElement()
            .satisfies(m -> assertThat(Records.fromJson(m.value()).op().name())
                .isEqualTo("DELETE"));
        case BOTH -> {
          assertThat(deleteMessages).hasSize(2);
          assertThat(Records.fromJson(deleteMessages.get(0).value()).op().name())
              .isEqualTo("DELETE");
          assertThat(deleteMessages.get(1).value()).isNull();
        }
        default -> throw new AssertionError(deletes);
      }
    }
  }

  @Test
  void aBadBootstrapAddressFailsTheWriteWithinTheDeliveryTimeoutNamingTheAddress()
      throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    String address = "127.0.0.1:" + closedPort;
    KafkaSink sink = new KafkaSink("fleet", KafkaSinkConfig.builder().bootstrapServers(address)
        .topic("inventory").deliveryTimeout(Duration.ofSeconds(2)).build());
    long start = System.nanoTime();
    try (sink) {
      assertThatThrownBy(() -> sink.write(List.of(InventoryRecords.configMap("a", 1)
          .withSequence(1))))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e).hasMessageContaining(address).hasMessageContaining("inventory");
          });
    }
    // 2 s delivery timeout plus the admin client's own close; never the default minute
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(sink.topicCheck().reason()).isEqualTo("TopicCheckFailed");
  }

  @Test
  void producerMetricsAreExposedAfterTheFirstWrite() throws Exception {
    String topic = newTopic();
    try (KafkaSink sink = new KafkaSink("fleet", config(topic).createTopic(new CreateTopic(1, 1))
        .build())) {
      assertThat(sink.producerMetrics()).isEmpty();
      sink.write(List.of(InventoryRecords.configMap("a", 1).withSequence(1)));
      assertThat(sink.producerMetrics()).containsKey("producer-metrics:record-send-total"
          + "{client-id=kollect-fleet}");
      assertThat(sink.producerMetrics().get("producer-metrics:record-send-total"
          + "{client-id=kollect-fleet}")).isEqualTo(1.0);
    }
  }

  private static Map<String, String> hashes(Map<String, Message> fold) {
    return fold.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> e.getValue().headers().get("contentHash")));
  }
}

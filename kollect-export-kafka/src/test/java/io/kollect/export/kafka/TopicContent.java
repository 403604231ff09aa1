package io.kollect.export.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What a consumer of the inventory topic sees: every message from the beginning ({@link #read}),
 * and the fold by key a consumer builds from them, a null value deleting ({@link #fold}).
 */
public final class TopicContent {

  /**
   * One message as read: key, value ({@code null} for a tombstone), headers, partition, offset,
   * and the producer's timestamp (when the sink handed it to its producer).
   */
  public record Message(String key, String value, Map<String, String> headers, int partition,
      long offset, long timestamp) {

    /** Header {@code op}: {@code UPSERT} or {@code DELETE}. */
    public String op() {
      return headers.get("op");
    }

    /** Header {@code contentHash}. */
    public String contentHash() {
      return headers.get("contentHash");
    }
  }

  private TopicContent() {}

  /**
   * Every message of the topic, in offset order per partition (partitions one after the other),
   * up to the end offsets at the time of the call; waits at most 30 s.
   */
  public static List<Message> read(String bootstrap, String topic) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // the broker must not create the topic for the reader, uncompacted, if it is not there yet
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props,
        new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30))
          .stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      Map<Integer, List<Message>> byPartition = new LinkedHashMap<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("topic " + topic + " not read to its end within 30 s");
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          Map<String, String> headers = new LinkedHashMap<>();
          for (Header h : r.headers()) {
            headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
          }
          byPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>())
              .add(new Message(r.key(), r.value(), headers, r.partition(), r.offset(),
                  r.timestamp()));
        }
      }
      return byPartition.values().stream().flatMap(List::stream).toList();
    }
  }

  /** The inventory a consumer folds from the topic: key to the last value, tombstones removing. */
  public static Map<String, Message> fold(String bootstrap, String topic) {
    Map<String, Message> state = new HashMap<>();
    for (Message m : read(bootstrap, topic)) {
      if (m.value() == null) {
        state.remove(m.key());
      } else {
        state.put(m.key(), m);
      }
    }
    return state;
  }
}

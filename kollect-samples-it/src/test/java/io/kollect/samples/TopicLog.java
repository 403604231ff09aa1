package io.kollect.samples;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What a consumer of an inventory topic reads from the beginning, with what kollect-export-kafka's
 * {@code TopicContent} leaves out and the kill test needs: each message's producer timestamp (when
 * the operator handed it to its producer) and offset.
 */
final class TopicLog {

  /** One message: key, value ({@code null} for a tombstone), headers, partition, offset, time. */
  record Message(String key, String value, Map<String, String> headers, int partition, long offset,
      long timestamp) {

    String op() {
      return headers.get("op");
    }

    String contentHash() {
      return headers.get("contentHash");
    }
  }

  private TopicLog() {}

  /** Whether the topic exists; asked before reading, so reading never auto-creates it. */
  static boolean exists(String bootstrap, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000))) {
      return admin.listTopics().names().get().contains(topic);
    }
  }

  /**
   * Every message of the topic up to its end offsets at the time of the call, per key in offset
   * order (a key lives in one partition), all partitions ordered by timestamp then offset; waits
   * at most 30 s.
   */
  static List<Message> read(String bootstrap, String topic) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // the broker must not create the topic for us, uncompacted, if it is not there yet
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    List<Message> out = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props,
        new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30))
          .stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
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
          out.add(new Message(r.key(), r.value(), headers, r.partition(), r.offset(),
              r.timestamp()));
        }
      }
    }
    out.sort(Comparator.comparingLong(Message::timestamp).thenComparingInt(Message::partition)
        .thenComparingLong(Message::offset));
    return out;
  }

  /**
   * The compression of every record batch the broker stored for {@code topic}, read from its log
   * segments (a consumer gets the records decompressed and never sees it).
   */
  static Set<String> storedCompression(Path logDir, String topic) throws IOException {
    Set<String> out = new TreeSet<>();
    try (Stream<Path> dirs = Files.list(logDir)) {
      for (Path partition : dirs.filter(d -> d.getFileName().toString().matches(
          java.util.regex.Pattern.quote(topic) + "-[0-9]+")).toList()) {
        try (Stream<Path> files = Files.list(partition)) {
          for (Path segment : files.filter(f -> f.toString().endsWith(".log")).toList()) {
            MemoryRecords records = MemoryRecords.readableRecords(
                ByteBuffer.wrap(Files.readAllBytes(segment)));
            records.batches().forEach(b -> out.add(b.compressionType().name));
          }
        }
      }
    }
    return out;
  }

  /** The messages of each key in offset order. */
  static Map<String, List<Message>> byKey(List<Message> messages) {
    Map<String, List<Message>> out = new LinkedHashMap<>();
    messages.stream()
        .sorted(Comparator.comparingInt(Message::partition).thenComparingLong(Message::offset))
        .forEach(m -> out.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(m));
    return out;
  }

  /** The consumer's fold: per key the last value in offset order, a tombstone removing the key. */
  static Map<String, Message> fold(List<Message> messages) {
    Map<String, Message> state = new HashMap<>();
    byKey(messages).forEach((key, list) -> {
      Message last = list.get(list.size() - 1);
      if (last.value() != null) {
        state.put(key, last);
      }
    });
    return state;
  }
}

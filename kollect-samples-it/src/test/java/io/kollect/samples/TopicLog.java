package io.kollect.samples;

import io.kollect.export.kafka.TopicContent.Message;
import io.kollect.export.kafka.TopicContent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.apache.kafka.common.record.MemoryRecords;

/**
 * What a consumer of an inventory topic reads from the beginning (kollect-export-kafka's {@link
 * TopicContent}), as the fleet tests need it: all partitions in the order the operators produced
 * the messages, per key in offset order; the fold; and how the broker stored the batches.
 */
final class TopicLog {

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
    List<Message> out = new ArrayList<>(TopicContent.read(bootstrap, topic));
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

package io.kollect.export.kafka;

import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.extract.Record;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One plaintext {@link KafkaBroker} for an IT class (launched before its first test, closed after
 * its last), and what the inventory ITs ask of it: a sink {@code fleet} that creates its topic, and
 * a topic folded to its content hashes. Register as a static field: {@code @RegisterExtension
 * static final PerClassBroker broker = new PerClassBroker();}.
 */
final class PerClassBroker implements BeforeAllCallback, AfterAllCallback {

  private KafkaBroker broker;

  /** The running broker, for what this fixture does not wrap (a restart, topics, admin). */
  KafkaBroker broker() {
    return broker;
  }

  String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /** A kafka sink {@code fleet} writing {@code topic}, created with 2 partitions when missing. */
  KafkaSink fleetSink(String topic) {
    return new KafkaSink("fleet", KafkaSinkConfig.builder()
        .bootstrapServers(broker.bootstrapServers()).topic(topic)
        .createTopic(new CreateTopic(2, 1)).build());
  }

  /** The topic compacted by key: each message key's latest content hash. */
  Map<String, String> foldedHashes(String topic) {
    return TopicContent.fold(broker.bootstrapServers(), topic).entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey,
            e -> e.getValue().headers().get("contentHash")));
  }

  /** What {@link #foldedHashes} must be when the topic is exactly {@code records}. */
  static Map<String, String> hashesByMessageKey(Collection<Record> records) {
    return records.stream().collect(Collectors.toMap(KafkaSink::messageKey,
        Record::contentHash));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    broker = KafkaBroker.launch();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (broker != null) {
      broker.close();
    }
  }
}

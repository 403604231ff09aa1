package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.export.Exporter;
import io.kollect.export.FileCheckpointStore;
import io.kollect.export.kafka.TopicContent.Message;
import io.kollect.extract.Record;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** An exporter restarted from its checkpoint sends the topic only what changed meanwhile. */
class ExporterRestartIT {

  @RegisterExtension static final PerClassBroker broker = new PerClassBroker();

  private static Exporter exporter(Path checkpoints, String topic) {
    Exporter ex = Exporter.builder().checkpointStore(new FileCheckpointStore(checkpoints)).build();
    ex.addSink(broker.fleetSink(topic), KafkaSink.defaultOptions());
    return ex;
  }

  @Test
  void aRestartFromTheCheckpointResendsNothingAcknowledgedAndTombstonesWhatWentMeanwhile(
      @TempDir Path checkpoints) throws Exception {
    String topic = "inventory-checkpoint";
    List<Record> first = InventoryRecords.configMaps(50);
    try (Exporter ex = exporter(checkpoints, topic)) {
      ex.converge(InventoryRecords.TARGET, Set.of("fleet"), first);
      assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
    }
    assertThat(TopicContent.read(broker.bootstrapServers(), topic)).hasSize(50);

    // while down: cm-0 changed, cm-1 was deleted, cm-50 appeared
    List<Record> second = new ArrayList<>(first.subList(2, 50));
    second.add(InventoryRecords.configMap("cm-0", 2));
    second.add(InventoryRecords.configMap("cm-50", 1));
    try (Exporter ex = exporter(checkpoints, topic)) {
      ex.converge(InventoryRecords.TARGET, Set.of("fleet"), second);
      assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
    }
    List<Message> all = TopicContent.read(broker.bootstrapServers(), topic);
    assertThat(all).hasSize(53);
    assertThat(all.stream().filter(m -> m.value() == null).map(Message::key))
        .containsExactly(InventoryRecords.key("cm-1"));
    assertThat(broker.foldedHashes(topic))
        .isEqualTo(PerClassBroker.hashesByMessageKey(second));
  }
}

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

/**
 * A compacted topic stays the inventory across a change of the shard count, also for objects
 * deleted while no shard ran: exporters standing for shards (ownership {@code cm-<i>}: {@code i
 * mod N}, each with its checkpoint in the operator's shard layout) hand checkpoint entries to the
 * new owners, which tombstone what went and send only what changed.
 */
class ShardCountChangeIT {

  @RegisterExtension static final PerClassBroker broker = new PerClassBroker();

  private static boolean owns(int total, int index, String recordKey) {
    String name = recordKey.substring(recordKey.lastIndexOf('/') + 1);
    return Integer.parseInt(name.substring("cm-".length())) % total == index;
  }

  private static void runShard(Path root, String topic, int total, int index,
      List<Record> cluster) {
    List<Record> owned = cluster.stream().filter(r -> owns(total, index, r.key())).toList();
    try (Exporter ex = Exporter.builder()
        .checkpointStore(FileCheckpointStore.inShardLayout(root, index))
        .ownedKeys((target, key) -> owns(total, index, key)).build()) {
      ex.addSink(broker.fleetSink(topic), KafkaSink.defaultOptions());
      ex.converge(InventoryRecords.TARGET, Set.of("fleet"), owned);
      assertThat(ex.awaitIdle(Duration.ofSeconds(30))).isTrue();
    }
  }

  @Test
  void afterTwoShardsBecomeThreeWhileObjectsWentTheTopicFoldsToTheClusterWithoutResends(
      @TempDir Path root) throws Exception {
    String topic = "inventory-reshard";
    List<Record> cluster = InventoryRecords.configMaps(30);
    runShard(root, topic, 2, 0, cluster);
    runShard(root, topic, 2, 1, cluster);
    assertThat(TopicContent.read(broker.bootstrapServers(), topic)).hasSize(30);

    // while no shard runs: cm-2 (0 of 2 -> 2 of 3) and cm-3 (1 of 2 -> 0 of 3) are deleted,
    // cm-5 (1 of 2 -> 2 of 3) changes, cm-30 appears
    List<Record> now = new ArrayList<>(cluster);
    now.removeIf(r -> r.name().equals("cm-2") || r.name().equals("cm-3"));
    now.replaceAll(r -> r.name().equals("cm-5") ? InventoryRecords.configMap("cm-5", 2) : r);
    now.add(InventoryRecords.configMap("cm-30", 1));
    // the old indexes restart with the new count before the new shard starts
    for (int index = 0; index < 3; index++) {
      runShard(root, topic, 3, index, now);
    }

    List<Message> all = TopicContent.read(broker.bootstrapServers(), topic);
    // two tombstones and two UPSERTs; nothing that moved unchanged was sent again
    assertThat(all).hasSize(34);
    assertThat(all.stream().filter(m -> m.value() == null).map(Message::key))
        .containsExactlyInAnyOrder(InventoryRecords.key("cm-2"), InventoryRecords.key("cm-3"));
    assertThat(broker.foldedHashes(topic)).isEqualTo(PerClassBroker.hashesByMessageKey(now));
  }
}

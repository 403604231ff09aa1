package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A target read from several clusters is exported under one key per cluster ({@code
 * cluster/ns/name}); its DELETEs name the target as its UPSERTs do ({@code ns/name}), so a
 * receiver keyed by (cluster, target, key) removes what it holds.
 */
class ClusterUnitTombstoneTest {

  @Test
  void aDeleteOfAClusterUnitNamesTheTargetNotTheExportKey() {
    RecordingSink s = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(s, ExporterTest.FAST);
      // TestRecords' records come from cluster c1.
      ex.converge("c1/ns/t", Set.of("s"), List.of(record("ns/t", "a", 1),
          record("ns/t", "b", 1)));
      ex.update("c1/ns/t", Set.of("s"), List.of(), List.of(key("a")));
      ex.removeTarget("c1/ns/t", true);
      assertThat(ex.awaitIdle(Duration.ofSeconds(10))).isTrue();
      List<Record> deletes = s.received.stream().filter(r -> r.op() == Op.DELETE).toList();
      assertThat(deletes).extracting(Record::name).containsExactlyInAnyOrder("a", "b");
      assertThat(deletes).extracting(Record::target).containsOnly("ns/t");
    }
  }

  @Test
  void aTargetOfOneClusterKeepsItsKey() {
    assertThat(SinkDiff.recordTarget("ns/t", "ns")).isEqualTo("ns/t");
    assertThat(SinkDiff.recordTarget("ns/t", "c1")).isEqualTo("ns/t");
    assertThat(SinkDiff.recordTarget("c1/ns/t", "c1")).isEqualTo("ns/t");
  }
}

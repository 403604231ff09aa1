package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.IntNode;
import io.kollect.export.Exporter;
import io.kollect.export.InventoryQuery;
import io.kollect.export.InventorySink;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExportCapTest {

  private static final GroupVersionKind CM = new GroupVersionKind("", "v1", "ConfigMap");

  private static Record record(String name, int v) {
    Map<String, com.fasterxml.jackson.databind.JsonNode> fields = Map.of("v", IntNode.valueOf(v));
    return new Record(Op.UPSERT, "c", "ns/t", "p", CM, "ns", name, "u-" + name, "1",
        Instant.EPOCH, Records.contentHash(CM, "ns", name, fields, Map.of(), Map.of()), fields,
        Map.of(), Map.of());
  }

  private static List<String> names(java.util.Collection<Record> records) {
    return records.stream().map(Record::name).sorted().toList();
  }

  @Test
  void anObjectEnteringBeforeTheBoundaryPushesTheLastKeptOneOut() {
    ExportCap cap = ExportCap.of(List.of(record("b", 1), record("c", 1), record("d", 1)), 2);
    RecordChanges in = new RecordChanges();
    in.upserts.add(record("a", 1));

    RecordChanges out = cap.apply(in);

    assertThat(names(out.upserts)).containsExactly("a");
    assertThat(names(out.removed)).containsExactly("c");
    assertThat(names(cap.kept())).containsExactly("a", "b");
    assertThat(cap.leftOutCount()).isEqualTo(2);
  }

  @Test
  void aKeyPushedOutAndPulledBackInOnePassIsNoChange() {
    ExportCap cap = ExportCap.of(List.of(record("b", 1), record("c", 1), record("d", 1)), 2);
    RecordChanges in = new RecordChanges();
    in.removed.add(record("b", 1)); // pulls d in
    in.upserts.add(record("a", 1)); // pushes d out again
    in.upserts.add(record("c", 2)); // a kept key changes

    RecordChanges out = cap.apply(in);

    assertThat(names(out.upserts)).containsExactly("a", "c");
    assertThat(names(out.removed)).containsExactly("b");
    assertThat(names(cap.kept())).containsExactly("a", "c");
  }

  @Test
  void deltasBeforeTheFirstFullPassAreCappedToo() {
    // A target still syncing streams deltas before any full pass has set up its cap.
    Exporter exporter = Exporter.builder().build();
    try {
      InventorySink view = new InventorySink("view");
      HandOver handOver = new HandOver(exporter,
          new ClusterInventoryView(view, null), Clock.systemUTC());
      TargetRuntime rt = new TargetRuntime(TargetRuntime.Definition.of(
          TargetSpec.builder(new TargetId("ns", "t"), "p").maxObjects(1).build()));
      RecordChanges changes = new RecordChanges();
      for (String n : List.of("b", "a", "c")) {
        Record r = record(n, 1);
        ObjectKey key = ObjectKey.of(new io.kollect.informers.ResourceType("", "v1", "ConfigMap"),
            "ns", n);
        changes.apply(rt.records, key, new TargetRecords.Entry("1", null, r));
      }

      handOver.delta(rt, changes, Set.of(), false);

      assertThat(names(view.query(InventoryQuery.all()))).containsExactly("a");
      assertThat(ExportCap.stale(rt)).isFalse();
    } finally {
      exporter.close();
    }
  }
}

package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InventorySinkTest {

  static Record service(String target, String ns, String name) {
    return service("c1", target, ns, name);
  }

  static Record service(String cluster, String target, String ns, String name) {
    return new Record(Op.UPSERT, cluster, target, "p", new GroupVersionKind("", "v1", "Service"), ns,
        name, "u", "1", Instant.EPOCH, "h", Map.of(), Map.of(), Map.of());
  }

  @Test
  void upsertReplacesAndDeleteRemoves() {
    InventorySink inv = new InventorySink("inv");
    inv.write(List.of(record("t", "a", 1), record("t", "b", 1)));
    inv.write(List.of(record("t", "a", 2), record("t", "b", 1).tombstone(Instant.EPOCH)));
    List<Record> all = inv.query(InventoryQuery.all());
    assertThat(all).hasSize(1);
    assertThat(TestRecords.seq(all.get(0))).isEqualTo(2);
    assertThat(inv.size("t")).isEqualTo(1);
  }

  @Test
  void queryFiltersByTargetGroupKindNamespaceAndNameOrderedByTargetThenKey() {
    InventorySink inv = new InventorySink("inv");
    inv.write(List.of(service("t2", "x", "s1"), record("t1", "b", 1), service("t1", "y", "s2"),
        record("t1", "a", 1), service("t1", "x", "s1")));
    assertThat(inv.query(InventoryQuery.all())).extracting(r -> r.target() + ":" + r.key())
        .containsExactly("t1:/Service/x/s1", "t1:/Service/y/s2", "t1:apps/Deployment/ns/a",
            "t1:apps/Deployment/ns/b", "t2:/Service/x/s1");
    assertThat(inv.query(new InventoryQuery("t1", "", "Service", null, null))).hasSize(2);
    assertThat(inv.query(new InventoryQuery(null, null, "Service", "x", null))).hasSize(2);
    assertThat(inv.query(new InventoryQuery(null, "apps", null, null, "b"))).hasSize(1);
    assertThat(inv.query(new InventoryQuery("nope", null, null, null, null))).isEmpty();
  }

  @Test
  void queryByClusterKeepsOnlyThatClustersRecordsOfATargetReadingSeveral() {
    InventorySink inv = new InventorySink("inv");
    inv.write(List.of(service("east", "t", "x", "s1"), service("west", "t", "x", "s2"),
        service("east", "u", "y", "s3")));
    assertThat(inv.query(new InventoryQuery(null, null, null, null, null, "east")))
        .extracting(r -> r.cluster() + ":" + r.target() + ":" + r.name())
        .containsExactly("east:t:s1", "east:u:s3");
    assertThat(inv.query(new InventoryQuery("t", null, null, null, null, "west")))
        .extracting(Record::name).containsExactly("s2");
    assertThat(inv.query(new InventoryQuery(null, null, null, null, null, "north"))).isEmpty();
    assertThat(inv.query(InventoryQuery.all())).hasSize(3);
  }

  @Test
  void recordsAreOrderedAsTheirJoinedKeysAlsoWhenOneSegmentIsAPrefixOfAnother() {
    InventorySink inv = new InventorySink("inv");
    List<Record> records = new java.util.ArrayList<>();
    for (String group : List.of("", "a", "ab", "a.b")) {
      for (String kind : List.of("K", "KK", "K-")) {
        for (String ns : List.of("", "n", "n1", "n-")) {
          for (String name : List.of("x", "x0", "x/", "-")) {
            records.add(new Record(Op.UPSERT, "c1", "t", "p", new GroupVersionKind(group, "v1",
                kind), ns.isEmpty() ? null : ns, name, "u", "1", Instant.EPOCH, "h", Map.of(),
                Map.of(), Map.of()));
          }
        }
      }
    }
    java.util.Collections.shuffle(records, new java.util.Random(7));
    inv.write(records);
    assertThat(inv.query(InventoryQuery.all())).extracting(Record::key)
        .containsExactlyElementsOf(records.stream().map(Record::key).sorted().toList());
  }
}

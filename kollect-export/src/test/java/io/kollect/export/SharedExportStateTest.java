package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the export state holds once per object rather than once per sink or per view: a state
 * handed to several sinks in one call is one sent record with one sequence, and the in-memory
 * view keeps no concatenated key per record yet lists records in key order.
 */
class SharedExportStateTest {

  static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void aStateHandedToTwoSinksInOneCallCarriesOneSequenceAndIsRememberedOnce() {
    RecordingSink a = new RecordingSink("a");
    RecordingSink b = new RecordingSink("b");
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(a, ExporterTest.FAST);
      ex.addSink(b, ExporterTest.FAST);
      ex.converge("t", Set.of("a", "b"), records("t", 20, 1));
      ex.update("t", Set.of("a", "b"), List.of(record("t", "r3", 2)), List.of());
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(a.received).hasSize(21);
    assertThat(b.received).hasSize(21);
    Map<String, Long> seenByA = new HashMap<>();
    a.received.forEach(r -> seenByA.put(r.key() + "@" + r.contentHash(), r.sequence()));
    assertThat(b.received).allSatisfy(r ->
        assertThat(r.sequence()).isEqualTo(seenByA.get(r.key() + "@" + r.contentHash())));
    // one sent record per state, whichever sink delivered it
    for (int i = 0; i < a.received.size(); i++) {
      Record ra = a.received.get(i);
      assertThat(b.received).anySatisfy(rb -> assertThat(rb).isSameAs(ra));
    }
  }

  @Test
  void aNewStateStillGetsALargerSequenceThanAnyBeforeForEverySink() {
    RecordingSink a = new RecordingSink("a");
    RecordingSink b = new RecordingSink("b");
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(a, ExporterTest.FAST);
      ex.converge("t", Set.of("a"), List.of(record("t", "x", 1)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.addSink(b, ExporterTest.FAST);
      ex.converge("t", Set.of("a", "b"), List.of(record("t", "x", 1)));
      // delivered before the next state, which would otherwise replace it in b's buffer
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.update("t", Set.of("a", "b"), List.of(record("t", "x", 2)), List.of());
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(a.received).extracting(Record::sequence).isSorted().doesNotHaveDuplicates()
        .hasSize(2);
    assertThat(b.received).extracting(Record::sequence).isSorted().doesNotHaveDuplicates()
        .hasSize(2);
    assertThat(b.received.get(1).sequence()).isEqualTo(a.received.get(1).sequence())
        .isGreaterThan(a.received.get(0).sequence());
  }

  @Test
  void theViewListsRecordsInTheOrderOfTheirKeyStringsAndAChangeReplacesItsPredecessor() {
    InventorySink view = new InventorySink("view");
    // names and namespaces where one is a prefix of another, around the '/' separator ('-' and
    // '.' sort before '/', '0' after it): the order must be that of the joined key strings
    List<Record> written = List.of(cm("a", "x"), cm("a-b", "x"), cm("a", "x-y"), cm("a.b", "x"),
        cm("a0", "x"), cm("a", "x0"), cm("a", "xy"), deployment("a", "x"), cm("b", ""));
    view.write(written);
    view.write(List.of(cm("a", "x").tombstone(Instant.EPOCH), cm("a-b", "x", "changed")));
    List<String> expected = written.stream().map(Record::key)
        .filter(k -> !k.equals(cm("a", "x").key())).sorted().toList();
    assertThat(view.query(InventoryQuery.all())).extracting(Record::key)
        .containsExactlyElementsOf(expected);
    assertThat(view.query(new InventoryQuery("t", null, null, "a-b", "x")))
        .extracting(Record::contentHash).containsExactly("changed");
    assertThat(view.size("t")).isEqualTo(expected.size());
  }

  private static Record cm(String ns, String name) {
    return cm(ns, name, "h");
  }

  private static Record cm(String ns, String name, String hash) {
    return new Record(Op.UPSERT, "c", "t", "p", new GroupVersionKind("", "v1", "ConfigMap"),
        ns.isEmpty() ? null : ns, name, "u", "1", Instant.EPOCH, hash, Map.of(), Map.of(),
        Map.of());
  }

  private static Record deployment(String ns, String name) {
    return new Record(Op.UPSERT, "c", "t", "p", new GroupVersionKind("apps", "v1", "Deployment"),
        ns, name, "u", "1", Instant.EPOCH, "h", Map.of(), Map.of(), Map.of());
  }
}

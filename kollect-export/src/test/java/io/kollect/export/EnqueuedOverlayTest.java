package io.kollect.export;

import static io.kollect.export.TestRecords.T0;
import static io.kollect.export.TestRecords.enqueued;
import static io.kollect.export.TestRecords.exportKey;
import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The enqueued view of a (target, sink) is the acknowledged map under an overlay of the keys whose
 * enqueued state differs: once everything handed over is acknowledged the overlay is empty, and no
 * acknowledgement, late, repeated or out of order, changes what the view says.
 */
class EnqueuedOverlayTest {

  static final Duration WAIT = Duration.ofSeconds(15);
  static final ExportKey K = exportKey("k");

  /** The entry of state {@code version} of object {@code name}; each call makes a new instance. */
  static ExportedEntry entry(String name, long version) {
    return ExportedEntry.sent(record("t", name, version).withSequence(version), T0);
  }

  @Test
  void afterAFullyAcknowledgedExportTheOverlayIsEmptyAndEachKeyIsHeldOnce() {
    RecordingSink a = new RecordingSink("a");
    RecordingSink b = new RecordingSink("b");
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(a, ExporterTest.FAST);
      ex.addSink(b, ExporterTest.FAST);
      ex.converge("t", Set.of("a", "b"), records("t", 300, 1));
      ex.update("t", Set.of("a", "b"), List.of(record("t", "obj-7", 2)),
          List.of(TestRecords.key("obj-8")));
      ex.converge("t", Set.of("a", "b"), records("t", 250, 3)); // 50 vanish, 250 change
      assertThat(ex.awaitIdle(WAIT)).isTrue();

      TargetState ts = ex.targetState("t");
      synchronized (ts) {
        for (SinkState st : ts.bySink.values()) {
          assertThat(st.overlaySize()).isZero();
          assertThat(st.enqueuedSize()).isEqualTo(250);
          Map<ExportKey, ExportedEntry> view = enqueued(st);
          assertThat(view).hasSize(250);
          view.forEach((k, e) -> assertThat(st.acknowledged.get(k)).isSameAs(e));
        }
      }
    }
    Set<String> deleted = a.received.stream().filter(r -> r.op() == Op.DELETE)
        .map(Record::key).collect(Collectors.toSet());
    assertThat(deleted).containsAll(IntStream.range(250, 300)
        .mapToObj(i -> TestRecords.key("obj-" + i)).toList());
  }

  @Test
  void aReplacedSinkIsReSentEverythingAndItsOverlayEmptiesOnceThatIsAcknowledged() {
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(new RecordingSink("s"), ExporterTest.FAST);
      ex.converge("t", Set.of("s"), records("t", 100, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      RecordingSink replacement = new RecordingSink("s");
      ex.addSink(replacement, ExporterTest.FAST);
      assertThat(ex.awaitIdle(WAIT)).isTrue();

      assertThat(replacement.received).hasSize(100);
      TargetState ts = ex.targetState("t");
      synchronized (ts) {
        SinkState st = ts.bySink.get("s");
        assertThat(st.overlaySize()).isZero();
        assertThat(st.enqueuedSize()).isEqualTo(100);
        assertThat(enqueued(st).values()).allSatisfy(e -> assertThat(e.hash()).isNotNull());
      }
    }
  }

  @Test
  void aLateAcknowledgementOfAnOlderEntryDoesNotDropTheNewerOneInFlight() {
    SinkState st = new SinkState("t", "s", Map.of());
    ExportedEntry older = entry("k", 1);
    ExportedEntry newer = entry("k", 2);
    st.markEnqueued(K, older);
    st.markEnqueued(K, newer);

    st.acknowledge(K, Op.UPSERT, older, T0);

    assertThat(st.enqueuedEntry(K)).isSameAs(newer);
    assertThat(st.acknowledged.get(K)).isSameAs(older);
    assertThat(st.overlaySize()).isOne();

    st.acknowledge(K, Op.UPSERT, newer, T0);

    assertThat(st.enqueuedEntry(K)).isSameAs(newer);
    assertThat(st.overlaySize()).isZero();
    assertThat(st.enqueuedSize()).isOne();
  }

  @Test
  void anEqualButDistinctEntryInFlightIsNotMistakenForTheAcknowledgedOne() {
    SinkState st = new SinkState("t", "s", Map.of());
    ExportedEntry first = entry("k", 1);
    ExportedEntry again = entry("k", 1); // a heartbeat within the same clock tick
    assertThat(again).isEqualTo(first).isNotSameAs(first);
    st.markEnqueued(K, first);
    st.markEnqueued(K, again);

    st.acknowledge(K, Op.UPSERT, first, T0);

    assertThat(st.enqueuedEntry(K)).isSameAs(again);
    assertThat(st.overlaySize()).isOne();
  }

  @Test
  void deleteThenUpsertThenDeleteWithAcknowledgementsInOrderLeavesNothing() {
    ExportedEntry acked = entry("k", 1);
    SinkState st = new SinkState("t", "s", Map.of(K, acked));
    ExportedEntry firstDeleteOf = st.markDeleted(K);
    ExportedEntry back = entry("k", 2);
    st.markEnqueued(K, back);
    ExportedEntry secondDeleteOf = st.markDeleted(K);
    assertThat(firstDeleteOf).isSameAs(acked);
    assertThat(secondDeleteOf).isSameAs(back);

    st.acknowledge(K, Op.DELETE, firstDeleteOf, T0);
    assertThat(st.enqueuedEntry(K)).isNull();
    st.acknowledge(K, Op.UPSERT, back, T0);
    assertThat(st.enqueuedEntry(K)).isNull();
    st.acknowledge(K, Op.DELETE, secondDeleteOf, T0);

    assertThat(st.enqueuedEntry(K)).isNull();
    assertThat(st.acknowledged).isEmpty();
    assertThat(st.overlaySize()).isZero();
    assertThat(st.enqueuedSize()).isZero();
  }

  @Test
  void aLateAcknowledgementOfAnEarlierDeleteDoesNotTakeTheMarkOfTheLaterOne() {
    SinkState st = new SinkState("t", "s", Map.of(K, entry("k", 1)));
    ExportedEntry firstDeleteOf = st.markDeleted(K);
    ExportedEntry back = entry("k", 2);
    st.markEnqueued(K, back);
    ExportedEntry secondDeleteOf = st.markDeleted(K);

    // the second DELETE coalesced the upsert away; the first one is acknowledged only now
    st.acknowledge(K, Op.DELETE, firstDeleteOf, T0);

    assertThat(st.enqueuedEntry(K)).isNull();
    assertThat(st.overlaySize()).isOne();

    st.acknowledge(K, Op.DELETE, secondDeleteOf, T0);

    assertThat(st.overlaySize()).isZero();
    assertThat(st.enqueuedSize()).isZero();
  }

  @Test
  void deleteThenUpsertOfTheSameInstanceThenDeleteNeverShowsTheKeyAsEnqueued() {
    // Both DELETEs are acknowledged with the same entry instance: the first acknowledgement may
    // take the second one's mark, and the view must still not show the key at any point.
    ExportedEntry same = entry("k", 1);
    SinkState st = new SinkState("t", "s", Map.of(K, same));
    st.markDeleted(K);
    st.markEnqueued(K, same);
    st.markDeleted(K);

    st.acknowledge(K, Op.DELETE, same, T0);
    assertThat(st.enqueuedEntry(K)).isNull();
    st.acknowledge(K, Op.UPSERT, same, T0);
    assertThat(st.enqueuedEntry(K)).isNull();
    st.acknowledge(K, Op.DELETE, same, T0);

    assertThat(st.enqueuedEntry(K)).isNull();
    assertThat(st.enqueuedSize()).isZero();
    assertThat(st.acknowledged).isEmpty();
  }

  @Test
  void aRefusedStateStaysEnqueuedSoTheDiffDoesNotOfferItAgain() {
    ExportedEntry acked = entry("k", 1);
    SinkState st = new SinkState("t", "s", Map.of(K, acked));
    ExportedEntry refused = entry("k", 2);
    st.markEnqueued(K, refused);

    st.refuse(K, refused, "too large");

    assertThat(st.enqueuedEntry(K)).isSameAs(refused);
    assertThat(st.acknowledged.get(K)).isSameAs(acked);
    assertThat(st.isRefused(K, st.enqueuedEntry(K))).isTrue();
  }

  @Test
  void aRefusedDeleteLeavesTheKeyNotEnqueuedButAcknowledged() {
    ExportedEntry acked = entry("k", 1);
    SinkState st = new SinkState("t", "s", Map.of(K, acked));

    ExportedEntry last = st.markDeleted(K);
    st.refuse(K, last, "forbidden");

    assertThat(st.enqueuedEntry(K)).isNull();
    assertThat(st.enqueuedSize()).isZero();
    assertThat(st.acknowledged).containsOnlyKeys(K);
  }

  @Test
  void anAcknowledgementOfAStateNeverEnqueuedLeavesTheViewAsItWas() {
    // what a sink replaced meanwhile, or a test, may acknowledge: the view keeps saying "absent"
    SinkState st = new SinkState("t", "s", Map.of());

    st.acknowledge(K, Op.UPSERT, entry("k", 1), T0);

    assertThat(st.enqueuedEntry(K)).isNull();
    assertThat(st.enqueuedSize()).isZero();
    assertThat(st.acknowledged).containsOnlyKeys(K);
  }

  @Test
  void resetToAcknowledgedKeepsEveryKeyWithoutHashAndLateAcknowledgementsDoNotUndoIt() {
    ExportedEntry a = entry("a", 1);
    ExportedEntry b = entry("b", 1);
    SinkState st = new SinkState("t", "s", Map.of(exportKey("a"), a, exportKey("b"), b));
    ExportedEntry inFlight = entry("c", 1);
    st.markEnqueued(exportKey("c"), inFlight);
    ExportedEntry deleteOfB = st.markDeleted(exportKey("b"));

    st.resetToAcknowledged();
    // the replaced sink's writes still complete
    st.acknowledge(exportKey("c"), Op.UPSERT, inFlight, T0);
    st.acknowledge(exportKey("b"), Op.DELETE, deleteOfB, T0);

    Map<ExportKey, ExportedEntry> view = enqueued(st);
    assertThat(view).containsOnlyKeys(exportKey("a"), exportKey("b"), exportKey("c"));
    assertThat(view.values()).allSatisfy(e -> assertThat(e.hash()).isNull());
    assertThat(st.enqueuedSize()).isEqualTo(3);
  }

  @Test
  void entriesKeptForAnotherShardBecomeAcknowledgedButNotEnqueuedUntilTheirDeleteIs() {
    SinkState st = new SinkState("t", "s", Map.of());
    ExportedEntry theirs = entry("theirs", 1);

    st.adoptForTombstones(Map.of(exportKey("theirs"), theirs));

    assertThat(st.enqueuedEntry(exportKey("theirs"))).isNull();
    assertThat(st.enqueuedSize()).isZero();
    assertThat(st.acknowledged).containsOnlyKeys(exportKey("theirs"));

    st.acknowledge(exportKey("theirs"), Op.DELETE, theirs, T0);

    assertThat(st.acknowledged).isEmpty();
    assertThat(st.overlaySize()).isZero();
  }

  @Test
  void aReaderNeverMissesAKeyWhileItsAcknowledgementsLandOnAnotherThread() throws Exception {
    // The diff's thread changes the view and, after each change, reads every key back while a
    // delivery thread acknowledges what it was handed, in order: each read must show exactly the
    // last state handed over (an acknowledgement that removed the overlay's entry before its
    // entry was in the acknowledged map would show the key as absent).
    List<ExportKey> keys = IntStream.range(0, 8).mapToObj(i -> exportKey("obj-" + i)).toList();
    SinkState st = new SinkState("t", "s", Map.of());
    BlockingQueue<Optional<Handed>> delivery = new LinkedBlockingQueue<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread deliverer = new Thread(() -> {
      try {
        for (Optional<Handed> h = delivery.take(); h.isPresent(); h = delivery.take()) {
          st.acknowledge(h.get().key(), h.get().op(), h.get().entry(), T0);
        }
      } catch (Throwable t) {
        failed.set(t);
      }
    }, "test-deliverer");
    deliverer.start();
    Map<ExportKey, ExportedEntry> expected = new java.util.HashMap<>();
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 20_000; i++) {
      ExportKey key = keys.get(random.nextInt(keys.size()));
      if (random.nextInt(4) == 0) {
        ExportedEntry last = st.markDeleted(key);
        assertThat(last).isSameAs(expected.remove(key));
        if (last != null) {
          delivery.add(Optional.of(new Handed(key, Op.DELETE, last)));
        }
      } else {
        ExportedEntry e = entry(key.toString(), i);
        st.markEnqueued(key, e);
        expected.put(key, e);
        delivery.add(Optional.of(new Handed(key, Op.UPSERT, e)));
      }
      for (ExportKey k : keys) {
        assertThat(st.enqueuedEntry(k)).isSameAs(expected.get(k));
      }
      assertThat(st.enqueuedSize()).isEqualTo(expected.size());
    }
    delivery.add(Optional.empty());
    deliverer.join(WAIT.toMillis());
    assertThat(deliverer.isAlive()).isFalse();
    assertThat(failed.get()).isNull();
    assertThat(st.overlaySize()).isZero();
    assertThat(enqueued(st)).isEqualTo(expected);
  }

  record Handed(ExportKey key, Op op, ExportedEntry entry) {}
}

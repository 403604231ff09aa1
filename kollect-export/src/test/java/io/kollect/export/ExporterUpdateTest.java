package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link Exporter#update}: deltas between full passes, and what it hands to the checkpoint. */
class ExporterUpdateTest {

  static final Duration WAIT = Duration.ofSeconds(10);

  /** A map-backed store that counts loads and records every call the exporter makes. */
  static final class RecordingStore implements CheckpointStore {
    final Map<String, Map<String, ExportedEntry>> saved = new HashMap<>();
    final AtomicInteger loads = new AtomicInteger();
    final List<String> calls = new ArrayList<>();
    final List<Map<String, ExportedEntry>> applied = new ArrayList<>();
    final List<Set<String>> removed = new ArrayList<>();

    @Override
    public synchronized Map<String, ExportedEntry> load(String target, String sink) {
      loads.incrementAndGet();
      return saved.getOrDefault(target + "|" + sink, Map.of());
    }

    @Override
    public synchronized void save(String target, String sink, Map<String, ExportedEntry> e) {
      calls.add("save " + e.size());
      saved.put(target + "|" + sink, Map.copyOf(e));
    }

    @Override
    public synchronized void apply(String target, String sink, Map<String, ExportedEntry> changed,
        Set<String> gone) {
      calls.add("apply " + changed.size() + " -" + gone.size());
      applied.add(Map.copyOf(changed));
      removed.add(Set.copyOf(gone));
      Map<String, ExportedEntry> merged = new HashMap<>(saved.getOrDefault(target + "|" + sink,
          Map.of()));
      merged.keySet().removeAll(gone);
      merged.putAll(changed);
      saved.put(target + "|" + sink, merged);
    }

    @Override
    public synchronized void delete(String target, String sink) {
      calls.add("delete");
      saved.remove(target + "|" + sink);
    }

    synchronized List<String> calls() {
      return List.copyOf(calls);
    }
  }

  @Test
  void aSinkFirstNamedByUpdateReceivesOnlyThoseChangesAndTheNextConvergeCompletesIt() {
    RecordingSink a = new RecordingSink("a");
    RecordingSink b = new RecordingSink("b");
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(a, ExporterTest.FAST);
      ex.addSink(b, ExporterTest.FAST);
      ex.converge("t", Set.of("a"), records("t", 5, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();

      ex.update("t", Set.of("a", "b"), List.of(record("t", "obj-1", 2)), List.of(key("obj-4")));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(b.received).extracting(Record::key, Record::op)
          .containsExactly(tuple(key("obj-1"), Op.UPSERT));

      List<Record> all = new ArrayList<>(records("t", 4, 1));
      all.set(1, record("t", "obj-1", 2));
      ex.converge("t", Set.of("a", "b"), all);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(b.latestByKey().keySet()).containsExactlyInAnyOrder(
          key("obj-0"), key("obj-1"), key("obj-2"), key("obj-3"));
      assertThat(b.received).hasSize(4).allMatch(r -> r.op() == Op.UPSERT);
    }
  }

  @Test
  void aSinkAddedWhileOnlyUpdatesArrivedDoesNotTombstoneKeysOnlyItsCheckpointKnows() {
    RecordingStore store = new RecordingStore();
    Map<String, ExportedEntry> cp = new HashMap<>();
    for (Record r : records("t", 3, 1)) {
      cp.put(r.key(), ExportedEntry.of(r));
    }
    store.saved.put("t|late", cp);
    RecordingSink late = new RecordingSink("late");
    try (Exporter ex = Exporter.builder().checkpointStore(store).build()) {
      // the initial list is still arriving: one object so far, the sink not yet configured
      ex.update("t", Set.of("late"), List.of(record("t", "obj-0", 2)), List.of());
      ex.addSink(late, ExporterTest.FAST);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(late.received).extracting(Record::key, Record::op)
          .containsExactly(tuple(key("obj-0"), Op.UPSERT));

      // the full pass after the list knows obj-2 is gone
      ex.converge("t", Set.of("late"), List.of(record("t", "obj-0", 2), record("t", "obj-1", 1)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(late.received.subList(1, late.received.size()))
          .extracting(Record::key, Record::op).containsExactly(tuple(key("obj-2"), Op.DELETE));
    }
  }

  @Test
  void aKeyBothUpsertedAndDeletedInOneUpdateEndsDeleted() {
    RecordingSink s = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(s, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
      ex.update("t", Set.of("s"), List.of(record("t", "a", 2)), List.of(key("a")));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(s.latestByKey().get(key("a")).op()).isEqualTo(Op.DELETE);
      assertThat(ex.enqueuedKeys("t", "s")).isEmpty();
    }
  }

  @Test
  void updatesWithAnUnchangedSinkSetLoadTheCheckpointOnceAndSendNothingUnchanged() {
    RecordingStore store = new RecordingStore();
    RecordingSink s = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().checkpointStore(store).build()) {
      ex.addSink(s, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), records("t", 100, 1));
      for (int i = 0; i < 50; i++) {
        ex.update("t", Set.of("s"), List.of(record("t", "obj-" + i, 1)), List.of());
      }
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(store.loads.get()).isEqualTo(1);
      assertThat(s.received).hasSize(100);
    }
  }

  @Test
  void theCheckpointReceivesOnlyTheKeysAcknowledgedSinceItsLastWrite() {
    RecordingStore store = new RecordingStore();
    RecordingSink s = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().checkpointStore(store)
        .checkpointInterval(Duration.ofHours(1)).build()) {
      ex.addSink(s, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), records("t", 100, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.checkpointTick();
      assertThat(store.calls()).containsExactly("apply 100 -0");

      ex.update("t", Set.of("s"), List.of(record("t", "obj-7", 2)), List.of(key("obj-9")));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.checkpointTick();
      assertThat(store.calls()).containsExactly("apply 100 -0", "apply 1 -1");
      assertThat(store.applied.get(1)).containsOnlyKeys(key("obj-7"));
      assertThat(store.applied.get(1).get(key("obj-7")).contentHash()).isEqualTo("hash-obj-7-2");
      assertThat(store.removed.get(1)).containsExactly(key("obj-9"));

      // nothing acknowledged since: nothing written
      ex.checkpointTick();
      assertThat(store.calls()).hasSize(2);
    }
  }

  @Test
  void aFailedDeltaWriteIsRetriedWithTheSameKeys() {
    RecordingStore store = new RecordingStore();
    AtomicInteger failures = new AtomicInteger(1);
    CheckpointStore flaky = new CheckpointStore() {
      @Override
      public Map<String, ExportedEntry> load(String target, String sink) {
        return store.load(target, sink);
      }

      @Override
      public void save(String target, String sink, Map<String, ExportedEntry> entries) {
        store.save(target, sink, entries);
      }

      @Override
      public void apply(String target, String sink, Map<String, ExportedEntry> changed,
          Set<String> removed) {
        if (failures.getAndDecrement() > 0) {
          throw new IllegalStateException("disk full");
        }
        store.apply(target, sink, changed, removed);
      }

      @Override
      public void delete(String target, String sink) {
        store.delete(target, sink);
      }
    };
    RecordingSink s = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().checkpointStore(flaky)
        .checkpointInterval(Duration.ofHours(1)).build()) {
      ex.addSink(s, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), records("t", 10, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.checkpointTick();
      assertThat(store.calls()).isEmpty();
      ex.checkpointTick();
      assertThat(store.calls()).containsExactly("apply 10 -0");
    }
  }

  @Test
  void heartbeatAcknowledgementsAreNotWrittenUntilCloseWhichWritesTheWholeStateOnce() {
    RecordingStore store = new RecordingStore();
    RecordingSink s = new RecordingSink("s");
    MutableClock clock = new MutableClock(TestRecords.T0);
    Exporter ex = Exporter.builder().checkpointStore(store).clock(clock)
        .checkpointInterval(Duration.ofHours(1)).build();
    ex.addSink(s, ExporterTest.FAST.withHeartbeatInterval(Duration.ofHours(1)));
    ex.converge("t", Set.of("s"), records("t", 20, 1));
    assertThat(ex.awaitIdle(WAIT)).isTrue();
    ex.checkpointTick();

    clock.advance(Duration.ofHours(2));
    for (int slice = 0; slice < Heartbeats.SLICES; slice++) {
      ex.heartbeatTick("s", slice);
    }
    assertThat(ex.awaitIdle(WAIT)).isTrue();
    assertThat(s.received).hasSize(40);
    ex.checkpointTick();
    assertThat(store.calls()).containsExactly("apply 20 -0");

    ex.close();
    assertThat(store.calls()).containsExactly("apply 20 -0", "save 20");
    assertThat(store.saved.get("t|s").values())
        .allMatch(e -> e.lastSentAt().equals(TestRecords.T0.plus(Duration.ofHours(2))));
  }
}

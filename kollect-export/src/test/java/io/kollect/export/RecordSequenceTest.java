package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Every record handed to a sink carries a per-key sequence that only ever grows. */
class RecordSequenceTest {

  static final Duration WAIT = Duration.ofSeconds(10);
  static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");

  /** A checkpoint store in memory that a test can freeze, as a kill -9 stops all later writes. */
  static final class FreezableStore implements CheckpointStore {
    final Map<String, Map<String, ExportedEntry>> saved = new ConcurrentHashMap<>();
    volatile boolean frozen;

    @Override
    public Map<String, ExportedEntry> load(String target, String sink) {
      return saved.getOrDefault(target + "|" + sink, Map.of());
    }

    @Override
    public void save(String target, String sink, Map<String, ExportedEntry> entries) {
      if (!frozen) {
        saved.put(target + "|" + sink, Map.copyOf(entries));
      }
    }

    @Override
    public void delete(String target, String sink) {
      if (!frozen) {
        saved.remove(target + "|" + sink);
      }
    }
  }

  /**
   * An exporter that delivered state 1 of key {@code a} and saw it checkpointed; then the store
   * freezes, as a kill -9 stops every later write.
   */
  private static Exporter checkpointedStateOneThenFrozen(FreezableStore store, MutableClock clock,
      RecordingSink sink) {
    Exporter first = Exporter.builder().checkpointStore(store).clock(clock)
        .checkpointInterval(Duration.ofMillis(10)).build();
    first.addSink(sink, ExporterTest.FAST);
    first.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
    assertThat(first.awaitIdle(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> !store.load("t", "s").isEmpty());
    store.frozen = true;
    return first;
  }

  private static long micros(Instant t) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, t);
  }

  private static List<Long> sequencesOf(RecordingSink sink, String name) {
    return sink.received.stream().filter(r -> r.key().equals(key(name)))
        .map(Record::sequence).toList();
  }

  @Test
  void everyNewStateAndEveryDeleteGetsALargerSequenceAndARetryRepeatsIt() {
    MutableClock clock = new MutableClock(T0);
    RecordingSink sink = new RecordingSink("s");
    int[] failures = {1};
    sink.failWith(batch -> failures[0]-- > 0 ? SinkException.retryable("timeout", null) : null);
    try (Exporter ex = Exporter.builder().clock(clock).build()) {
      ex.addSink(sink, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.converge("t", Set.of("s"), List.of(record("t", "a", 2)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.converge("t", Set.of("s"), List.of());
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    // the first write failed and was retried: what arrived is state 1, state 2, the DELETE
    assertThat(sink.received).extracting(Record::op)
        .containsExactly(Op.UPSERT, Op.UPSERT, Op.DELETE);
    List<Long> seqs = sequencesOf(sink, "a");
    assertThat(seqs).doesNotContainNull().isSorted().doesNotHaveDuplicates();
    // the clock did not move: the first is the wall clock, the others count up from it
    assertThat(seqs).containsExactly(micros(T0), micros(T0) + 1, micros(T0) + 2);
  }

  @Test
  void aRetriedRecordCarriesTheSequenceItWasFirstSentWith() {
    RecordingSink sink = new RecordingSink("s");
    List<Long> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();
    int[] failures = {2};
    sink.failWith(batch -> {
      attempts.add(batch.get(0).sequence());
      return failures[0]-- > 0 ? SinkException.retryable("timeout", null) : null;
    });
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(attempts).hasSize(3).containsOnly(sink.received.get(0).sequence());
  }

  @Test
  void aHeartbeatRepeatsTheSequenceOfTheStateItRepeats() {
    MutableClock clock = new MutableClock(T0);
    RecordingSink sink = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().clock(clock).build()) {
      // a long interval: the scheduled ticks do not come round during the test; ticks run by hand
      ex.addSink(sink, ExporterTest.FAST.withHeartbeatInterval(Duration.ofHours(1)));
      ex.converge("t", Set.of("s"), records("t", 20, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      Map<String, Long> first = new java.util.HashMap<>();
      sink.received.forEach(r -> first.put(r.key(), r.sequence()));
      sink.clear();
      clock.advance(Duration.ofHours(1));
      for (int slice = 0; slice < Heartbeats.SLICES; slice++) {
        ex.heartbeatTick("s", slice);
      }
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(sink.received).hasSize(20)
          .allMatch(r -> r.sequence().equals(first.get(r.key())));
    }
  }

  @Test
  void sequencesKeepGrowingPerKeyAfterARestartWhoseClockIsBehind() {
    FreezableStore store = new FreezableStore();
    RecordingSink before = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().checkpointStore(store)
        .clock(new MutableClock(T0.plus(Duration.ofHours(1)))).build()) {
      ex.addSink(before, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    // a new leader whose clock is an hour behind the old one's
    RecordingSink after = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().checkpointStore(store).clock(new MutableClock(T0))
        .build()) {
      ex.addSink(after, ExporterTest.FAST);
      ex.converge("t", Set.of("s"), List.of(record("t", "a", 2)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(after.received.get(0).sequence()).isGreaterThan(before.received.get(0).sequence());
  }

  @Test
  void sequencesIssuedAfterTheLastCheckpointWriteAreNotReusedAfterAKill() {
    FreezableStore store = new FreezableStore();
    MutableClock clock = new MutableClock(T0);
    RecordingSink before = new RecordingSink("s");
    // the process dies before the checkpoint holds the next states
    Exporter first = checkpointedStateOneThenFrozen(store, clock, before);
    for (int seq = 2; seq <= 5; seq++) {
      first.converge("t", Set.of("s"), List.of(record("t", "a", seq)));
      assertThat(first.awaitIdle(WAIT)).isTrue();
    }
    first.close();
    long lastSentBeforeKill = before.received.get(before.received.size() - 1).sequence();
    assertThat(store.load("t", "s").get(key("a")).sequence())
        .isLessThan(lastSentBeforeKill);

    store.frozen = false;
    clock.advance(Duration.ofSeconds(1)); // the restart takes time
    RecordingSink after = new RecordingSink("s");
    try (Exporter second = Exporter.builder().checkpointStore(store).clock(clock).build()) {
      second.addSink(after, ExporterTest.FAST);
      second.converge("t", Set.of("s"), List.of(record("t", "a", 6)));
      assertThat(second.awaitIdle(WAIT)).isTrue();
    }
    assertThat(after.received.get(0).sequence()).isGreaterThan(lastSentBeforeKill);
  }

  @Test
  void aStateRestoredFromALaggingCheckpointIsRepeatedAboveEverythingSentBeforeTheKill() {
    FreezableStore store = new FreezableStore();
    MutableClock clock = new MutableClock(T0);
    RecordingSink before = new RecordingSink("s");
    Exporter first = checkpointedStateOneThenFrozen(store, clock, before);
    // state 2 is delivered but never checkpointed; then the process dies
    first.converge("t", Set.of("s"), List.of(record("t", "a", 2)));
    assertThat(first.awaitIdle(WAIT)).isTrue();
    first.close();
    long newestBeforeKill = before.received.get(1).sequence();

    // meanwhile the object went back to state 1, which is what the checkpoint holds
    store.frozen = false;
    clock.advance(Duration.ofSeconds(1));
    RecordingSink after = new RecordingSink("s");
    try (Exporter second = Exporter.builder().checkpointStore(store).clock(clock).build()) {
      second.addSink(after, ExporterTest.FAST.withHeartbeatInterval(Duration.ofHours(1)));
      second.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
      assertThat(second.awaitIdle(WAIT)).isTrue();
      assertThat(after.received).isEmpty(); // unchanged against the checkpoint
      clock.advance(Duration.ofHours(2));
      second.heartbeatTick("s", Heartbeats.slice("t", key("a")));
      assertThat(second.awaitIdle(WAIT)).isTrue();
    }
    // the heartbeat's state 1 outranks the state 2 a sequence-honouring receiver holds
    assertThat(after.received).singleElement().satisfies(r -> {
      assertThat(TestRecords.seq(r)).isEqualTo(1);
      assertThat(r.sequence()).isGreaterThan(newestBeforeKill);
    });
  }

  @Test
  void aCheckpointWithoutSequencesStillYieldsSequencedHeartbeatsAboveNothingReused() {
    FreezableStore store = new FreezableStore();
    ExportedEntry old = ExportedEntry.of(record("t", "a", 1));
    assertThat(old.sequence()).isNull();
    store.saved.put("t|s", Map.of(old.key(), old));
    MutableClock clock = new MutableClock(T0);
    RecordingSink sink = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().checkpointStore(store).clock(clock).build()) {
      ex.addSink(sink, ExporterTest.FAST.withHeartbeatInterval(Duration.ofHours(1)));
      ex.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(sink.received).isEmpty(); // unchanged since the checkpoint
      clock.advance(Duration.ofHours(2));
      ex.heartbeatTick("s", Heartbeats.slice("t", old.key()));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(sink.received).hasSize(1);
    assertThat(sink.received.get(0).sequence()).isNotNull().isGreaterThanOrEqualTo(micros(T0));
  }
}

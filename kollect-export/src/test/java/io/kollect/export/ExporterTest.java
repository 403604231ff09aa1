package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static io.kollect.export.TestRecords.seq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExporterTest {

  static final Duration WAIT = Duration.ofSeconds(10);
  static final SinkOptions FAST = SinkOptions.defaults()
      .withLinger(Duration.ofMillis(5))
      .withHeartbeatInterval(Duration.ZERO)
      .withBackoff(Duration.ofMillis(10), Duration.ofMillis(50));
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

  final CountingMetrics metrics = new CountingMetrics();
  final Exporter exporter = Exporter.builder()
      .metrics(metrics)
      .clock(Clock.fixed(NOW, ZoneOffset.UTC))
      .build();

  @AfterEach
  void close() {
    exporter.close();
  }

  private void converge(String target, Set<String> sinks, List<Record> desired) {
    exporter.converge(target, sinks, desired);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
  }

  @Test
  void firstConvergeSendsEveryRecordAndRepeatingItSendsNothing() {
    RecordingSink sink = new RecordingSink("s");
    exporter.addSink(sink, FAST);
    converge("t", Set.of("s"), records("t", 50, 1));
    assertThat(sink.received).hasSize(50).allMatch(r -> r.op() == Op.UPSERT);

    converge("t", Set.of("s"), records("t", 50, 1));
    assertThat(sink.received).hasSize(50);
    assertThat(metrics.get("sent", "s")).isEqualTo(50);
    assertThat(metrics.lastSuccess.get("s")).isEqualTo(NOW);
  }

  @Test
  void updateSendsOnlyTheChangedKeysAndNeverTombstonesAnUnmentionedKey() {
    RecordingSink sink = new RecordingSink("s");
    exporter.addSink(sink, FAST);
    converge("t", Set.of("s"), List.of(record("t", "a", 1), record("t", "b", 1), record("t", "c", 1)));
    sink.clear();

    exporter.update("t", Set.of("s"), List.of(record("t", "a", 2), record("t", "c", 1),
        record("t", "d", 1)), List.of("no-such-key", key("b")));
    assertThat(exporter.awaitIdle(WAIT)).isTrue();

    // c is unchanged, so only a and d are sent; b is tombstoned; nothing else is touched
    assertThat(sink.received).extracting(Record::key, Record::op).containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple(key("a"), Op.UPSERT),
        org.assertj.core.groups.Tuple.tuple(key("d"), Op.UPSERT),
        org.assertj.core.groups.Tuple.tuple(key("b"), Op.DELETE));
    sink.clear();

    // the updated set is what a full converge now compares against: nothing left to send
    converge("t", Set.of("s"), List.of(record("t", "a", 2), record("t", "c", 1),
        record("t", "d", 1)));
    assertThat(sink.received).isEmpty();
  }

  @Test
  void changedRecordIsSentAndVanishedKeyGetsTombstoneBuiltFromRememberedEntry() {
    RecordingSink sink = new RecordingSink("s");
    exporter.addSink(sink, FAST);
    converge("t", Set.of("s"), List.of(record("t", "a", 1), record("t", "b", 1), record("t", "c", 1)));
    sink.clear();

    converge("t", Set.of("s"), List.of(record("t", "a", 2), record("t", "c", 1)));

    assertThat(sink.received).hasSize(2);
    Record upsert = sink.latestByKey().get(key("a"));
    assertThat(upsert.op()).isEqualTo(Op.UPSERT);
    assertThat(seq(upsert)).isEqualTo(2);
    Record tombstone = sink.latestByKey().get(key("b"));
    assertThat(tombstone.op()).isEqualTo(Op.DELETE);
    assertThat(tombstone.cluster()).isEqualTo("c1");
    assertThat(tombstone.target()).isEqualTo("t");
    assertThat(tombstone.profile()).isEqualTo("p1");
    assertThat(tombstone.uid()).isEqualTo("uid-b");
    assertThat(tombstone.resource()).isEqualTo(TestRecords.DEPLOYMENT);
    assertThat(tombstone.observedAt()).isEqualTo(NOW);
    assertThat(tombstone.contentHash()).isNull();
    assertThat(tombstone.fields()).isEmpty();
  }

  @Test
  void objectThatComesBackAfterDeletionIsSentAgain() {
    RecordingSink sink = new RecordingSink("s");
    exporter.addSink(sink, FAST);
    converge("t", Set.of("s"), List.of(record("t", "a", 1)));
    converge("t", Set.of("s"), List.of());
    converge("t", Set.of("s"), List.of(record("t", "a", 1)));
    assertThat(sink.received).extracting(Record::op)
        .containsExactly(Op.UPSERT, Op.DELETE, Op.UPSERT);
  }

  @Test
  void newlyNamedSinkGetsFullSetAndDroppedSinkForgetsWithoutTombstones() {
    RecordingSink a = new RecordingSink("a");
    RecordingSink b = new RecordingSink("b");
    exporter.addSink(a, FAST);
    exporter.addSink(b, FAST);
    converge("t", Set.of("a"), records("t", 10, 1));
    assertThat(b.received).isEmpty();

    converge("t", Set.of("a", "b"), records("t", 10, 1));
    assertThat(a.received).hasSize(10);
    assertThat(b.received).hasSize(10);

    converge("t", Set.of("a"), records("t", 5, 1));
    assertThat(b.received).hasSize(10).allMatch(r -> r.op() == Op.UPSERT);
    assertThat(a.received.subList(10, a.received.size()))
        .hasSize(5).allMatch(r -> r.op() == Op.DELETE);
    assertThat(exporter.enqueuedKeys("t", "b")).isEmpty();

    converge("t", Set.of("a", "b"), records("t", 5, 1));
    assertThat(b.received).hasSize(15);
  }

  @Test
  void targetNamingASinkBeforeItIsAddedIsSyncedWhenItIsAdded() {
    exporter.converge("t", Set.of("late"), records("t", 3, 1));
    RecordingSink late = new RecordingSink("late");
    exporter.addSink(late, FAST);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(late.received).hasSize(3);
  }

  @Test
  void replacingASinkSendsTheFullSetToTheNewOneAndClosesTheOld() {
    RecordingSink first = new RecordingSink("s");
    exporter.addSink(first, FAST);
    converge("t", Set.of("s"), records("t", 4, 1));
    RecordingSink second = new RecordingSink("s");
    exporter.addSink(second, FAST);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(first.closed).isTrue();
    assertThat(second.received).hasSize(4);
    assertThat(exporter.sinkNames()).containsExactly("s");
  }

  /** Sink {@code s}, handed target {@code t}'s five records; what it received is cleared. */
  private RecordingSink sinkHoldingFiveRecordsOfT() {
    RecordingSink sink = new RecordingSink("s");
    exporter.addSink(sink, FAST);
    converge("t", Set.of("s"), records("t", 5, 1));
    sink.clear();
    return sink;
  }

  @Test
  void removeTargetWithTombstonesDeletesEverythingThenForgetsTheTarget() {
    RecordingSink sink = sinkHoldingFiveRecordsOfT();
    exporter.removeTarget("t", true);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(sink.received).hasSize(5).allMatch(r -> r.op() == Op.DELETE);
    await().atMost(WAIT).until(() -> !exporter.knowsTarget("t"));
  }

  @Test
  void removeTargetWithoutTombstonesSendsNothing() {
    RecordingSink sink = sinkHoldingFiveRecordsOfT();
    exporter.removeTarget("t", false);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(sink.received).isEmpty();
    assertThat(exporter.knowsTarget("t")).isFalse();
  }

  @Test
  void desiredRecordThatIsNotAnUpsertIsRejectedNamingIt() {
    Record del = record("t", "a", 1).tombstone(NOW);
    assertThatThrownBy(() -> exporter.converge("t", Set.of(), List.of(del)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("apps/Deployment/ns/a")
        .hasMessageContaining("op must be UPSERT");
  }

  @Test
  void desiredRecordWithoutContentHashIsRejectedNamingIt() {
    Record r = record("t", "a", 1);
    Record noHash = new Record(r.op(), r.cluster(), r.target(), r.profile(), r.resource(),
        r.namespace(), r.name(), r.uid(), r.resourceVersion(), r.observedAt(), null, r.fields(),
        r.labels(), r.annotations());
    assertThatThrownBy(() -> exporter.converge("t", Set.of(), List.of(noHash)))
        .hasMessageContaining("apps/Deployment/ns/a").hasMessageContaining("contentHash");
  }

  @Test
  void changesWhileSinkIsBlockedCoalesceToOnePendingRecordPerObject() {
    RecordingSink sink = new RecordingSink("s");
    sink.block();
    exporter.addSink(sink, FAST.withMaxBatchSize(10));
    exporter.converge("t", Set.of("s"), records("t", 100, 0));
    await().atMost(WAIT).until(() -> sink.writesStarted == 1);
    for (int seq = 1; seq <= 50; seq++) {
      exporter.converge("t", Set.of("s"), records("t", 100, seq));
      assertThat(exporter.queueDepth("s")).isLessThanOrEqualTo(100);
    }
    assertThat(metrics.maxDepth("s")).isLessThanOrEqualTo(100);
    sink.open();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    // the 10 in flight at seq 0, then the other 90 once at seq 0 were replaced: 100 at seq 50
    assertThat(sink.received).hasSize(110);
    assertThat(sink.latestByKey().values()).hasSize(100).allMatch(r -> seq(r) == 50);
  }

  @Test
  void recordInFlightIsAcknowledgedBeforeTheNextStateOfTheSameKeyIsSent() {
    RecordingSink sink = new RecordingSink("s");
    sink.block();
    exporter.addSink(sink, FAST);
    exporter.converge("t", Set.of("s"), List.of(record("t", "a", 1)));
    await().atMost(WAIT).until(() -> sink.writesStarted == 1);
    exporter.converge("t", Set.of("s"), List.of(record("t", "a", 2)));
    exporter.converge("t", Set.of("s"), List.of(record("t", "a", 3)));
    assertThat(exporter.queueDepth("s")).isEqualTo(1);
    sink.open();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(sink.received).extracting(TestRecords::seq).containsExactly(1L, 3L);
  }

  @Test
  void retryableFailuresAreRetriedUntilDeliveredAndCounted() {
    RecordingSink sink = new RecordingSink("s");
    int[] failuresLeft = {3};
    sink.failWith(batch -> failuresLeft[0]-- > 0 ? SinkException.retryable("HTTP 503", null) : null);
    exporter.addSink(sink, FAST);
    converge("t", Set.of("s"), records("t", 20, 1));
    assertThat(sink.received).hasSize(20);
    assertThat(metrics.get("failedRetryable", "s")).isEqualTo(60);
    assertThat(metrics.get("retried", "s")).isEqualTo(60);
    assertThat(metrics.get("dropped", "s")).isZero();
  }

  @Test
  void permanentRejectionDropsOnlyThePoisonRecordAndIsLoggedOncePerReason() {
    RecordingSink sink = new RecordingSink("s");
    sink.failWith(batch -> batch.stream().anyMatch(r -> r.name().startsWith("bad"))
        ? SinkException.permanent("HTTP 400 Bad Request", null) : null);
    exporter.addSink(sink, FAST.withMaxBatchSize(100));
    List<Record> desired = new ArrayList<>(records("t", 30, 1));
    desired.add(record("t", "bad-1", 1));
    desired.add(record("t", "bad-2", 1));
    converge("t", Set.of("s"), desired);

    assertThat(sink.received).hasSize(30).noneMatch(r -> r.name().startsWith("bad"));
    assertThat(metrics.get("dropped", "s")).isEqualTo(2);
    assertThat(metrics.get("failedPermanent", "s")).isEqualTo(2);
    // not re-sent by the next converge: the dropped state was recorded as exported
    converge("t", Set.of("s"), desired);
    assertThat(metrics.get("dropped", "s")).isEqualTo(2);
  }

  @Test
  void aBlockedSinkDoesNotDelayAnother() {
    RecordingSink slow = new RecordingSink("slow");
    RecordingSink fast = new RecordingSink("fast");
    slow.block();
    exporter.addSink(slow, FAST);
    exporter.addSink(fast, FAST);
    exporter.converge("t", Set.of("slow", "fast"), records("t", 10, 1));
    await().atMost(WAIT).until(() -> fast.received.size() == 10);
    assertThat(slow.received).isEmpty();
    slow.open();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(slow.received).hasSize(10);
  }

  @Test
  void batchesRespectMaxBatchSize() {
    RecordingSink sink = new RecordingSink("s");
    exporter.addSink(sink, FAST.withMaxBatchSize(7));
    converge("t", Set.of("s"), records("t", 50, 1));
    assertThat(sink.batchSizes).allMatch(n -> n <= 7);
    assertThat(sink.received).hasSize(50);
  }

  @Test
  void concurrentConvergeOfManyTargetsDeliversEachTargetsFinalState() throws Exception {
    InventorySink inventory = new InventorySink("inv");
    exporter.addSink(inventory, FAST);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        String target = "t" + t;
        futures.add(pool.submit(() -> {
          for (int seq = 1; seq <= 20; seq++) {
            exporter.converge(target, Set.of("inv"), records(target, 30 - seq, seq));
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdown();
    }
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    for (int t = 0; t < 8; t++) {
      List<Record> held = inventory.query(new InventoryQuery("t" + t, null, null, null, null));
      assertThat(held).hasSize(10).allMatch(r -> seq(r) == 20);
    }
  }

  @Test
  void closeDrainsPendingRecordsAndClosesSinks() {
    RecordingSink sink = new RecordingSink("s");
    exporter.addSink(sink, FAST.withLinger(Duration.ofMinutes(5)));
    exporter.converge("t", Set.of("s"), records("t", 3, 1));
    exporter.close();
    assertThat(sink.received).hasSize(3);
    assertThat(sink.closed).isTrue();
    assertThatThrownBy(() -> exporter.converge("t", Set.of("s"), List.of()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void acknowledgedStateIsCheckpointedButUnacknowledgedIsNot() {
    Map<String, Map<String, ExportedEntry>> saved = new HashMap<>();
    CheckpointStore store = new CheckpointStore() {
      @Override
      public synchronized Map<String, ExportedEntry> load(String target, String sink) {
        return saved.getOrDefault(target + "|" + sink, Map.of());
      }

      @Override
      public synchronized void save(String target, String sink, Map<String, ExportedEntry> e) {
        saved.put(target + "|" + sink, Map.copyOf(e));
      }

      @Override
      public synchronized void delete(String target, String sink) {
        saved.remove(target + "|" + sink);
      }
    };
    RecordingSink sink = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().checkpointStore(store)
        .checkpointInterval(Duration.ofMillis(20)).closeTimeout(Duration.ofMillis(100)).build()) {
      ex.addSink(sink, FAST);
      ex.converge("t", Set.of("s"), records("t", 3, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      await().atMost(WAIT).until(() -> store.load("t", "s").size() == 3);
      sink.failWith(batch -> SinkException.retryable("down", null));
      int writesBefore = sink.writesStarted;
      ex.converge("t", Set.of("s"), List.of(record("t", "obj-0", 2)));
      await().atMost(WAIT).until(() -> sink.writesStarted > writesBefore + 1);
    }
    // only the acknowledged seq-1 state is durable: the seq-2 record and the two tombstones were
    // never acknowledged
    Map<String, ExportedEntry> durable = store.load("t", "s");
    assertThat(durable).hasSize(3);
    assertThat(durable.get(key("obj-0")).contentHash()).isEqualTo("hash-obj-0-1");
  }

  @Test
  void aThrowingMetricsImplementationNeitherStopsDeliveryNorCausesResends() {
    ExportMetrics broken = new CountingMetrics() {
      @Override
      public void sent(String sink, int records) {
        throw new IllegalStateException("metrics bug");
      }
    };
    RecordingSink sink = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().metrics(broken).build()) {
      ex.addSink(sink, FAST);
      ex.converge("t", Set.of("s"), records("t", 5, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      ex.converge("t", Set.of("s"), records("t", 5, 2));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(sink.received).hasSize(10);
  }

  @Test
  void invalidSinkOptionsAreRejectedNamingTheField() {
    assertThatThrownBy(() -> SinkOptions.defaults().withMaxBatchSize(0))
        .hasMessageStartingWith("maxBatchSize:");
    assertThatThrownBy(() -> SinkOptions.defaults().withLinger(Duration.ofSeconds(-1)))
        .hasMessageStartingWith("linger:");
    assertThatThrownBy(() -> SinkOptions.defaults().withHeartbeatInterval(null))
        .hasMessageStartingWith("heartbeatInterval:");
    assertThatThrownBy(() -> SinkOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .hasMessageStartingWith("initialBackoff:");
    assertThatThrownBy(() -> SinkOptions.defaults()
        .withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageStartingWith("maxBackoff:");
    assertThatThrownBy(() -> exporter.addSink(new RecordingSink(" "), FAST))
        .hasMessageStartingWith("sink name:");
  }
}

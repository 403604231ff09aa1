package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exporter resumes from its file checkpoint after a restart. */
class RestartTest {

  static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;

  private Exporter exporter(RecordingSink sink) {
    Exporter ex = Exporter.builder().checkpointStore(new FileCheckpointStore(dir)).build();
    ex.addSink(sink, ExporterTest.FAST);
    return ex;
  }

  @Test
  void afterRestartOnlyObjectsDeletedMeanwhileAreSentAsDeletes() {
    RecordingSink first = new RecordingSink("http");
    try (Exporter ex = exporter(first)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", 20, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(first.received).hasSize(20);

    List<Record> remaining = new ArrayList<>(records("ns/t", 20, 1));
    remaining.removeIf(r -> r.name().equals("obj-3") || r.name().equals("obj-11"));
    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(second)) {
      ex.converge("ns/t", Set.of("http"), remaining);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(second.received).extracting(Record::op).containsOnly(Op.DELETE);
    assertThat(second.receivedKeys()).containsExactlyInAnyOrder(key("obj-3"), key("obj-11"));
    assertThat(second.received).allMatch(r -> "c1".equals(r.cluster()) && "p1".equals(r.profile()));
  }

  @Test
  void afterRestartChangedObjectsAreSentAndUnchangedAreNot() {
    RecordingSink first = new RecordingSink("http");
    try (Exporter ex = exporter(first)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", 5, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    List<Record> desired = new ArrayList<>(records("ns/t", 5, 1));
    desired.set(2, record("ns/t", "obj-2", 2));
    desired.add(record("ns/t", "new", 1));
    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(second)) {
      ex.converge("ns/t", Set.of("http"), desired);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(second.receivedKeys()).containsExactlyInAnyOrder(key("obj-2"), key("new"));
  }

  @Test
  void recordsNotAcknowledgedBeforeShutdownAreSentAfterRestart() {
    RecordingSink down = new RecordingSink("http");
    down.failWith(batch -> SinkException.retryable("connection refused", null));
    try (Exporter ex = Exporter.builder().checkpointStore(new FileCheckpointStore(dir))
        .closeTimeout(Duration.ofMillis(50)).build()) {
      ex.addSink(down, ExporterTest.FAST);
      ex.converge("ns/t", Set.of("http"), records("ns/t", 4, 1));
      assertThat(ex.awaitIdle(Duration.ofMillis(200))).isFalse();
    }
    RecordingSink up = new RecordingSink("http");
    try (Exporter ex = exporter(up)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", 4, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(up.received).hasSize(4);
  }

  @Test
  void targetRemovedWithTombstonesLeavesNoCheckpoint() {
    RecordingSink sink = new RecordingSink("http");
    try (Exporter ex = exporter(sink)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", 3, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(second)) {
      // never converged in this process: the checkpoint alone tells what to tombstone
      ex.removeTarget("ns/t", true);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> !ex.knowsTarget("ns/t"));
    }
    assertThat(second.received).hasSize(3).allMatch(r -> r.op() == Op.DELETE);
    assertThat(new FileCheckpointStore(dir).load("ns/t", "http")).isEmpty();
  }

  @Test
  void tombstonesOfARemovedTargetNotDeliveredBeforeShutdownAreSentAfterRestart() {
    RecordingSink sink = new RecordingSink("http");
    try (Exporter ex = exporter(sink)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", 3, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    RecordingSink down = new RecordingSink("http");
    down.failWith(batch -> SinkException.retryable("connection refused", null));
    try (Exporter ex = Exporter.builder().checkpointStore(new FileCheckpointStore(dir))
        .closeTimeout(Duration.ofMillis(50)).build()) {
      ex.addSink(down, ExporterTest.FAST);
      ex.converge("ns/t", Set.of("http"), records("ns/t", 3, 1));
      ex.removeTarget("ns/t", true);
      assertThat(ex.awaitIdle(Duration.ofMillis(200))).isFalse();
    }
    assertThat(new FileCheckpointStore(dir).load("ns/t", "http")).hasSize(3);
    RecordingSink up = new RecordingSink("http");
    try (Exporter ex = exporter(up)) {
      ex.removeTarget("ns/t", true);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(up.received).hasSize(3).allMatch(r -> r.op() == Op.DELETE);
  }

  /**
   * A process killed without closing (no final write) keeps what its periodic delta writes
   * recorded: after the restart nothing the sink acknowledged before the last write is re-sent,
   * including changes and deletions that only ever reached the checkpoint as deltas on top of an
   * older snapshot.
   */
  @Test
  void afterAKillWithoutCloseNothingAcknowledgedBeforeTheLastDeltaWriteIsResent() {
    CheckpointStore[] live = {new FileCheckpointStore(dir)};
    CheckpointStore killable = new CheckpointStore() {
      // once "killed" (live[0] cleared), the dead process writes nothing more
      @Override
      public java.util.Map<String, ExportedEntry> load(String target, String sink) {
        return live[0].load(target, sink);
      }

      @Override
      public void save(String target, String sink, java.util.Map<String, ExportedEntry> e) {
        if (live[0] != null) {
          live[0].save(target, sink, e);
        }
      }

      @Override
      public void apply(String target, String sink, java.util.Map<String, ExportedEntry> changed,
          Set<String> removed) {
        if (live[0] != null) {
          live[0].apply(target, sink, changed, removed);
        }
      }

      @Override
      public void delete(String target, String sink) {
        if (live[0] != null) {
          live[0].delete(target, sink);
        }
      }
    };
    RecordingSink first = new RecordingSink("http");
    List<Record> desired = new ArrayList<>(records("ns/t", 20, 1));
    Exporter dying = Exporter.builder().checkpointStore(killable)
        .checkpointInterval(Duration.ofHours(1)).build();
    dying.addSink(first, ExporterTest.FAST);
    dying.converge("ns/t", Set.of("http"), desired);
    assertThat(dying.awaitIdle(WAIT)).isTrue();
    dying.checkpointTick();
    dying.update("ns/t", Set.of("http"), List.of(record("ns/t", "obj-2", 2)),
        List.of(key("obj-5")));
    desired.set(2, record("ns/t", "obj-2", 2));
    desired.remove(5);
    assertThat(dying.awaitIdle(WAIT)).isTrue();
    dying.checkpointTick();
    live[0] = null; // kill -9: the close below stands for the threads dying, it writes nothing
    dying.close();
    assertThat(CheckpointDirectory.logFile(new FileCheckpointStore(dir).file("ns/t", "http")))
        .exists();

    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(second)) {
      ex.converge("ns/t", Set.of("http"), desired);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(second.received).isEmpty();
  }
}

package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restarted exporter that no longer answers for some checkpointed keys (a shard after a change
 * of the shard count) forgets them without a tombstone, for a sink whose destination is its own
 * (the recording sink here, like stdout or a shard's inventory objects); for a destination every
 * shard shares, the entries move to the new owner instead ({@link CheckpointHandoverTest}).
 */
class DisownedKeysTest {

  static final Duration WAIT = Duration.ofSeconds(10);
  static final SinkOptions HEARTBEATING = ExporterTest.FAST.withHeartbeatInterval(
      Duration.ofMillis(200));

  @TempDir Path dir;

  private Exporter exporter(RecordingSink sink, BiPredicate<String, String> owned,
      SinkOptions options) {
    Exporter ex = Exporter.builder().checkpointStore(new FileCheckpointStore(dir))
        .ownedKeys(owned).build();
    ex.addSink(sink, options);
    return ex;
  }

  @Test
  void disownedCheckpointedKeysGetNoTombstoneNoHeartbeatAndLeaveTheCheckpoint() {
    List<Record> all = records("ns/t", 6, 1);
    RecordingSink first = new RecordingSink("http");
    try (Exporter ex = exporter(first, (t, k) -> true, ExporterTest.FAST)) {
      ex.converge("ns/t", Set.of("http"), all);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(first.received).hasSize(6);

    // after the restart obj-0..obj-2 belong to another shard: this one converges without them
    Set<String> gone = Set.of(key("obj-0"), key("obj-1"), key("obj-2"));
    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(second, (t, k) -> !gone.contains(k), HEARTBEATING)) {
      ex.converge("ns/t", Set.of("http"), all.subList(3, 6));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      // the heartbeat re-sends each key it holds 0.5 to 1.5 intervals after the last send; a
      // kept key seen four times proves at least 1.5 intervals of heartbeats went by, in which
      // a disowned key still held would have been re-sent too
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> Set.of("obj-3", "obj-4", "obj-5")
          .stream().allMatch(n -> second.receivedKeys().stream()
              .filter(key(n)::equals).count() >= 4));
    }
    assertThat(second.received).extracting(Record::op).containsOnly(Op.UPSERT);
    assertThat(second.receivedKeys()).doesNotContainAnyElementsOf(gone);
    assertThat(new FileCheckpointStore(dir).load("ns/t", "http").keySet())
        .containsExactlyInAnyOrder(key("obj-3"), key("obj-4"), key("obj-5"));
  }

  @Test
  void aKeyThatComesBackIsSentAsNewWithALargerSequence() {
    List<Record> all = records("ns/t", 2, 1);
    RecordingSink first = new RecordingSink("http");
    try (Exporter ex = exporter(first, (t, k) -> true, ExporterTest.FAST)) {
      ex.converge("ns/t", Set.of("http"), all);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    long firstSeq = first.received.stream().filter(r -> r.key().equals(key("obj-1")))
        .mapToLong(Record::sequence).max().orElseThrow();
    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(second, (t, k) -> !k.equals(key("obj-1")), ExporterTest.FAST)) {
      ex.converge("ns/t", Set.of("http"), all.subList(0, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(second.received).isEmpty();
    // the key is owned again (the shard count went back): the exporter has no entry for it, so
    // it sends it, with a sequence above the one of the earlier delivery
    RecordingSink third = new RecordingSink("http");
    try (Exporter ex = exporter(third, (t, k) -> true, ExporterTest.FAST)) {
      ex.converge("ns/t", Set.of("http"), all);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(third.receivedKeys()).containsExactly(key("obj-1"));
    assertThat(third.received.get(0).sequence()).isGreaterThan(firstSeq);
  }
}

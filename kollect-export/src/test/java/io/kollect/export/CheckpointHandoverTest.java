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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint entries move with the ownership of their objects: after a change of the shard count
 * the new owner takes the old owner's entries over ({@link CheckpointStore#loadPeers}, {@link
 * CheckpointStore#takeOver}), so an object deleted while it moved gets its DELETE and an object
 * that did not change is not re-sent, whichever shard restarts first. Stores are real {@link
 * FileCheckpointStore}s in the operator's shard layout; the sinks model one receiver every shard
 * writes to ({@link Sink#destinationSharedByShards()}).
 */
class CheckpointHandoverTest {

  static final Duration WAIT = Duration.ofSeconds(10);
  static final String TARGET = "ns/t";
  /** Moves from shard 0 to shard 1 in these tests. */
  static final Set<String> MOVED = Set.of(key("obj-0"), key("obj-1"), key("obj-2"));
  static final BiPredicate<String, String> ALL = (t, k) -> true;
  static final BiPredicate<String, String> NOT_MOVED = (t, k) -> !MOVED.contains(k);
  static final BiPredicate<String, String> ONLY_MOVED = (t, k) -> MOVED.contains(k);

  @TempDir Path root;

  private Exporter exporter(CheckpointStore store, RecordingSink sink,
      BiPredicate<String, String> owned, SinkOptions options) {
    Exporter ex = Exporter.builder().checkpointStore(store).ownedKeys(owned).build();
    sink.sharedByShards = true;
    ex.addSink(sink, options);
    return ex;
  }

  private FileCheckpointStore shard(int index) {
    return FileCheckpointStore.inShardLayout(root, index);
  }

  /** Shard 0 exports obj-0..obj-5 and stops; returns what it sent. */
  private List<Record> shardZeroExportsEverything() {
    RecordingSink sink = new RecordingSink("http");
    try (Exporter ex = exporter(shard(0), sink, ALL, ExporterTest.FAST)) {
      ex.converge(TARGET, Set.of("http"), records(TARGET, 6, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(sink.received).hasSize(6);
    return new ArrayList<>(sink.received);
  }

  /** The cluster after the move: obj-0 deleted, obj-1 changed, obj-6 created (owned by 0). */
  private static List<Record> clusterAfterTheMove() {
    List<Record> now = new ArrayList<>(records(TARGET, 6, 1));
    now.remove(0);
    now.set(0, record(TARGET, "obj-1", 2));
    now.add(record(TARGET, "obj-6", 1));
    return now;
  }

  private static List<Record> ownedOf(List<Record> records, BiPredicate<String, String> owned) {
    return records.stream().filter(r -> owned.test(TARGET, r.key())).toList();
  }

  @Test
  void theNewOwnerDeletesAnObjectDeletedWhileItMovedSendsWhatChangedAndNothingElse() {
    List<Record> before = shardZeroExportsEverything();
    List<Record> now = clusterAfterTheMove();

    RecordingSink newOwner = newOwnerConverges(now);
    assertDeletesTheDeletedAndSendsTheChanged(newOwner);
    // the DELETE names what the old owner sent, and every record is newer than the old owner's
    Record delete = newOwner.received.stream().filter(r -> r.op() == Op.DELETE).findFirst()
        .orElseThrow();
    assertThat(delete.uid()).isEqualTo("uid-obj-0");
    long oldest = newOwner.received.stream().mapToLong(Record::sequence).min().orElseThrow();
    assertThat(before).allMatch(r -> r.sequence() < oldest);

    // the entries moved: the new owner's checkpoint has them, the old owner's no longer does
    assertThat(shard(1).load(TARGET, "http").keySet())
        .containsExactlyInAnyOrder(key("obj-1"), key("obj-2"));
    assertThat(shard(0).load(TARGET, "http").keySet())
        .containsExactlyInAnyOrder(key("obj-3"), key("obj-4"), key("obj-5"));

    // the fold of both sinks' records by largest sequence is the cluster
    Map<String, Record> fold = fold(before, newOwner.received);
    assertThat(fold.values()).filteredOn(r -> r.op() == Op.UPSERT).extracting(Record::key)
        .containsExactlyInAnyOrder(key("obj-1"), key("obj-2"), key("obj-3"), key("obj-4"),
            key("obj-5"));
    assertThat(fold.get(key("obj-1")).contentHash()).isEqualTo("hash-obj-1-2");
  }

  @Test
  void theOldOwnerRestartingFirstKeepsTheEntriesItLostForTheNewOwnerAcrossItsCloseWrite() {
    List<Record> before = shardZeroExportsEverything();
    List<Record> now = clusterAfterTheMove();

    // shard 0 restarts with the new shard count first and heartbeats, so its close writes the
    // whole state (send times changed): the entries kept for shard 1 must survive that write
    RecordingSink oldOwner = new RecordingSink("http");
    SinkOptions heartbeating = ExporterTest.FAST.withHeartbeatInterval(Duration.ofMillis(200));
    try (Exporter ex = exporter(shard(0), oldOwner, NOT_MOVED, heartbeating)) {
      ex.converge(TARGET, Set.of("http"), ownedOf(now, NOT_MOVED));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> oldOwner.received.stream()
          .filter(r -> r.key().equals(key("obj-3"))).count() >= 2);
    }
    assertThat(oldOwner.received).extracting(Record::op).containsOnly(Op.UPSERT);
    assertThat(oldOwner.receivedKeys()).doesNotContainAnyElementsOf(MOVED);
    assertThat(shard(0).load(TARGET, "http").keySet()).containsAll(MOVED);

    RecordingSink newOwner = newOwnerConverges(now);
    assertDeletesTheDeletedAndSendsTheChanged(newOwner);
    assertThat(shard(0).load(TARGET, "http").keySet()).doesNotContainAnyElementsOf(MOVED);

    List<Record> all = new ArrayList<>(before);
    all.addAll(oldOwner.received);
    Map<String, Record> fold = fold(all, newOwner.received);
    assertThat(fold.values()).filteredOn(r -> r.op() == Op.UPSERT).extracting(Record::key)
        .containsExactlyInAnyOrderElementsOf(now.stream().map(Record::key).toList());
  }

  @Test
  void aCrashBetweenAdoptingAndTakingOverLeavesTwoCopiesThatTheNextLoadResolvesToTheOwners() {
    shardZeroExportsEverything();
    List<Record> now = clusterAfterTheMove();
    // the first start of shard 1 writes what it adopted, then dies before removing it from
    // shard 0 (modelled by a takeOver that fails and a converge that never happens)
    CheckpointStore crashing = new ForwardingCheckpointStore(shard(1)) {
      @Override
      public void takeOver(String target, String sink, Set<String> keys) {
        throw new IllegalStateException("killed");
      }
    };
    try (Exporter ex = exporter(crashing, new RecordingSink("http"), ONLY_MOVED,
        ExporterTest.FAST)) {
      ex.update(TARGET, Set.of("http"), List.of(), List.of());
    }
    assertThat(shard(1).load(TARGET, "http").keySet()).containsExactlyInAnyOrderElementsOf(MOVED);
    assertThat(shard(0).load(TARGET, "http").keySet()).containsAll(MOVED);

    RecordingSink newOwner = newOwnerConverges(now);
    // one DELETE, one UPSERT of what changed: the two copies were one state
    assertDeletesTheDeletedAndSendsTheChanged(newOwner);
    assertThat(shard(0).load(TARGET, "http").keySet()).doesNotContainAnyElementsOf(MOVED);
    assertThat(shard(1).load(TARGET, "http").keySet())
        .containsExactlyInAnyOrder(key("obj-1"), key("obj-2"));
  }

  @Test
  void ofTwoCopiesOfAKeyTheOneWithTheLargerSequenceWinsAndThePeersCopyIsRemoved() {
    // shard 1 holds obj-1 at state 1; shard 0 (an old pod still running during a rolling
    // change) handed the sink state 2 later, with a larger sequence
    shard(1).apply(TARGET, "http", Map.of(key("obj-1"),
        ExportedEntry.of(record(TARGET, "obj-1", 1)).withSequence(10L)), Set.of());
    shard(0).apply(TARGET, "http", Map.of(key("obj-1"),
        ExportedEntry.of(record(TARGET, "obj-1", 2)).withSequence(20L)), Set.of());

    // the object is back at state 1: the receiver holds state 2, so it must be re-sent, which
    // "the own copy wins" would not do
    RecordingSink owner = new RecordingSink("http");
    try (Exporter ex = exporter(shard(1), owner, ONLY_MOVED, ExporterTest.FAST)) {
      ex.converge(TARGET, Set.of("http"), List.of(record(TARGET, "obj-1", 1)));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(owner.received).extracting(Record::contentHash).containsExactly("hash-obj-1-1");
    assertThat(owner.received.get(0).sequence()).isGreaterThan(20L);
    assertThat(shard(0).load(TARGET, "http")).isEmpty();
    assertThat(shard(1).load(TARGET, "http").get(key("obj-1")).contentHash())
        .isEqualTo("hash-obj-1-1");
  }

  @Test
  void aTargetLeavingWithTombstonesAlsoDeletesTheRecordsKeptForAnotherShard() {
    shardZeroExportsEverything();
    RecordingSink oldOwner = new RecordingSink("http");
    try (Exporter ex = exporter(shard(0), oldOwner, NOT_MOVED, ExporterTest.FAST)) {
      ex.converge(TARGET, Set.of("http"), ownedOf(records(TARGET, 6, 1), NOT_MOVED));
      ex.removeTarget(TARGET, true);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    // the target leaves every shard: nobody would take the kept entries over any more
    assertThat(oldOwner.received).filteredOn(r -> r.op() == Op.DELETE).extracting(Record::key)
        .containsExactlyInAnyOrderElementsOf(records(TARGET, 6, 1).stream().map(Record::key)
            .toList());
  }

  @Test
  void aSinkWhoseDestinationIsTheShardsOwnTakesNothingOverAndForgetsWhatItLost() {
    shardZeroExportsEverything();
    RecordingSink own = new RecordingSink("http");
    Exporter ex = Exporter.builder().checkpointStore(shard(1)).ownedKeys(ONLY_MOVED).build();
    ex.addSink(own, ExporterTest.FAST); // not shared: like stdout or a shard's inventory objects
    try (ex) {
      ex.converge(TARGET, Set.of("http"), ownedOf(clusterAfterTheMove(), ONLY_MOVED));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    // its destination never saw the inherited objects: it gets them all, and no DELETE
    assertThat(own.received).extracting(Record::op).containsOnly(Op.UPSERT);
    assertThat(own.receivedKeys()).containsExactlyInAnyOrder(key("obj-1"), key("obj-2"));
    assertThat(shard(0).load(TARGET, "http").keySet()).containsAll(MOVED);
  }

  @Test
  void aStoreWithoutPeersKeepsTheOldBehaviourANewOwnerSendsWhatItInherits() {
    shardZeroExportsEverything();
    // the plain constructor: no shard layout, so no peers
    RecordingSink newOwner = new RecordingSink("http");
    try (Exporter ex = exporter(new FileCheckpointStore(root.resolve("shard-1")), newOwner,
        ONLY_MOVED, ExporterTest.FAST)) {
      ex.converge(TARGET, Set.of("http"), ownedOf(clusterAfterTheMove(), ONLY_MOVED));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(newOwner.received).extracting(Record::op).containsOnly(Op.UPSERT);
    assertThat(newOwner.receivedKeys()).containsExactlyInAnyOrder(key("obj-1"), key("obj-2"));
  }

  /** Shard 1, the new owner of the moved objects, converges to what it owns of {@code now}. */
  private RecordingSink newOwnerConverges(List<Record> now) {
    RecordingSink newOwner = new RecordingSink("http");
    try (Exporter ex = exporter(shard(1), newOwner, ONLY_MOVED, ExporterTest.FAST)) {
      ex.converge(TARGET, Set.of("http"), ownedOf(now, ONLY_MOVED));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    return newOwner;
  }

  /** Of the moved objects ({@link #clusterAfterTheMove}), obj-0 was deleted and obj-1 changed. */
  private static void assertDeletesTheDeletedAndSendsTheChanged(RecordingSink newOwner) {
    assertThat(newOwner.received).extracting(Record::key, Record::op).containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple(key("obj-0"), Op.DELETE),
        org.assertj.core.groups.Tuple.tuple(key("obj-1"), Op.UPSERT));
  }

  private static Map<String, Record> fold(List<Record> a, List<Record> b) {
    Map<String, Record> fold = new HashMap<>();
    List<Record> all = new ArrayList<>(a);
    all.addAll(b);
    for (Record r : all) {
      fold.merge(r.key(), r, (x, y) -> x.sequence() >= y.sequence() ? x : y);
    }
    return fold;
  }
}

package io.kollect.export;

import static io.kollect.export.TestRecords.DEPLOYMENT;
import static io.kollect.export.TestRecords.T0;
import static io.kollect.export.TestRecords.enqueued;
import static io.kollect.export.TestRecords.exportKey;
import static io.kollect.export.TestRecords.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint bookkeeping alone, against an in-memory store that records every call: what a
 * (target, sink) state is opened with, what is written back, and the order of the handover writes.
 */
class CheckpointBookTest {

  static final String T = "ns/t";
  static final String S = "http";
  /** The wall clock sits far below every stored sequence, so only observing them moves it past. */
  static final Clock CLOCK = Clock.fixed(Instant.EPOCH.plusSeconds(1), ZoneOffset.UTC);
  static final BiPredicate<String, String> ALL = (t, k) -> true;
  /** Another shard answers for {@code theirs} now. */
  static final BiPredicate<String, String> NOT_THEIRS = (t, k) -> !k.equals(key("theirs"));

  /** A store of one shard with peers, all in memory; every call is logged in order. */
  static final class Store implements CheckpointStore {
    final Map<String, ExportedEntry> own = new HashMap<>();
    final List<Map<String, ExportedEntry>> peers = new ArrayList<>();
    final List<String> calls = new ArrayList<>();
    /** The state offered with each write that offered one, as it was during the write. */
    final List<Map<String, ExportedEntry>> offered = new ArrayList<>();
    boolean failWrites;

    @Override
    public Map<String, ExportedEntry> load(String target, String sink) {
      calls.add("load");
      return Map.copyOf(own);
    }

    @Override
    public void save(String target, String sink, Map<String, ExportedEntry> entries) {
      calls.add("save " + entries.keySet().size());
      failIfAsked();
      own.clear();
      own.putAll(entries);
    }

    @Override
    public void apply(String target, String sink, Map<String, ExportedEntry> changed,
        Set<String> removed) {
      calls.add("apply +" + changed.size() + " -" + removed.size());
      failIfAsked();
      own.keySet().removeAll(removed);
      own.putAll(changed);
    }

    @Override
    public void apply(String target, String sink, Map<String, ExportedEntry> changed,
        Set<String> removed, Supplier<Map<String, ExportedEntry>> state) {
      offered.add(Map.copyOf(state.get()));
      apply(target, sink, changed, removed);
    }

    @Override
    public void delete(String target, String sink) {
      calls.add("delete");
      own.clear();
    }

    @Override
    public List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
      calls.add("loadPeers");
      return peers.stream().map(Map::copyOf).toList();
    }

    @Override
    public void takeOver(String target, String sink, Set<String> keys) {
      calls.add("takeOver " + keys.size());
      peers.forEach(p -> p.keySet().removeAll(keys));
    }

    private void failIfAsked() {
      if (failWrites) {
        throw new IllegalStateException("disk full");
      }
    }
  }

  final Store store = new Store();

  static ExportedEntry entry(String name, String hash, Long sequence) {
    return new ExportedEntry(DEPLOYMENT, "ns", name, "uid-" + name, "p1", hash, "c1", sequence, T0);
  }

  /** The stored checkpoint holds {@code mine} and {@code theirs} (see {@link #NOT_THEIRS}). */
  private void storeMineAndTheirs() {
    store.own.put(key("mine"), entry("mine", "h", 1L));
    store.own.put(key("theirs"), entry("theirs", "h", 2L));
  }

  private CheckpointBook book(BiPredicate<String, String> owned) {
    return new CheckpointBook(store, new SequenceClock(CLOCK), owned);
  }

  @Test
  void everyLoadedEntryGetsANewSequenceAboveEveryStoredOneSoAHeartbeatCanRepairTheReceiver() {
    store.own.put(key("a"), entry("a", "h-a", 5_000_000L));
    store.own.put(key("b"), entry("b", "h-b", 9_000_000L));
    store.own.put(key("c"), entry("c", "h-c", null)); // written before sequences existed

    SinkState st = book(ALL).open(T, S, false);

    assertThat(st.acknowledged).containsOnlyKeys(exportKey("a"), exportKey("b"), exportKey("c"));
    assertThat(enqueued(st).values()).extracting(ExportedEntry::sequence)
        .allMatch(seq -> seq > 9_000_000L).doesNotHaveDuplicates();
    assertThat(enqueued(st).get(exportKey("a")).contentHash()).isEqualTo("h-a");
  }

  @Test
  void keysAnotherShardAnswersForLeaveTheStoreOfAnOwnDestinationAndAreNotKept() {
    storeMineAndTheirs();

    SinkState st = book(NOT_THEIRS).open(T, S, false);

    assertThat(enqueued(st)).containsOnlyKeys(exportKey("mine"));
    assertThat(st.waiting).isEmpty();
    assertThat(store.own).containsOnlyKeys(key("mine"));
    assertThat(store.calls).containsExactly("load", "apply +0 -1"); // no peer is read
  }

  @Test
  void keysAnotherShardAnswersForStayStoredForItWhenEveryShardSharesTheDestination() {
    storeMineAndTheirs();

    SinkState st = book(NOT_THEIRS).open(T, S, true);

    assertThat(enqueued(st)).containsOnlyKeys(exportKey("mine"));
    assertThat(st.waiting).containsOnlyKeys(exportKey("theirs"));
    assertThat(store.own).containsOnlyKeys(key("mine"), key("theirs"));
  }

  @Test
  void thePeersNewerCopyIsAdoptedWrittenToTheOwnStoreAndOnlyThenRemovedFromThePeers() {
    store.own.put(key("a"), entry("a", "old", 10L));
    store.own.put(key("tie"), entry("tie", "own", 30L));
    store.peers.add(new HashMap<>(Map.of(
        key("a"), entry("a", "new", 20L),
        key("tie"), entry("tie", "peer", 30L),
        key("moved"), entry("moved", "h", 5L))));

    SinkState st = book(ALL).open(T, S, true);

    assertThat(st.acknowledged.get(exportKey("a")).contentHash()).isEqualTo("new");
    assertThat(st.acknowledged.get(exportKey("tie")).contentHash()).isEqualTo("own");
    assertThat(st.acknowledged).containsKey(exportKey("moved"));
    assertThat(store.calls).containsExactly("load", "loadPeers", "apply +2 -0", "takeOver 3");
    assertThat(store.own.get(key("a")).contentHash()).isEqualTo("new");
    assertThat(store.peers.get(0)).isEmpty();
  }

  @Test
  void aFailedAdoptWriteLeavesTheKeysWithThePeersSoAKeyIsNeverInNoStore() {
    store.peers.add(new HashMap<>(Map.of(key("moved"), entry("moved", "h", 5L))));
    store.failWrites = true;

    SinkState st = book(ALL).open(T, S, true);

    // the first converge tombstones it
    assertThat(st.acknowledged).containsOnlyKeys(exportKey("moved"));
    assertThat(store.calls).doesNotContain("takeOver 1");
    assertThat(store.peers.get(0)).containsOnlyKeys(key("moved"));
  }

  @Test
  void aCrashBetweenAdoptAndRemoveLeavesTwoCopiesThatTheNextLoadResolvesToOne() {
    // what the crash left: the adopted copy in the own store and the original with the peer
    store.own.put(key("moved"), entry("moved", "h", 5L));
    store.peers.add(new HashMap<>(Map.of(key("moved"), entry("moved", "h", 5L))));

    SinkState st = book(ALL).open(T, S, true);

    assertThat(st.acknowledged).containsOnlyKeys(exportKey("moved"));
    assertThat(store.calls).containsExactly("load", "loadPeers", "takeOver 1");
    assertThat(store.own).containsOnlyKeys(key("moved"));
    assertThat(store.peers.get(0)).isEmpty();
  }

  /**
   * A sink whose stored checkpoint holds "gone" and "same", opened, that acknowledged the upsert of
   * "new" and the deletion of "gone" (nothing written yet).
   */
  private SinkState acknowledgeNewAndTheDeletionOfGone(CheckpointBook book) {
    store.own.put(key("gone"), entry("gone", "h", 1L));
    store.own.put(key("same"), entry("same", "h", 2L));
    SinkState st = book.open(T, S, false);
    st.acknowledge(exportKey("new"), Op.UPSERT, entry("new", "h", 4L), T0);
    st.acknowledge(exportKey("gone"), Op.DELETE, entry("gone", "h", 1L), T0);
    return st;
  }

  @Test
  void onlyWhatTheSinkAcknowledgedIsWrittenAndAsADeltaOfTheChangedKeys() {
    CheckpointBook book = book(ALL);
    SinkState st = acknowledgeNewAndTheDeletionOfGone(book);
    store.calls.clear();
    // handed to the sink, not acknowledged
    st.markEnqueued(exportKey("sent"), entry("sent", "h", 3L));

    book.saveIfChanged(st, false);
    book.saveIfChanged(st, false); // nothing changed since: no write

    assertThat(store.calls).containsExactly("apply +1 -1");
    assertThat(store.own).containsOnlyKeys(key("same"), key("new"));
  }

  @Test
  void aFailedWriteIsCarriedByTheNextOne() {
    CheckpointBook book = book(ALL);
    SinkState st = book.open(T, S, false);
    st.acknowledge(exportKey("a"), Op.UPSERT, entry("a", "h", 4L), T0);
    store.failWrites = true;
    book.saveIfChanged(st, false);
    store.failWrites = false;

    book.saveIfChanged(st, false);

    assertThat(store.own).containsOnlyKeys(key("a"));
  }

  @Test
  void aForgottenStateDeletesItsCheckpointAndALaterWriteCannotBringItBack() {
    CheckpointBook book = book(ALL);
    SinkState st = book.open(T, S, false);
    st.acknowledge(exportKey("a"), Op.UPSERT, entry("a", "h", 4L), T0);

    book.forget(st);
    st.acknowledge(exportKey("b"), Op.UPSERT, entry("b", "h", 5L), T0);
    book.save(st, true);

    assertThat(st.detached).isTrue();
    assertThat(store.own).isEmpty();
    assertThat(store.calls).last().isEqualTo("delete");
  }

  @Test
  void aWholeWriteOnCloseKeepsTheEntriesWaitingForAnotherShard() {
    storeMineAndTheirs();
    CheckpointBook book = book(NOT_THEIRS);
    SinkState st = book.open(T, S, true);
    st.acknowledge(exportKey("mine"), Op.UPSERT, enqueued(st).get(exportKey("mine")),
        T0.plusSeconds(60));

    book.saveIfChanged(st, true);

    assertThat(store.own).containsOnlyKeys(key("mine"), key("theirs"));
    assertThat(book.takeWaiting(st)).containsOnlyKeys(exportKey("theirs"));
    assertThat(book.takeWaiting(st)).isEmpty(); // handed over once
  }

  @Test
  void aDeltaWriteOffersTheStoreTheWholeAcknowledgedStateToCompactFrom() {
    CheckpointBook book = book(ALL);
    SinkState st = acknowledgeNewAndTheDeletionOfGone(book);

    book.saveIfChanged(st, false);

    assertThat(store.offered).hasSize(1);
    assertThat(store.offered.get(0)).isEqualTo(CheckpointBook.texts(st.acknowledged))
        .containsOnlyKeys(key("same"), key("new"));
  }

  @Test
  void noStateIsOfferedWhileEntriesAreKeptForAnotherShardSoACompactionCannotDropThem() {
    storeMineAndTheirs();
    CheckpointBook book = book(NOT_THEIRS);
    SinkState st = book.open(T, S, true);
    st.acknowledge(exportKey("new"), Op.UPSERT, entry("new", "h", 4L), T0);

    book.saveIfChanged(st, false);

    assertThat(store.offered).isEmpty();
    assertThat(store.own).containsOnlyKeys(key("mine"), key("theirs"), key("new"));
  }

  @Test
  void entriesTakenFromTheWaitingOnesAreAcknowledgedAtOnceSoTheNextOfferedStateHoldsThem() {
    storeMineAndTheirs();
    CheckpointBook book = book(NOT_THEIRS);
    SinkState st = book.open(T, S, true);

    assertThat(book.takeWaiting(st)).containsOnlyKeys(exportKey("theirs"));
    assertThat(st.acknowledged).containsKey(exportKey("theirs"));
    st.acknowledge(exportKey("new"), Op.UPSERT, entry("new", "h", 4L), T0);
    book.saveIfChanged(st, false);

    assertThat(store.offered).hasSize(1);
    assertThat(store.offered.get(0)).containsOnlyKeys(key("mine"), key("theirs"), key("new"));
  }
}

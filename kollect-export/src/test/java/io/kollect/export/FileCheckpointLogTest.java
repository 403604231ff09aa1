package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.GroupVersionKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The file store's delta log: O(changed) writes, compaction, and crash safety at every step. */
class FileCheckpointLogTest {

  @TempDir Path dir;

  static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");

  static ExportedEntry entry(String name, int version) {
    return new ExportedEntry(DEPLOYMENT, "ns", name, "uid-" + name, "p1", "hash-" + name + "-" + version,
        "c1", 1_767_225_600_000_000L + version, Instant.parse("2026-01-01T00:00:00Z")
        .plusSeconds(version));
  }

  static Map<String, ExportedEntry> entries(int n, int version) {
    Map<String, ExportedEntry> out = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      ExportedEntry e = entry("obj-" + i, version);
      out.put(e.key(), e);
    }
    return out;
  }

  /** Thrown from a compaction step to stop the store there, as {@code kill -9} would. */
  static final class SimulatedCrash extends RuntimeException {
    SimulatedCrash(String step) {
      super("crash at " + step);
    }
  }

  @Test
  void appliedDeltasLoadBackMergedOnTopOfTheSnapshot() {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", entries(10, 1));
    ExportedEntry changed = entry("obj-3", 2);
    ExportedEntry added = entry("obj-42", 1);
    store.apply("t", "s", Map.of(changed.key(), changed, added.key(), added),
        Set.of(entry("obj-5", 1).key()));

    Map<String, ExportedEntry> expected = new HashMap<>(entries(10, 1));
    expected.put(changed.key(), changed);
    expected.put(added.key(), added);
    expected.remove(entry("obj-5", 1).key());
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(expected);
  }

  @Test
  void aDeltaWritesBytesOfTheChangeNotOfTheState() {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", entries(2_000, 1));
    long before = store.bytesWritten();
    ExportedEntry changed = entry("obj-7", 2);
    store.apply("t", "s", Map.of(changed.key(), changed), Set.of());
    long delta = store.bytesWritten() - before;
    assertThat(delta).isLessThan(1_000);
    assertThat(Files.exists(CheckpointDirectory.logFile(store.file("t", "s")))).isTrue();
  }

  @Test
  void aDeltaOnAStoreWithoutSnapshotStartsFromEmpty() {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    ExportedEntry a = entry("a", 1);
    store.apply("t", "s", Map.of(a.key(), a), Set.of());
    assertThat(new FileCheckpointStore(dir).load("t", "s")).containsExactly(Map.entry(a.key(), a));
  }

  @Test
  void theLogIsCompactedIntoTheSnapshotOnceItOutgrowsIt() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> model = new HashMap<>(entries(50, 1));
    store.save("t", "s", model);
    Path log = CheckpointDirectory.logFile(store.file("t", "s"));
    boolean compacted = false;
    for (int round = 2; round < 400 && !compacted; round++) {
      ExportedEntry e = entry("obj-" + (round % 50), round);
      store.apply("t", "s", Map.of(e.key(), e), Set.of());
      model.put(e.key(), e);
      compacted = Files.size(log) == 0;
    }
    assertThat(compacted).as("log emptied by a compaction").isTrue();
    assertThat(Files.readString(store.file("t", "s"))).contains("\"generation\":2");
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }

  /** Applies entries {@code obj-from} on, {@code count} of them, offering {@code model}. */
  private static void applyRange(FileCheckpointStore store, Map<String, ExportedEntry> model,
      int from, int count, int version) {
    Map<String, ExportedEntry> changed = new HashMap<>();
    for (int i = from; i < from + count; i++) {
      ExportedEntry e = entry("obj-" + i, version);
      changed.put(e.key(), e);
    }
    model.putAll(changed);
    Map<String, ExportedEntry> state = Map.copyOf(model);
    store.apply("t", "s", changed, Set.of(), () -> state);
  }

  @Test
  void aStateStillGrowingIsNotCompactedNorAreTheChangesRightAfterIt() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> model = new HashMap<>(store.load("t", "s"));
    Path log = CheckpointDirectory.logFile(store.file("t", "s"));
    // a first inventory: every write brings new keys, far past the size that compacts a log
    for (int batch = 0; batch < 20; batch++) {
      applyRange(store, model, batch * 100, 100, 1);
    }
    assertThat(Files.size(log)).isGreaterThan(4 * FileCheckpointStore.MIN_COMPACT_BYTES);
    assertThat(store.file("t", "s")).as("no snapshot while the state grows").doesNotExist();

    // changes of keys held: up to twice the state's 2,000 entries in the log, no compaction
    for (int batch = 0; batch < 20; batch++) {
      applyRange(store, model, batch * 100, 100, 2);
    }
    assertThat(store.file("t", "s")).as("4,000 log entries for 2,000 keys").doesNotExist();
    applyRange(store, model, 0, 1, 3);

    assertThat(Files.size(log)).as("log emptied by the compaction").isZero();
    assertThat(Files.readString(store.file("t", "s"))).contains("\"generation\":1");
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }

  @Test
  void aLogReadBackCountsItsEntriesSoALaterStoreCompactsByTheSameRule() throws IOException {
    FileCheckpointStore first = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> stored = new HashMap<>(first.load("t", "s"));
    applyRange(first, stored, 0, 2_000, 1);
    applyRange(first, stored, 0, 2_000, 2);
    // a restarted store loads a log of 4,000 entries for 2,000 keys: one more change is past
    // twice the state, so it compacts (it would not, had the load not counted the log's entries)
    FileCheckpointStore second = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> model = new HashMap<>(second.load("t", "s"));
    applyRange(second, model, 7, 1, 3);

    assertThat(Files.size(CheckpointDirectory.logFile(second.file("t", "s")))).isZero();
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }

  /**
   * Applies changes of eight keys each (so that few forced writes reach compaction), each
   * offering {@code model} (updated first) as the caller's state, until one compacts the log;
   * returns after that apply.
   */
  static void applyUntilCompacted(FileCheckpointStore store, Map<String, ExportedEntry> model,
      int keys) throws IOException {
    Path log = CheckpointDirectory.logFile(store.file("t", "s"));
    for (int round = 2; round < 2_000; round++) {
      Map<String, ExportedEntry> changed = new HashMap<>();
      for (int j = 0; j < 8; j++) {
        ExportedEntry e = entry("obj-" + ((round * 8 + j) % keys), round);
        changed.put(e.key(), e);
      }
      model.putAll(changed);
      Map<String, ExportedEntry> state = Map.copyOf(model);
      store.apply("t", "s", changed, Set.of(), () -> state);
      if (Files.size(log) == 0) {
        return;
      }
    }
    throw new AssertionError("no compaction");
  }

  @Test
  void aStoreThatServedTheCallersLoadCompactsFromTheCallersStateWithoutReadingItsFiles()
      throws IOException {
    new FileCheckpointStore(dir).save("t", "s", entries(50, 1));
    FileCheckpointStore store = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> model = new HashMap<>(store.load("t", "s"));
    long read = store.bytesRead();

    applyUntilCompacted(store, model, 50);

    assertThat(store.bytesRead()).as("bytes read after the load").isEqualTo(read);
    assertThat(Files.readString(store.file("t", "s"))).contains("\"generation\":2");
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }

  @Test
  void aStoreThatDidNotServeTheCallersLoadCompactsFromItsFilesNotFromTheOfferedState()
      throws IOException {
    FileCheckpointStore first = new FileCheckpointStore(dir);
    first.save("t", "s", entries(50, 1));
    // a caller that never loaded through this store: its state lacks what is stored
    FileCheckpointStore store = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> callersView = new HashMap<>();
    Map<String, ExportedEntry> stored = new HashMap<>(entries(50, 1));
    for (int round = 2; round < 2_000; round++) {
      Map<String, ExportedEntry> changed = new HashMap<>();
      for (int j = 0; j < 8; j++) {
        ExportedEntry e = entry("new-" + round + "-" + j, round);
        changed.put(e.key(), e);
      }
      callersView.putAll(changed);
      stored.putAll(changed);
      Map<String, ExportedEntry> state = Map.copyOf(callersView);
      store.apply("t", "s", changed, Set.of(), () -> state);
      if (Files.size(CheckpointDirectory.logFile(store.file("t", "s"))) == 0) {
        break;
      }
    }
    assertThat(Files.readString(store.file("t", "s"))).contains("\"generation\":2");
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(stored);
  }

  @Test
  void aLineAnotherWriterAppendedIsReadBackNotOverwrittenByTheCallersState() throws IOException {
    // the unsharded store's checkpoint, from which shard 0 takes one key over (a removal line)
    FileCheckpointStore unsharded = FileCheckpointStore.inShardLayout(dir);
    unsharded.save("t", "s", entries(50, 1));
    Map<String, ExportedEntry> model = new HashMap<>(unsharded.load("t", "s"));
    String taken = entry("obj-7", 1).key();
    FileCheckpointStore.inShardLayout(dir, 0).takeOver("t", "s", Set.of(taken));
    // a caller whose state still holds the key (as a buggy or stale caller would) and keeps
    // writing others: the store saw a line it did not write, so it trusts its files instead
    long read = unsharded.bytesRead();
    Map<String, ExportedEntry> stale = new HashMap<>(model);
    for (int round = 2; round < 2_000; round++) {
      Map<String, ExportedEntry> changed = new HashMap<>();
      for (int j = 0; j < 8; j++) {
        int i = (round * 8 + j) % 50;
        ExportedEntry e = entry("obj-" + (i == 7 ? 8 : i), round);
        changed.put(e.key(), e);
      }
      stale.putAll(changed);
      Map<String, ExportedEntry> state = Map.copyOf(stale);
      unsharded.apply("t", "s", changed, Set.of(), () -> state);
      if (Files.size(CheckpointDirectory.logFile(unsharded.file("t", "s"))) == 0) {
        break;
      }
    }
    assertThat(unsharded.bytesRead()).isGreaterThan(read);
    Map<String, ExportedEntry> expected = new HashMap<>(stale);
    expected.remove(taken);
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(expected);
  }

  /**
   * A crash at any step of compaction loses nothing that {@code apply} returned from: the store
   * is abandoned where the step throws (its temporary file, half-written snapshot or untruncated
   * log left behind as a killed process leaves them), and a new store on the same directory loads
   * exactly the applied state, then keeps appending correctly on top of it. Both ways of
   * compacting: from the files read back, and from the state the caller offers (after loading
   * through the store, as the exporter does).
   */
  @ParameterizedTest(name = "crash at {0}, compacting from the caller''s state: {1}")
  @CsvSource({"snapshot-half-written, false", "snapshot-written, false",
      "snapshot-forced, false", "snapshot-renamed, false", "directory-forced, false",
      "log-truncated, false", "done, false",
      "snapshot-half-written, true", "snapshot-written, true", "snapshot-forced, true",
      "snapshot-renamed, true", "directory-forced, true", "log-truncated, true", "done, true"})
  void aCrashAtAnyStepOfCompactionLosesNothingAcknowledged(String crashAt,
      boolean fromCallersState) {
    boolean[] armed = {false};
    FileCheckpointStore store = new FileCheckpointStore(dir, step -> {
      if (armed[0] && step.equals(crashAt)) {
        throw new SimulatedCrash(step);
      }
    });
    Map<String, ExportedEntry> model = new HashMap<>(entries(50, 1));
    store.save("t", "s", model);
    if (fromCallersState) {
      assertThat(store.load("t", "s")).isEqualTo(model);
    }
    armed[0] = true;
    boolean crashed = false;
    long readBefore = store.bytesRead();
    for (int round = 2; round < 1_000 && !crashed; round++) {
      // eight changes a write, so the log reaches compaction in few (forced) writes
      Map<String, ExportedEntry> changed = new HashMap<>();
      for (int j = 0; j < 8; j++) {
        ExportedEntry e = entry("obj-" + ((round * 8 + j) % 60), round);
        changed.put(e.key(), e);
      }
      String gone = entry("obj-" + ((round + 30) % 60), 1).key();
      changed.remove(gone); // a key is changed or removed, never both
      // the line is forced before compaction starts: the delta counts as written either way
      model.remove(gone);
      model.putAll(changed);
      try {
        if (fromCallersState) {
          Map<String, ExportedEntry> state = Map.copyOf(model);
          store.apply("t", "s", changed, Set.of(gone), () -> state);
        } else {
          store.apply("t", "s", changed, Set.of(gone));
        }
      } catch (SimulatedCrash c) {
        crashed = true;
      }
    }
    assertThat(store.bytesRead() > readBefore).as("compaction read the files back")
        .isEqualTo(!fromCallersState);
    assertThat(crashed).as("compaction reached step " + crashAt).isTrue();

    FileCheckpointStore restarted = new FileCheckpointStore(dir);
    assertThat(restarted.load("t", "s")).isEqualTo(model);
    ExportedEntry after = entry("after-crash", 1);
    restarted.apply("t", "s", Map.of(after.key(), after), Set.of(entry("obj-2", 1).key()));
    model.put(after.key(), after);
    model.remove(entry("obj-2", 1).key());
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }

  @Test
  void aTornLastLineIsIgnoredAndTheNextAppendStartsOnAWholeLine() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", entries(3, 1));
    ExportedEntry kept = entry("obj-1", 2);
    store.apply("t", "s", Map.of(kept.key(), kept), Set.of());
    Path log = CheckpointDirectory.logFile(store.file("t", "s"));
    // what a crash in the middle of the next append leaves: part of a line, no newline
    ExportedEntry torn = entry("obj-2", 2);
    byte[] line = logLine("{\"version\":3,\"generation\":1,\"upserts\":{\""
        + torn.key() + "\":{}},\"removed\":[]}");
    Files.write(log, java.util.Arrays.copyOf(line, line.length / 2), StandardOpenOption.APPEND);

    FileCheckpointStore restarted = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> expected = new HashMap<>(entries(3, 1));
    expected.put(kept.key(), kept);
    assertThat(restarted.load("t", "s")).isEqualTo(expected);

    ExportedEntry next = entry("obj-0", 3);
    restarted.apply("t", "s", Map.of(next.key(), next), Set.of());
    expected.put(next.key(), next);
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(expected);
    assertThat(Files.readAllLines(log)).hasSize(2);
  }

  @Test
  void aDamagedLineAndEverythingAfterItAreIgnoredNotMisread() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", entries(3, 1));
    ExportedEntry first = entry("obj-1", 2);
    ExportedEntry second = entry("obj-2", 2);
    store.apply("t", "s", Map.of(first.key(), first), Set.of());
    store.apply("t", "s", Map.of(second.key(), second), Set.of());
    Path log = CheckpointDirectory.logFile(store.file("t", "s"));
    String text = Files.readString(log);
    // flip one character inside the first line's JSON: its CRC no longer matches
    Files.writeString(log, text.replaceFirst("hash-obj-1-2", "hash-obj-1-9"));
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(entries(3, 1));
  }

  @Test
  void aLogLineOfANewerFormatVersionMakesTheCheckpointLostNotMisread() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", entries(3, 1));
    Path log = CheckpointDirectory.logFile(store.file("t", "s"));
    Files.write(log, logLine("{\"version\":4,\"generation\":1,\"somethingNew\":true}"));
    FileCheckpointStore restarted = new FileCheckpointStore(dir);
    assertThat(restarted.load("t", "s")).isEmpty();

    // the next write replaces what could not be read: empty (the caller's view) plus the delta
    ExportedEntry a = entry("a", 1);
    restarted.apply("t", "s", Map.of(a.key(), a), Set.of());
    assertThat(new FileCheckpointStore(dir).load("t", "s")).containsExactly(Map.entry(a.key(), a));
  }

  @Test
  void aVersionTwoCheckpointIsReadOnUpgradeAndDeltasApplyOnTopOfIt() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    // byte for byte what the previous release (format 2, whole-file rewrites) wrote
    Files.writeString(store.file("t", "s"),
        "{\"version\":2,\"target\":\"t\",\"sink\":\"s\",\"entries\":{\"apps/Deployment/ns/a\":"
            + "{\"resource\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},"
            + "\"namespace\":\"ns\",\"name\":\"a\",\"uid\":\"uid-a\",\"profile\":\"p1\","
            + "\"contentHash\":\"h1\",\"cluster\":\"c1\",\"sequence\":1767225600000001,"
            + "\"lastSentAt\":\"2026-01-01T00:00:01Z\"}}}");
    ExportedEntry a = new ExportedEntry(DEPLOYMENT, "ns", "a", "uid-a", "p1", "h1", "c1",
        1767225600000001L, Instant.parse("2026-01-01T00:00:01Z"));
    assertThat(store.load("t", "s")).containsExactly(Map.entry(a.key(), a));

    ExportedEntry b = entry("b", 1);
    store.apply("t", "s", Map.of(b.key(), b), Set.of());
    assertThat(new FileCheckpointStore(dir).load("t", "s"))
        .containsExactlyInAnyOrderEntriesOf(Map.of(a.key(), a, b.key(), b));
  }

  @Test
  void deleteRemovesSnapshotAndLog() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", entries(3, 1));
    ExportedEntry e = entry("x", 1);
    store.apply("t", "s", Map.of(e.key(), e), Set.of());
    store.delete("t", "s");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
    assertThat(store.load("t", "s")).isEmpty();
    store.apply("t", "s", Map.of(e.key(), e), Set.of());
    assertThat(new FileCheckpointStore(dir).load("t", "s")).containsOnlyKeys(e.key());
  }

  /** A whole log line (checksum, space, JSON, newline), as the store writes one. */
  private static byte[] logLine(String json) {
    CheckpointLogLine line = new CheckpointLogLine(json.length());
    line.writeBytes(json.getBytes(StandardCharsets.UTF_8));
    java.nio.ByteBuffer bytes = line.finish();
    return java.util.Arrays.copyOf(bytes.array(), bytes.limit());
  }
}

package io.kollect.export;

import io.kollect.export.CheckpointFiles.Delta;
import io.kollect.export.CheckpointFiles.FileState;
import io.kollect.export.CheckpointFiles.Read;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Keeps checkpoints in a directory as, per (target, sink), a snapshot file and an append-only log
 * of acknowledged deltas, so a change costs the bytes of the change, not of the whole state.
 *
 * <p><b>Idea.</b> {@link #apply} appends one line (the changed entries and the removed keys) to
 * {@code <name>.checkpoint.log} and forces it to disk before returning. When the log has grown
 * past the snapshot's size (at least {@value #MIN_COMPACT_BYTES} bytes) it is compacted: the
 * merged state is written as a new snapshot {@code <name>.checkpoint.json} and the log is emptied.
 * Bytes written per change are then at most about twice the bytes of the change itself, whatever
 * the size of the state (about 1.5 times when the caller offers its state, below).
 *
 * <p><b>Compaction from the caller's state.</b> The store keeps no copy of the state (the exporter
 * already holds it once; a second copy per (target, sink) would double export memory), so a
 * compaction needs the state from somewhere. The exporter offers its own ({@link #apply(String,
 * String, Map, Set, Supplier)}): what it loaded from this store plus every change it acknowledged
 * since. The store writes that as the new snapshot when it knows its files hold exactly that state
 * up to changes the caller has not written yet: this store served the caller's {@link #load}, and
 * it wrote every log line since itself (the log is as long as it left it, see below). Otherwise
 * (no offer, no load through this store, another writer's line in the log, a write that failed
 * half-way) it reads the snapshot and its log back and merges them, as it always did (re-reading
 * cost more CPU than the rest of the checkpoint, docs/benchmarks.md). The snapshot so written may
 * carry newer states of keys than the log lines it replaces (acknowledged since, not written
 * yet): the next {@code apply} writes them again, which changes nothing, and a crash first leaves
 * newer acknowledged states, which is what a checkpoint may hold. Either way the snapshot is
 * streamed to its file entry by entry, never built as one array the size of the state.
 *
 * <p><b>A growing state is not compacted.</b> With the caller's state offered, a log past the
 * snapshot's size is compacted only once it holds more than {@value #LOG_ENTRIES_PER_STATE_ENTRY}
 * entries (upserts and removals) per entry of that state. A first inventory (every line a new key)
 * therefore writes its log once and no snapshot at all, where the rule of size alone rewrote the
 * whole state at each doubling of it, and the changes after it do not pay for compacting it at
 * once: the log is compacted when as many changes again have been written. The log holds at most
 * twice the state's entries plus one write's, so a load reads at most about three times the state
 * (twice under the size rule), and a steady stream of changes writes about 1.5 times its own bytes
 * (twice under the size rule).
 *
 * <p><b>Crash safety.</b> Every snapshot has a {@code generation}, and every log line names the
 * generation it applies to; {@link #load} applies only the lines of the snapshot's generation.
 * Compaction writes the new snapshot (generation + 1) to a temporary file, forces it, renames it
 * over the old one (atomic), forces the directory and only then empties the log. A crash before
 * the rename leaves the old snapshot and its log (the temporary file is removed on the next
 * start); a crash after it leaves the new snapshot and old lines it already contains, which carry
 * the old generation and are skipped. A log line is protected by a CRC-32C: a line torn by a crash
 * in the middle of an append (never acknowledged to the caller, who had not seen {@code apply}
 * return) fails its check and is ignored, and the next append first cuts the log back to the last
 * whole line. Nothing {@code apply} or {@code save} returned from is ever lost.
 *
 * <p><b>Format</b> (version 3). Snapshot: {@code {"version":3,"target":..,
 * "sink":..,"generation":G,"entries":{"<record key>":{"resource":{..},"namespace":..,"name":..,
 * "uid":..,"profile":..,"contentHash":..,"cluster":..,"sequence":..,"lastSentAt":..}}}}. Log: one
 * line per delta, {@code <crc32c of the JSON, 8 hex digits> {"version":3,"generation":G,
 * "upserts":{"<record key>":{entry}},"removed":["<record key>"]}}. Snapshots of versions 1 (no
 * {@code sequence} nor {@code lastSentAt}) and 2 (one whole file, rewritten on every save) are read
 * as generation 0 on upgrade; a snapshot or log line of a newer version than this code knows is
 * treated as lost (an empty checkpoint: a full re-send) rather than misread. A file that cannot be
 * read is logged and treated the same way, never a stuck exporter. Compacting from the caller's
 * state did not change the format: the previous release reads what this one writes and the other
 * way round ({@code CheckpointFormatCompatibilityTest}).
 *
 * <p><b>Shards and handover.</b> {@link #inShardLayout(Path, int)} keeps shard {@code I}'s
 * checkpoints in {@code root/shard-I} (the operator's {@code --checkpoint-dir} layout), {@link
 * #inShardLayout(Path)} the unsharded ones in {@code root}; their peers ({@link #loadPeers}, {@link
 * #takeOver}) are the other {@code root/shard-*} directories and {@code root}. Taking keys over
 * appends a removal line to the peer's log, so a peer may be written by another store, in this
 * process or another one sharing the directory: every read and write of a directory's files holds
 * its lock ({@code .checkpoint.lock}, an OS file lock, plus a lock per directory within this
 * JVM), and an owner that finds its log longer than it wrote re-reads it before appending instead
 * of cutting the other writer's line as torn. A store made with the plain constructor has no
 * peers and takes only the JVM's lock (no lock file).
 *
 * <p>The files' names, the lock and the peers are {@code CheckpointDirectory}'s; the bytes of the
 * snapshot and the log lines are {@code CheckpointFiles}'. This class decides what is written
 * when, and in which order.
 */
public final class FileCheckpointStore implements CheckpointStore {

  /** A log smaller than this is never compacted: small states would otherwise compact often. */
  static final long MIN_COMPACT_BYTES = 64 * 1024;
  /**
   * With the caller's state offered, a log is compacted once it holds more than this many entries
   * per entry of the state; see "A growing state is not compacted" in the class comment.
   */
  static final int LOG_ENTRIES_PER_STATE_ENTRY = 2;

  private final CheckpointDirectory dir;
  /** Per snapshot file; guarded by this. Filled on first read, so writes need not re-read. */
  private final Map<Path, FileState> known = new HashMap<>();
  private final AtomicLong bytesWritten = new AtomicLong();
  private final AtomicLong bytesRead = new AtomicLong();
  /**
   * Sizes each log line's buffer from the JSON per entry of the lines before it. Entries are of one
   * shape (names of at most 253 characters), so the guess holds for a first inventory's lines of
   * tens of thousands of entries, and the cap only guards against a figure gone wrong.
   */
  private final BatchSizeHint lineSize = new BatchSizeHint(256, 256 << 20);
  /** Called before each step of compaction; tests throw from it to simulate a crash there. */
  private final Consumer<String> steps;

  /** A store in {@code dir}, created if missing; leftovers of interrupted writes are removed. */
  public FileCheckpointStore(Path dir) {
    this(dir, null, step -> {});
  }

  FileCheckpointStore(Path dir, Consumer<String> steps) {
    this(dir, null, steps);
  }

  /**
   * The checkpoints of shard {@code index} in {@code root/shard-<index>}; its peers are the other
   * {@code root/shard-*} directories and {@code root} itself (the unsharded store).
   */
  public static FileCheckpointStore inShardLayout(Path root, int index) {
    return new FileCheckpointStore(CheckpointDirectory.shard(root, index), root, step -> {});
  }

  /**
   * The unsharded checkpoints in {@code root}; its peers are the {@code root/shard-*} directories
   * (what shards left there before the deployment ran unsharded).
   */
  public static FileCheckpointStore inShardLayout(Path root) {
    return new FileCheckpointStore(root, root, step -> {});
  }

  private FileCheckpointStore(Path dir, Path root, Consumer<String> steps) {
    this.dir = new CheckpointDirectory(dir, root);
    this.steps = steps;
  }

  @Override
  public synchronized Map<String, ExportedEntry> load(String target, String sink) {
    return dir.locked(() -> {
      Read r = read(target, sink);
      r.files().callerHolds = true;
      return r.entries();
    });
  }

  @Override
  public void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed) {
    apply(target, sink, changed, removed, null);
  }

  /**
   * Appends the change; a compaction it causes writes the caller's {@code state} when this store
   * knows its files hold exactly that (see the class comment), and reads them back otherwise.
   */
  @Override
  public synchronized void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed, Supplier<Map<String, ExportedEntry>> state) {
    if (changed.isEmpty() && removed.isEmpty()) {
      return;
    }
    dir.locked(() -> {
      applyLocked(target, sink, changed, removed, state);
      return null;
    });
  }

  private void applyLocked(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed, Supplier<Map<String, ExportedEntry>> state) {
    Path file = file(target, sink);
    FileState f = known.get(file);
    if (f == null || logGrewElsewhere(file, f)) {
      f = read(target, sink).files();
    }
    if (f.lost) {
      // What is on disk cannot be read; the caller's view started from empty, so empty plus this
      // delta is exactly the state to keep, written as a fresh snapshot.
      Map<String, ExportedEntry> merged = new TreeMap<>(changed);
      removed.forEach(merged::remove);
      writeSnapshot(target, sink, merged, f);
      return;
    }
    Delta delta = new Delta(CheckpointFiles.VERSION, f.generation, new TreeMap<>(changed),
        List.copyOf(new TreeSet<>(removed)));
    Path logFile = CheckpointDirectory.logFile(file);
    try {
      f.logBytes += appendLine(logFile, f.logBytes, delta);
      f.logEntries += changed.size() + removed.size();
    } catch (IOException e) {
      known.remove(file); // re-read before the next write: the log's length is not known now
      throw new UncheckedIOException("checkpoint log " + logFile + ": cannot be appended", e);
    }
    if (f.logBytes > Math.max(MIN_COMPACT_BYTES, f.snapshotBytes)) {
      if (state != null && f.callerHolds) {
        Map<String, ExportedEntry> current = state.get();
        // See "A growing state is not compacted" in the class comment.
        if (f.logEntries > (long) LOG_ENTRIES_PER_STATE_ENTRY * current.size()) {
          writeSnapshot(target, sink, new TreeMap<>(current), f);
        }
      } else {
        compact(target, sink);
      }
    }
  }

  @Override
  public synchronized void save(String target, String sink, Map<String, ExportedEntry> entries) {
    dir.locked(() -> {
      Path file = file(target, sink);
      FileState f = known.get(file);
      if (f == null) {
        f = read(target, sink).files();
      }
      writeSnapshot(target, sink, new TreeMap<>(entries), f);
      return null;
    });
  }

  @Override
  public synchronized void delete(String target, String sink) {
    Path file = file(target, sink);
    known.remove(file);
    dir.locked(() -> {
      try {
        // The log goes first: a crash in between leaves a snapshot alone, never a log on top of
        // nothing that a later snapshot of generation 0 would pick up.
        Files.deleteIfExists(CheckpointDirectory.logFile(file));
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("checkpoint " + file + ": cannot be deleted", e);
      }
      return null;
    });
  }

  /** The states the peer directories hold for (target, sink); see the class comment. */
  @Override
  public List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
    List<Map<String, ExportedEntry>> out = new ArrayList<>();
    for (Path peer : dir.peers()) {
      Path file = CheckpointDirectory.file(peer, target, sink);
      if (!Files.exists(file) && !Files.exists(CheckpointDirectory.logFile(file))) {
        continue;
      }
      Map<String, ExportedEntry> entries = CheckpointDirectory.lockedPeer(peer,
          () -> CheckpointFiles.read(file, target, sink)).entries();
      if (!entries.isEmpty()) {
        out.add(entries);
      }
    }
    return out;
  }

  /**
   * Appends to each peer's log a line removing those of {@code keys} it holds, read afresh under
   * the peer directory's lock: the peer's own store (which may be running) re-reads its log before
   * its next append, and its compaction reads it whole, so neither loses the line nor its own.
   */
  @Override
  public void takeOver(String target, String sink, Set<String> keys) {
    if (keys.isEmpty()) {
      return;
    }
    for (Path peer : dir.peers()) {
      Path file = CheckpointDirectory.file(peer, target, sink);
      Path logFile = CheckpointDirectory.logFile(file);
      if (!Files.exists(file) && !Files.exists(logFile)) {
        continue;
      }
      CheckpointDirectory.lockedPeer(peer, () -> {
        Read r = CheckpointFiles.read(file, target, sink);
        TreeSet<String> held = new TreeSet<>(keys);
        held.retainAll(r.entries().keySet());
        if (r.files().lost || held.isEmpty()) {
          return null;
        }
        Delta delta = new Delta(CheckpointFiles.VERSION, r.files().generation, Map.of(),
            List.copyOf(held));
        try {
          appendLine(logFile, r.files().logBytes, delta);
        } catch (IOException e) {
          throw new UncheckedIOException("checkpoint log " + logFile + ": cannot be appended", e);
        }
        return null;
      });
    }
  }

  /** Appends {@code delta} as a line to a log whose good part ends at {@code at}; its length. */
  private int appendLine(Path logFile, long at, Delta delta) throws IOException {
    ByteBuffer line = CheckpointFiles.logLine(delta, lineSize);
    int length = line.remaining();
    CheckpointFiles.append(logFile, at, line);
    bytesWritten.addAndGet(length);
    return length;
  }

  /**
   * Whether the log is not as long as this store left it: another store appended (took keys
   * over), or an append of this one was torn. Either way the log is read again before the next
   * append, which then starts after its last whole line.
   */
  private static boolean logGrewElsewhere(Path file, FileState f) {
    try {
      return Files.size(CheckpointDirectory.logFile(file)) != f.logBytes;
    } catch (NoSuchFileException e) {
      return f.logBytes != 0;
    } catch (IOException e) {
      return true;
    }
  }

  /** For the benchmark: bytes written to checkpoint files (snapshots and log lines) so far. */
  long bytesWritten() {
    return bytesWritten.get();
  }

  /** For tests: bytes of this store's own snapshots and logs read so far (peers' not counted). */
  long bytesRead() {
    return bytesRead.get();
  }

  /** Merges the log into a new snapshot. */
  private void compact(String target, String sink) {
    Read r = read(target, sink);
    writeSnapshot(target, sink, new TreeMap<>(r.entries()), r.files());
  }

  /**
   * Writes {@code entries} as the snapshot of the next generation, then empties the log. The order
   * of the steps is what makes a crash at any point safe (see the class comment).
   */
  private void writeSnapshot(String target, String sink, Map<String, ExportedEntry> entries,
      FileState f) {
    Path file = file(target, sink);
    Path temp = CheckpointDirectory.tempFile(file);
    Path logFile = CheckpointDirectory.logFile(file);
    long generation = f.highestGeneration + 1;
    try {
      if (f.lost) {
        // The generations of an unreadable snapshot's log are unknown: drop the log first, so
        // none of its lines can ever be taken for the new snapshot's.
        Files.deleteIfExists(logFile);
      }
      long size;
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        CheckpointFiles.writeDocument(ch, target, sink, generation, entries, steps);
        steps.accept("snapshot-written");
        ch.force(true);
        size = ch.size();
      }
      bytesWritten.addAndGet(size);
      steps.accept("snapshot-forced");
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      steps.accept("snapshot-renamed");
      // the rename made durable before the log it supersedes is emptied
      dir.force();
      steps.accept("directory-forced");
      if (Files.exists(logFile)) {
        try (FileChannel ch = FileChannel.open(logFile, StandardOpenOption.WRITE)) {
          ch.truncate(0);
          steps.accept("log-truncated");
          ch.force(true);
        }
      }
      steps.accept("done");
      f.generation = generation;
      f.highestGeneration = generation;
      f.snapshotBytes = size;
      f.logBytes = 0;
      f.logEntries = 0;
      f.lost = false;
      known.put(file, f);
    } catch (IOException e) {
      known.remove(file);
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // the next construction removes it
      }
      throw new UncheckedIOException("checkpoint " + file + ": cannot be written", e);
    }
  }

  /** Reads the snapshot and applies its log; remembers what it learnt about the files. */
  private Read read(String target, String sink) {
    Path file = file(target, sink);
    Read r = CheckpointFiles.read(file, target, sink);
    known.put(file, r.files());
    bytesRead.addAndGet(r.files().snapshotBytes + r.files().logBytes);
    return r;
  }

  /** The snapshot file of one (target, sink): readable names, escaped, hashed when too long. */
  Path file(String target, String sink) {
    return dir.file(target, sink);
  }
}

package io.kollect.export;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>Format</b> (version {@value #VERSION}). Snapshot: {@code {"version":3,"target":..,
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
 * its lock ({@value #LOCK_FILE}, an OS file lock, plus a lock per directory within this JVM), and
 * an owner that finds its log longer than it wrote re-reads it before appending instead of
 * cutting the other writer's line as torn. A store made with the plain constructor has no peers
 * and takes only the JVM's lock (no lock file).
 */
public final class FileCheckpointStore implements CheckpointStore {

  private static final Logger LOG = LoggerFactory.getLogger(FileCheckpointStore.class);
  private static final String SUFFIX = ".checkpoint.json";
  private static final String LOG_SUFFIX = ".checkpoint.log";
  private static final String TEMP_SUFFIX = ".tmp";
  private static final int MAX_READABLE_NAME = 160;
  /** Held while a directory's checkpoint files are read or written; see the class comment. */
  static final String LOCK_FILE = ".checkpoint.lock";
  private static final String SHARD_DIR_PREFIX = "shard-";
  /** Within this JVM one lock per directory: OS file locks do not exclude threads of one JVM. */
  private static final ConcurrentHashMap<Path, ReentrantLock> LOCAL_LOCKS =
      new ConcurrentHashMap<>();
  /** The format written; every version up to it is read. */
  static final int VERSION = 3;
  /** A log smaller than this is never compacted: small states would otherwise compact often. */
  static final long MIN_COMPACT_BYTES = 64 * 1024;
  /**
   * With the caller's state offered, a log is compacted once it holds more than this many entries
   * per entry of the state; see "A growing state is not compacted" in the class comment.
   */
  static final int LOG_ENTRIES_PER_STATE_ENTRY = 2;

  /** Reads entries in their bean form; writes them with {@link CheckpointEntryJson}. */
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .setSerializationInclusion(JsonInclude.Include.ALWAYS)
          .registerModule(new SimpleModule().addSerializer(ExportedEntry.class,
              new CheckpointEntryJson()));

  /** Writes one snapshot entry; no flush per entry (the stream is flushed per buffer). */
  private static final ObjectWriter ENTRY_WRITER = MAPPER.writerFor(ExportedEntry.class)
      .without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);

  /** The snapshot file's content. */
  record Document(int version, String target, String sink, long generation,
      Map<String, ExportedEntry> entries) {}

  /** One log line's JSON: a delta on top of the snapshot of {@code generation}. */
  record Delta(int version, long generation, Map<String, ExportedEntry> upserts,
      List<String> removed) {}

  /** What is known of one (target, sink)'s files after reading them. */
  private static final class Files3 {
    long generation;
    /** The highest generation seen in the snapshot or any log line: a new snapshot goes above. */
    long highestGeneration;
    long snapshotBytes;
    /** Length of the log up to its last whole, valid line: appends start here. */
    long logBytes;
    /** Entries (upserts and removals) the log's lines of this generation hold. */
    long logEntries;
    /** The stored state could not be read (corrupt, newer version): the next write replaces it. */
    boolean lost;
    /**
     * The caller holds the stored state: it loaded it through this store and every change since
     * went through this store (no other writer's line was found in the log). Only then may a
     * compaction write the state the caller offers instead of reading the files back.
     */
    boolean callerHolds;
  }

  /** The state read from disk together with what is known about the files. */
  private record Read(Map<String, ExportedEntry> entries, Files3 files) {}

  private final Path dir;
  /** The shard layout's root whose other directories are the peers; {@code null}: no peers. */
  private final Path root;
  /** Per snapshot file; guarded by this. Filled on first read, so writes need not re-read. */
  private final Map<Path, Files3> known = new HashMap<>();
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
    if (index < 0) {
      throw new IllegalArgumentException("index: must be 0 or more, got " + index);
    }
    return new FileCheckpointStore(root.resolve(SHARD_DIR_PREFIX + index), root, step -> {});
  }

  /**
   * The unsharded checkpoints in {@code root}; its peers are the {@code root/shard-*} directories
   * (what shards left there before the deployment ran unsharded).
   */
  public static FileCheckpointStore inShardLayout(Path root) {
    return new FileCheckpointStore(root, root, step -> {});
  }

  private FileCheckpointStore(Path dir, Path root, Consumer<String> steps) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.root = root;
    this.steps = steps;
    try {
      Files.createDirectories(dir);
      try (DirectoryStream<Path> temps = Files.newDirectoryStream(dir, "*" + TEMP_SUFFIX)) {
        for (Path t : temps) {
          Files.deleteIfExists(t);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("checkpoint directory " + dir + ": cannot be created", e);
    }
  }

  @Override
  public synchronized Map<String, ExportedEntry> load(String target, String sink) {
    return locked(dir, root != null, () -> {
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
    locked(dir, root != null, () -> {
      applyLocked(target, sink, changed, removed, state);
      return null;
    });
  }

  private void applyLocked(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed, Supplier<Map<String, ExportedEntry>> state) {
    Path file = file(target, sink);
    Files3 f = known.get(file);
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
    Delta delta = new Delta(VERSION, f.generation, new TreeMap<>(changed), List.copyOf(
        new TreeSet<>(removed)));
    Path logFile = logFile(file);
    try {
      ByteBuffer line = logLine(delta);
      int length = line.remaining();
      append(logFile, f.logBytes, line);
      f.logBytes += length;
      f.logEntries += changed.size() + removed.size();
      bytesWritten.addAndGet(length);
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
    locked(dir, root != null, () -> {
      Path file = file(target, sink);
      Files3 f = known.get(file);
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
    locked(dir, root != null, () -> {
      try {
        // The log goes first: a crash in between leaves a snapshot alone, never a log on top of
        // nothing that a later snapshot of generation 0 would pick up.
        Files.deleteIfExists(logFile(file));
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
    for (Path peer : peerDirs()) {
      Path file = file(peer, target, sink);
      if (!Files.exists(file) && !Files.exists(logFile(file))) {
        continue;
      }
      Map<String, ExportedEntry> entries = locked(peer, true, () -> readFiles(file, target, sink))
          .entries();
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
    for (Path peer : peerDirs()) {
      Path file = file(peer, target, sink);
      if (!Files.exists(file) && !Files.exists(logFile(file))) {
        continue;
      }
      locked(peer, true, () -> {
        Read r = readFiles(file, target, sink);
        TreeSet<String> held = new TreeSet<>(keys);
        held.retainAll(r.entries().keySet());
        if (r.files().lost || held.isEmpty()) {
          return null;
        }
        Delta delta = new Delta(VERSION, r.files().generation, Map.of(), List.copyOf(held));
        try {
          ByteBuffer line = logLine(delta);
          int length = line.remaining();
          append(logFile(file), r.files().logBytes, line);
          bytesWritten.addAndGet(length);
        } catch (IOException e) {
          throw new UncheckedIOException("checkpoint log " + logFile(file)
              + ": cannot be appended", e);
        }
        return null;
      });
    }
  }

  /** The other directories of the shard layout that exist; none without a layout. */
  List<Path> peerDirs() {
    if (root == null) {
      return List.of();
    }
    List<Path> out = new ArrayList<>();
    Path self = dir.toAbsolutePath().normalize();
    Path top = root.toAbsolutePath().normalize();
    if (!top.equals(self) && Files.isDirectory(top)) {
      out.add(top);
    }
    try (DirectoryStream<Path> shards = Files.newDirectoryStream(top,
        p -> Files.isDirectory(p) && p.getFileName().toString().matches(
            SHARD_DIR_PREFIX + "[0-9]{1,9}"))) {
      for (Path p : shards) {
        if (!p.toAbsolutePath().normalize().equals(self)) {
          out.add(p);
        }
      }
    } catch (NoSuchFileException e) {
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("checkpoint directory " + top + ": cannot be listed", e);
    }
    out.sort(null);
    return out;
  }

  /** Appends {@code line} to a log at {@code at}, first cutting whatever follows (a torn line). */
  private static void append(Path logFile, long at, ByteBuffer line) throws IOException {
    try (FileChannel ch = FileChannel.open(logFile, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      // Cut a torn tail (a crash during an earlier append) so this line starts on its own.
      if (ch.size() != at) {
        ch.truncate(at);
      }
      ch.position(at);
      writeFully(ch, line);
      ch.force(false);
    }
  }

  /**
   * Whether the log is not as long as this store left it: another store appended (took keys
   * over), or an append of this one was torn. Either way the log is read again before the next
   * append, which then starts after its last whole line.
   */
  private static boolean logGrewElsewhere(Path file, Files3 f) {
    try {
      return Files.size(logFile(file)) != f.logBytes;
    } catch (NoSuchFileException e) {
      return f.logBytes != 0;
    } catch (IOException e) {
      return true;
    }
  }

  /** Something done while holding a directory's lock. */
  private interface Locked<T> {
    T run();
  }

  /**
   * Runs {@code action} holding {@code directory}'s lock: within this JVM a lock per directory
   * (re-entrant), across processes (with {@code acrossProcesses}: stores of a shard layout, the
   * only ones with peers) an OS lock on its {@value #LOCK_FILE}. A file system without file locks
   * is still safe within one JVM; that is logged at debug.
   */
  private static <T> T locked(Path directory, boolean acrossProcesses, Locked<T> action) {
    Path key = directory.toAbsolutePath().normalize();
    ReentrantLock local = LOCAL_LOCKS.computeIfAbsent(key, k -> new ReentrantLock());
    local.lock();
    try {
      if (local.getHoldCount() > 1 || !acrossProcesses) {
        return action.run();
      }
      FileChannel ch = null;
      FileLock lock = null;
      try {
        ch = FileChannel.open(key.resolve(LOCK_FILE), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
        lock = ch.lock();
      } catch (IOException | UnsupportedOperationException e) {
        LOG.debug("checkpoint directory {}: no file lock ({}); only this JVM's writers are "
            + "excluded", key, e.toString());
      }
      try {
        return action.run();
      } finally {
        closeQuietly(lock, ch);
      }
    } finally {
      local.unlock();
    }
  }

  private static void closeQuietly(FileLock lock, FileChannel ch) {
    try {
      if (lock != null) {
        lock.release();
      }
      if (ch != null) {
        ch.close();
      }
    } catch (IOException e) {
      LOG.debug("cannot release checkpoint lock: {}", e.toString());
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
      Files3 f) {
    Path file = file(target, sink);
    Path temp = file.resolveSibling(file.getFileName() + "." + Thread.currentThread().getId()
        + TEMP_SUFFIX);
    long generation = f.highestGeneration + 1;
    try {
      if (f.lost) {
        // The generations of an unreadable snapshot's log are unknown: drop the log first, so
        // none of its lines can ever be taken for the new snapshot's.
        Files.deleteIfExists(logFile(file));
      }
      long size;
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        writeDocument(ch, target, sink, generation, entries);
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
      forceDirectory();
      steps.accept("directory-forced");
      Path logFile = logFile(file);
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

  /**
   * Streams the snapshot (a {@link Document}) into {@code ch} entry by entry: a 50,000-entry
   * snapshot is ~17 MB, which as one array would be a spike the size of the state on every
   * compaction. The step "snapshot-half-written" comes with half the entries on disk.
   */
  private void writeDocument(FileChannel ch, String target, String sink, long generation,
      Map<String, ExportedEntry> entries) throws IOException {
    OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 64 * 1024);
    try (JsonGenerator gen = MAPPER.getFactory().createGenerator(out)
        .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)) {
      gen.writeStartObject();
      gen.writeNumberField("version", VERSION);
      gen.writeStringField("target", target);
      gen.writeStringField("sink", sink);
      gen.writeNumberField("generation", generation);
      gen.writeObjectFieldStart("entries");
      int half = entries.size() / 2;
      int i = 0;
      if (entries.isEmpty()) {
        steps.accept("snapshot-half-written");
      }
      for (Map.Entry<String, ExportedEntry> e : entries.entrySet()) {
        if (i++ == half) {
          gen.flush();
          steps.accept("snapshot-half-written");
        }
        gen.writeFieldName(e.getKey());
        ENTRY_WRITER.writeValue(gen, e.getValue());
      }
      gen.writeEndObject();
      gen.writeEndObject();
    }
    out.flush();
  }

  /** Reads the snapshot and applies its log; remembers what it learnt about the files. */
  private Read read(String target, String sink) {
    Path file = file(target, sink);
    Read r = readFiles(file, target, sink);
    known.put(file, r.files());
    bytesRead.addAndGet(r.files().snapshotBytes + r.files().logBytes);
    return r;
  }

  /** Reads a snapshot (of this store or a peer) and applies its log. */
  private static Read readFiles(Path file, String target, String sink) {
    Files3 f = new Files3();
    Map<String, ExportedEntry> entries = new HashMap<>();
    if (!readSnapshot(file, target, sink, entries, f) || !applyLog(logFile(file), entries, f)) {
      return lost(f);
    }
    return new Read(entries, f);
  }

  /**
   * Reads the snapshot into {@code entries} and its generation and size into {@code f}; a missing
   * snapshot is generation 0, empty. False when the checkpoint is lost (logged).
   */
  private static boolean readSnapshot(Path file, String target, String sink,
      Map<String, ExportedEntry> entries, Files3 f) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return true; // no snapshot yet: generation 0, the log (if any) applies to an empty state
    } catch (IOException e) {
      LOG.warn("checkpoint {} cannot be read, treating it as empty: {}", file, e.toString());
      return false;
    }
    try {
      Document doc = MAPPER.readValue(bytes, Document.class);
      if (doc == null || doc.entries() == null) {
        throw new IOException("no entries");
      }
      if (doc.version() < 1 || doc.version() > VERSION) {
        throw new IOException("format version " + doc.version() + " is not one this version "
            + "of Kollect reads (1 to " + VERSION + ")");
      }
      if (!target.equals(doc.target()) || !sink.equals(doc.sink())) {
        throw new IOException("file belongs to target " + doc.target() + " sink " + doc.sink());
      }
      check(doc.entries());
      entries.putAll(doc.entries());
      f.generation = doc.generation();
      f.highestGeneration = doc.generation();
      f.snapshotBytes = bytes.length;
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn("checkpoint {} is corrupt, treating it as empty (a full re-send follows): {}",
          file, e.getMessage());
      return false;
    }
  }

  /**
   * Applies to {@code entries} the log lines of the snapshot's generation, up to a torn or damaged
   * line (what it and later lines held is re-sent), and notes in {@code f} the highest generation
   * seen and the log's good length. False when the checkpoint is lost (logged).
   */
  private static boolean applyLog(Path logFile, Map<String, ExportedEntry> entries, Files3 f) {
    byte[] log;
    try {
      log = Files.readAllBytes(logFile);
    } catch (NoSuchFileException e) {
      return true;
    } catch (IOException e) {
      LOG.warn("checkpoint log {} cannot be read, treating the checkpoint as empty: {}", logFile,
          e.toString());
      return false;
    }
    int start = 0;
    while (start < log.length) {
      int end = indexOf(log, (byte) '\n', start);
      if (end < 0) {
        LOG.info("checkpoint log {} ends in a torn line (an append interrupted by a crash); "
            + "it is ignored", logFile);
        break;
      }
      Delta d = parseLine(log, start, end);
      if (d == null) {
        LOG.warn("checkpoint log {} has a damaged line at byte {}; it and the lines after it are "
            + "ignored (what they held is re-sent)", logFile, start);
        break;
      }
      if (d.version() > VERSION) {
        LOG.warn("checkpoint log {} has format version {}, newer than this version of Kollect "
            + "reads ({}); treating the checkpoint as empty", logFile, d.version(), VERSION);
        return false;
      }
      f.highestGeneration = Math.max(f.highestGeneration, d.generation());
      if (d.generation() == f.generation) {
        if (!applyDelta(d, entries, logFile)) {
          return false;
        }
        f.logEntries += (d.upserts() == null ? 0 : d.upserts().size())
            + (d.removed() == null ? 0 : d.removed().size());
      }
      start = end + 1;
    }
    f.logBytes = start;
    return true;
  }

  /** Applies one delta of the snapshot's generation; false when its entries are damaged. */
  private static boolean applyDelta(Delta d, Map<String, ExportedEntry> entries, Path logFile) {
    if (d.removed() != null) {
      d.removed().forEach(entries::remove);
    }
    if (d.upserts() != null) {
      try {
        check(d.upserts());
      } catch (IOException e) {
        LOG.warn("checkpoint log {}: {}; treating the checkpoint as empty", logFile,
            e.getMessage());
        return false;
      }
      entries.putAll(d.upserts());
    }
    return true;
  }

  private static Read lost(Files3 f) {
    f.lost = true;
    return new Read(Map.of(), f);
  }

  private static void check(Map<String, ExportedEntry> entries) throws IOException {
    for (Map.Entry<String, ExportedEntry> e : entries.entrySet()) {
      if (e.getValue() == null || e.getValue().resource() == null || e.getValue().name() == null) {
        throw new IOException("entry " + e.getKey() + " lacks resource or name");
      }
    }
  }

  /** A delta as a log line, its buffer sized from the lines before it. */
  private ByteBuffer logLine(Delta delta) throws IOException {
    int entries = delta.upserts().size() + delta.removed().size();
    CheckpointLogLine line = new CheckpointLogLine(lineSize.bytesFor(entries));
    MAPPER.writeValue(line, delta);
    lineSize.observe(entries, line.jsonLength());
    return line.finish();
  }

  /** The delta of one line, or null when the line is damaged. */
  private static Delta parseLine(byte[] log, int start, int end) {
    if (end - start < 10 || log[start + 8] != ' ') {
      return null;
    }
    try {
      long expected = Long.parseLong(new String(log, start, 8, StandardCharsets.US_ASCII), 16);
      CRC32C crc = new CRC32C();
      crc.update(log, start + 9, end - start - 9);
      if (crc.getValue() != expected) {
        return null;
      }
      return MAPPER.readValue(log, start + 9, end - start - 9, Delta.class);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }

  /** Makes the rename durable before the log it supersedes is emptied. */
  private void forceDirectory() {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Not every platform can open a directory; the rename is still atomic there.
      LOG.debug("cannot force directory {}: {}", dir, e.toString());
    }
  }

  /** The snapshot file of one (target, sink): readable names, escaped, hashed when too long. */
  Path file(String target, String sink) {
    return file(dir, target, sink);
  }

  private static Path file(Path in, String target, String sink) {
    String readable = escape(target) + "." + escape(sink);
    if (readable.length() > MAX_READABLE_NAME) {
      readable = readable.substring(0, 100) + "-" + sha256(target + "\u0000" + sink).substring(0, 32);
    }
    return in.resolve(readable + SUFFIX);
  }

  /** The delta log next to a snapshot file. */
  static Path logFile(Path snapshot) {
    String name = snapshot.getFileName().toString();
    return snapshot.resolveSibling(name.substring(0, name.length() - SUFFIX.length()) + LOG_SUFFIX);
  }

  /** Keeps letters, digits, '-' and '_'; everything else (including '.') becomes %XX of UTF-8. */
  private static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
          || c == '_') {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

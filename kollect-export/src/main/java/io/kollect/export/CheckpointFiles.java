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
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file checkpoint's format ({@link FileCheckpointStore}'s class comment has it): a snapshot
 * file and its log of deltas read back into a state, a delta appended as a log line, a state
 * streamed as a snapshot. What is read and written when, and the order that keeps it crash-safe,
 * is the store's; this class only knows the bytes.
 *
 * <p>What cannot be read is never an error here: it is logged and reported as lost ({@link
 * FileState#lost}), and a torn or damaged log line ends the log (what it and later lines held is
 * re-sent).
 */
final class CheckpointFiles {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointFiles.class);

  /** The format written; every version up to it is read. */
  static final int VERSION = 3;

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
  static final class FileState {
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
     * The store's caller holds the stored state: it loaded it through the store and every change
     * since went through the store (no other writer's line was found in the log). Only then may
     * a compaction write the state the caller offers instead of reading the files back.
     */
    boolean callerHolds;
  }

  /** The state read from disk together with what is known about the files. */
  record Read(Map<String, ExportedEntry> entries, FileState files) {}

  private CheckpointFiles() {}

  /** Reads a snapshot and applies its log. */
  static Read read(Path file, String target, String sink) {
    FileState f = new FileState();
    Map<String, ExportedEntry> entries = new HashMap<>();
    if (!readSnapshot(file, target, sink, entries, f)
        || !applyLog(CheckpointDirectory.logFile(file), entries, f)) {
      f.lost = true;
      return new Read(Map.of(), f);
    }
    return new Read(entries, f);
  }

  /**
   * Reads the snapshot into {@code entries} and its generation and size into {@code f}; a missing
   * snapshot is generation 0, empty. False when the checkpoint is lost (logged).
   */
  private static boolean readSnapshot(Path file, String target, String sink,
      Map<String, ExportedEntry> entries, FileState f) {
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
  private static boolean applyLog(Path logFile, Map<String, ExportedEntry> entries, FileState f) {
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

  private static void check(Map<String, ExportedEntry> entries) throws IOException {
    for (Map.Entry<String, ExportedEntry> e : entries.entrySet()) {
      if (e.getValue() == null || e.getValue().resource() == null || e.getValue().name() == null) {
        throw new IOException("entry " + e.getKey() + " lacks resource or name");
      }
    }
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

  /** A delta as a log line, its buffer sized by {@code lineSize} from the lines before it. */
  static ByteBuffer logLine(Delta delta, BatchSizeHint lineSize) throws IOException {
    int entries = delta.upserts().size() + delta.removed().size();
    CheckpointLogLine line = new CheckpointLogLine(lineSize.bytesFor(entries));
    MAPPER.writeValue(line, delta);
    lineSize.observe(entries, line.jsonLength());
    return line.finish();
  }

  /**
   * Appends {@code line} to a log at {@code at}, first cutting whatever follows (a torn line), and
   * forces it to disk.
   */
  static void append(Path logFile, long at, ByteBuffer line) throws IOException {
    try (FileChannel ch = FileChannel.open(logFile, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      // Cut a torn tail (a crash during an earlier append) so this line starts on its own.
      if (ch.size() != at) {
        ch.truncate(at);
      }
      ch.position(at);
      while (line.hasRemaining()) {
        ch.write(line);
      }
      ch.force(false);
    }
  }

  /**
   * Streams a snapshot (a {@link Document}) into {@code ch} entry by entry: a 50,000-entry
   * snapshot is ~17 MB, which as one array would be a spike the size of the state on every
   * compaction. The step "snapshot-half-written" is announced with half the entries on disk.
   */
  static void writeDocument(FileChannel ch, String target, String sink, long generation,
      Map<String, ExportedEntry> entries, Consumer<String> steps) throws IOException {
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
}

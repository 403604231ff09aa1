package io.kollect.export;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
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
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps checkpoints as one JSON file per (target, sink) in a directory. Files are replaced
 * atomically (written to a temporary file, forced to disk, then moved over the old one), so a
 * crash leaves either the old or the new checkpoint, never a torn one. A file that cannot be read
 * is logged and treated as empty: the cost is a full re-send without tombstones for objects deleted
 * meanwhile, never a stuck exporter.
 *
 * <p>File format (version {@value #VERSION}): {@code {"version":2,"target":..,"sink":..,"entries":
 * {"<record key>":{"resource":{..},"namespace":..,"name":..,"uid":..,"profile":..,"contentHash":..,
 * "cluster":..,"sequence":..,"lastSentAt":..}}}}. Version 1 files (no {@code sequence}, no {@code
 * lastSentAt}) are read as they are; a file of a newer version than this code knows is treated as
 * unreadable rather than misread.
 */
public final class FileCheckpointStore implements CheckpointStore {

  private static final Logger LOG = LoggerFactory.getLogger(FileCheckpointStore.class);
  private static final String SUFFIX = ".checkpoint.json";
  private static final String TEMP_SUFFIX = ".tmp";
  private static final int MAX_READABLE_NAME = 160;
  /** The format written; every version up to it is read. */
  static final int VERSION = 2;

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .setSerializationInclusion(JsonInclude.Include.ALWAYS);

  /** The file's content. */
  record Document(int version, String target, String sink, Map<String, ExportedEntry> entries) {}

  private final Path dir;

  /** A store in {@code dir}, created if missing; leftovers of interrupted writes are removed. */
  public FileCheckpointStore(Path dir) {
    this.dir = Objects.requireNonNull(dir, "dir");
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
  public Map<String, ExportedEntry> load(String target, String sink) {
    Path file = file(target, sink);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException e) {
      LOG.warn("checkpoint {} cannot be read, treating it as empty: {}", file, e.toString());
      return Map.of();
    }
    try {
      Document doc = MAPPER.readValue(bytes, Document.class);
      if (doc == null || doc.entries() == null) {
        throw new IOException("no entries");
      }
      if (doc.version() < 1 || doc.version() > VERSION) {
        throw new IOException("format version " + doc.version() + " is not one this version of "
            + "Kollect reads (1 to " + VERSION + ")");
      }
      if (!target.equals(doc.target()) || !sink.equals(doc.sink())) {
        throw new IOException("file belongs to target " + doc.target() + " sink " + doc.sink());
      }
      for (Map.Entry<String, ExportedEntry> e : doc.entries().entrySet()) {
        if (e.getValue() == null || e.getValue().resource() == null || e.getValue().name() == null) {
          throw new IOException("entry " + e.getKey() + " lacks resource or name");
        }
      }
      return doc.entries();
    } catch (IOException | RuntimeException e) {
      LOG.warn("checkpoint {} is corrupt, treating it as empty (a full re-send follows): {}", file,
          e.getMessage());
      return Map.of();
    }
  }

  @Override
  public synchronized void save(String target, String sink, Map<String, ExportedEntry> entries) {
    Path file = file(target, sink);
    Path temp = file.resolveSibling(file.getFileName() + "." + Thread.currentThread().getId()
        + TEMP_SUFFIX);
    Document doc = new Document(VERSION, target, sink, new TreeMap<>(entries));
    try {
      ByteBuffer bytes = ByteBuffer.wrap(MAPPER.writeValueAsBytes(doc));
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        while (bytes.hasRemaining()) {
          ch.write(bytes);
        }
        ch.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // the next construction removes it
      }
      throw new UncheckedIOException("checkpoint " + file + ": cannot be written", e);
    }
  }

  @Override
  public synchronized void delete(String target, String sink) {
    Path file = file(target, sink);
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("checkpoint " + file + ": cannot be deleted", e);
    }
  }

  /** The file of one (target, sink): readable names, escaped, hashed when they would be too long. */
  Path file(String target, String sink) {
    String readable = escape(target) + "." + escape(sink);
    if (readable.length() > MAX_READABLE_NAME) {
      readable = readable.substring(0, 100) + "-" + sha256(target + "\u0000" + sink).substring(0, 32);
    }
    return dir.resolve(readable + SUFFIX);
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

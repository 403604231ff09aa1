package io.kollect.export;

import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends each record as one JSON line (JSONL) to a file, rotating by size.
 *
 * <p>Whole lines only: a batch is encoded first and written in line-aligned chunks; rotation
 * happens between lines; each batch is forced to disk before it counts as delivered. If a write
 * fails half way, the file is truncated back to the last complete line; if the process died half
 * way, the torn tail is cut off when the sink next opens the file. Readers therefore never see a
 * partial line.
 *
 * <p>Rotation: when the next line would take the active file past {@code maxBytes}, the file is
 * renamed to {@code <file>.1} (older ones shift to {@code .2} ... up to {@code .<keptFiles>}, the
 * oldest is deleted) and a new file is started. A single line longer than {@code maxBytes} is
 * written alone to its own file.
 */
public final class FileSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(FileSink.class);

  /** 100 MiB per file. */
  public static final long DEFAULT_MAX_BYTES = 100L * 1024 * 1024;
  /** Five rotated files besides the active one. */
  public static final int DEFAULT_KEPT_FILES = 5;

  private final String name;
  private final Path file;
  private final long maxBytes;
  private final int keptFiles;

  private FileChannel channel;
  private long size;

  /** A sink with the default size limit and number of kept files. */
  public FileSink(String name, Path file) {
    this(name, file, DEFAULT_MAX_BYTES, DEFAULT_KEPT_FILES);
  }

  /**
   * @param maxBytes size at which the file rotates; {@code 0} never rotates
   * @param keptFiles rotated files to keep besides the active one ({@code 0} discards the old file)
   */
  public FileSink(String name, Path file, long maxBytes, int keptFiles) {
    this.name = Objects.requireNonNull(name, "name");
    this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes: must be zero (no rotation) or positive, got "
          + maxBytes);
    }
    if (keptFiles < 0) {
      throw new IllegalArgumentException("keptFiles: must not be negative, got " + keptFiles);
    }
    this.maxBytes = maxBytes;
    this.keptFiles = keptFiles;
  }

  @Override
  public String name() {
    return name;
  }

  /** The active file. */
  public Path file() {
    return file;
  }

  @Override
  public void write(List<Record> batch) throws SinkException {
    try {
      ensureOpen();
      ByteArrayOutputStream chunk = new ByteArrayOutputStream(Math.max(1024, batch.size() * 256));
      for (Record r : batch) {
        byte[] line = Records.toJsonBytes(r);
        long chunkSize = chunk.size();
        if (maxBytes > 0 && size + chunkSize > 0 && size + chunkSize + line.length + 1 > maxBytes) {
          append(chunk);
          rotate();
        }
        chunk.write(line);
        chunk.write('\n');
      }
      append(chunk);
      channel.force(false);
    } catch (IOException e) {
      closeQuietly();
      throw SinkException.retryable("sink " + name + ": cannot write " + file + ": " + e, e);
    }
  }

  /** Writes complete lines; on failure cuts the file back to where it was. */
  private void append(ByteArrayOutputStream chunk) throws IOException {
    if (chunk.size() == 0) {
      return;
    }
    ByteBuffer buf = ByteBuffer.wrap(chunk.toByteArray());
    long before = size;
    try {
      channel.position(before);
      while (buf.hasRemaining()) {
        channel.write(buf);
      }
    } catch (IOException e) {
      try {
        channel.truncate(before);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    size = before + chunk.size();
    chunk.reset();
  }

  private void ensureOpen() throws IOException {
    if (channel != null) {
      return;
    }
    Path parent = file.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.READ);
    size = channel.size();
    cutTornTail();
  }

  /** Removes an incomplete last line left by a crash, so appended lines start on a fresh line. */
  private void cutTornTail() throws IOException {
    if (size == 0) {
      return;
    }
    ByteBuffer one = ByteBuffer.allocate(1);
    channel.read(one, size - 1);
    if (one.get(0) == '\n') {
      return;
    }
    long pos = size;
    ByteBuffer buf = ByteBuffer.allocate(8192);
    long keep = 0;
    while (pos > 0 && keep == 0) {
      int n = (int) Math.min(buf.capacity(), pos);
      buf.clear().limit(n);
      pos -= n;
      channel.read(buf, pos);
      for (int i = n - 1; i >= 0; i--) {
        if (buf.get(i) == '\n') {
          keep = pos + i + 1;
          break;
        }
      }
    }
    LOG.warn("sink {}: {} ended with an incomplete line ({} bytes); cutting it off", name, file,
        size - keep);
    channel.truncate(keep);
    channel.force(false);
    size = keep;
  }

  private void rotate() throws IOException {
    channel.force(false);
    channel.close();
    channel = null;
    if (keptFiles == 0) {
      Files.deleteIfExists(file);
    } else {
      for (int i = keptFiles - 1; i >= 1; i--) {
        Path from = rotated(i);
        if (Files.exists(from)) {
          Files.move(from, rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Files.move(file, rotated(1), StandardCopyOption.REPLACE_EXISTING);
    }
    ensureOpen();
  }

  /** The {@code n}-th most recent rotated file. */
  public Path rotated(int n) {
    return file.resolveSibling(file.getFileName() + "." + n);
  }

  private void closeQuietly() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // reopened on the next write
      }
      channel = null;
    }
  }

  @Override
  public void close() {
    closeQuietly();
  }
}

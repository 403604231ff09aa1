package io.kollect.export;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a {@link FileCheckpointStore} keeps its files and who may touch them: the names of a
 * (target, sink)'s snapshot and log, the directory's lock, and the peer directories of a shard
 * layout. It knows nothing of what the files hold ({@link CheckpointFiles} does).
 *
 * <p>A directory of a shard layout may be written by stores of other processes sharing it (a peer
 * taking keys over), so every read and write of its files holds its lock: within this JVM a lock
 * per directory, across processes an OS lock on {@value #LOCK_FILE}. A directory outside a layout
 * has no peers and takes only the JVM's lock.
 */
final class CheckpointDirectory {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointDirectory.class);
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

  /** Something done while holding a directory's lock. */
  interface Locked<T> {
    T run();
  }

  private final Path dir;
  /** The shard layout's root whose other directories are the peers; {@code null}: no peers. */
  private final Path root;

  /**
   * {@code dir}, created if missing, with leftovers of interrupted writes removed; {@code root}:
   * the shard layout it belongs to, or {@code null} for none.
   */
  CheckpointDirectory(Path dir, Path root) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.root = root;
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

  /** Shard {@code index}'s directory in the layout under {@code root}. */
  static Path shard(Path root, int index) {
    if (index < 0) {
      throw new IllegalArgumentException("index: must be 0 or more, got " + index);
    }
    return root.resolve(SHARD_DIR_PREFIX + index);
  }

  /** Runs {@code action} holding this directory's lock. */
  <T> T locked(Locked<T> action) {
    return locked(dir, root != null, action);
  }

  /** Runs {@code action} holding a peer directory's lock (in this JVM and across processes). */
  static <T> T lockedPeer(Path peer, Locked<T> action) {
    return locked(peer, true, action);
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

  /** The other directories of the shard layout that exist, sorted; none without a layout. */
  List<Path> peers() {
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

  /** Makes a rename in this directory durable. */
  void force() {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Not every platform can open a directory; the rename is still atomic there.
      LOG.debug("cannot force directory {}: {}", dir, e.toString());
    }
  }

  /** The snapshot file of one (target, sink) in this directory. */
  Path file(String target, String sink) {
    return file(dir, target, sink);
  }

  /**
   * The snapshot file of one (target, sink) in {@code in}: readable names, escaped, hashed when
   * too long.
   */
  static Path file(Path in, String target, String sink) {
    String readable = escape(target) + "." + escape(sink);
    if (readable.length() > MAX_READABLE_NAME) {
      readable = readable.substring(0, 100) + "-"
          + sha256(target + "\u0000" + sink).substring(0, 32);
    }
    return in.resolve(readable + SUFFIX);
  }

  /** The delta log next to a snapshot file. */
  static Path logFile(Path snapshot) {
    String name = snapshot.getFileName().toString();
    return snapshot.resolveSibling(name.substring(0, name.length() - SUFFIX.length()) + LOG_SUFFIX);
  }

  /** Where a snapshot is written by this thread before it is renamed over {@code snapshot}. */
  static Path tempFile(Path snapshot) {
    return snapshot.resolveSibling(snapshot.getFileName() + "." + Thread.currentThread().getId()
        + TEMP_SUFFIX);
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

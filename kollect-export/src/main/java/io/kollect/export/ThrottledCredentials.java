package io.kollect.export;

import java.time.Duration;

/**
 * A sink's credentials as its suppliers last returned them, asked again at most once per check
 * interval: a rotated Secret reaches the sink within the interval, and a busy sink does not ask
 * its suppliers (a Secret cache, a file) on every write. A failed read is not remembered, so the
 * next write asks again, at the exporter's retry pace. Values are compared with {@code equals},
 * which credential types implement over a {@link SecretFingerprint}.
 *
 * @param <T> the credentials' type
 */
public final class ThrottledCredentials<T> {

  /** Asks every supplier once. */
  @FunctionalInterface
  public interface Reader<T> {
    T read() throws SuppliedSecret.UnavailableException;
  }

  /** Told, under the read's lock, when a read returns credentials unequal to the previous ones. */
  @FunctionalInterface
  public interface ChangeListener<T> {
    void changed(T previous, T current);
  }

  private final Reader<T> reader;
  private final long intervalNanos;
  private final ChangeListener<T> onChange;
  private volatile T latest;
  private long readAt;

  public ThrottledCredentials(Reader<T> reader, Duration interval, ChangeListener<T> onChange) {
    this.reader = reader;
    this.intervalNanos = interval.toNanos();
    this.onChange = onChange;
  }

  /** The credentials, read again when the interval has passed since the last successful read. */
  public synchronized T get() throws SuppliedSecret.UnavailableException {
    long now = System.nanoTime();
    T last = latest;
    if (last != null && now - readAt < intervalNanos) {
      return last;
    }
    T read = reader.read();
    latest = read;
    readAt = now;
    if (last != null && !read.equals(last)) {
      onChange.changed(last, read);
    }
    return read;
  }

  /** The last credentials read, without asking the suppliers; {@code null} before the first. */
  public T latest() {
    return latest;
  }
}

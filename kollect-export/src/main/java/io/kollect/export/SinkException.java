package io.kollect.export;

import java.time.Duration;
import java.util.Optional;

/**
 * A batch a {@link Sink} did not deliver, and whether and when to try again. {@link
 * RecordsRejectedException} is the one subclass: it names the records that can never be delivered.
 */
public sealed class SinkException extends Exception permits RecordsRejectedException {

  private final boolean retryable;
  private final transient Duration retryAfter;

  public SinkException(String message, boolean retryable, Duration retryAfter, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
    this.retryAfter = retryAfter;
  }

  /** A failure worth retrying (timeouts, connection errors, 429, 5xx). */
  public static SinkException retryable(String message, Throwable cause) {
    return new SinkException(message, true, null, cause);
  }

  /** A failure that a retry cannot fix (a 4xx other than 408/429, a record the sink rejects). */
  public static SinkException permanent(String message, Throwable cause) {
    return new SinkException(message, false, null, cause);
  }

  public boolean retryable() {
    return retryable;
  }

  /** The earliest time to retry the sink asked for (HTTP {@code Retry-After}), if any. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}

package io.kollect.export;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Retry delays: exponential growth from {@code initial}, capped at {@code max}, with full jitter
 * above {@code initial} so many failing exporters do not retry in lock step. A sink's own hint
 * ({@code Retry-After}) wins when given, because the receiver knows when it will recover; it is
 * only clamped to {@link #MAX_RETRY_AFTER} so a bogus header cannot park a sink for days.
 */
final class Backoff {

  static final Duration MAX_RETRY_AFTER = Duration.ofHours(1);

  private final long initialNanos;
  private final long maxNanos;
  private final DoubleSupplier random;

  Backoff(Duration initial, Duration max) {
    this(initial, max, () -> ThreadLocalRandom.current().nextDouble());
  }

  Backoff(Duration initial, Duration max, DoubleSupplier random) {
    this.initialNanos = initial.toNanos();
    this.maxNanos = Math.max(initialNanos, max.toNanos());
    this.random = random;
  }

  /**
   * The delay before retry number {@code attempt} (1 for the first retry).
   *
   * @param retryAfter the sink's requested delay, if any
   */
  Duration delay(int attempt, Optional<Duration> retryAfter) {
    if (retryAfter.isPresent()) {
      Duration hint = retryAfter.get();
      if (hint.isNegative()) {
        hint = Duration.ZERO;
      }
      if (hint.compareTo(MAX_RETRY_AFTER) > 0) {
        hint = MAX_RETRY_AFTER;
      }
      return hint.toNanos() < initialNanos ? Duration.ofNanos(initialNanos) : hint;
    }
    long cap = cap(attempt);
    long jitter = (long) ((cap - initialNanos) * random.getAsDouble());
    return Duration.ofNanos(initialNanos + jitter);
  }

  /** The upper bound of the delay for {@code attempt}: {@code initial * 2^(attempt-1)} up to max. */
  long cap(int attempt) {
    int doublings = Math.max(0, Math.min(attempt - 1, 62));
    long cap = initialNanos;
    for (int i = 0; i < doublings && cap < maxNanos; i++) {
      cap = cap > maxNanos / 2 ? maxNanos : cap * 2;
    }
    return Math.min(cap, maxNanos);
  }
}

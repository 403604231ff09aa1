package io.kollect.core;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-key exponential backoff: the n-th consecutive failure of a key waits {@code base * 2^(n-1)},
 * capped at {@code max} (client-go's {@code ItemExponentialFailureRateLimiter}); {@link
 * #forget} after a success starts the key over.
 *
 * <p><b>Why not Failsafe or resilience4j.</b> Their backoff is a retry policy around one
 * execution: the delay sequence lives in the execution (Failsafe's {@code RetryPolicy}, run by
 * the library on the caller's thread or a scheduler), or is a pure function of an attempt number
 * the caller keeps (resilience4j's {@code IntervalFunction.ofExponentialBackoff}). A controller's
 * queue needs the opposite: a failure count per key that outlives each attempt, is read when the
 * key is re-added ({@link WorkQueue#addRateLimited}) and is dropped on success; none of them keeps
 * per-key state. With the per-key map being the whole of this class, the formula alone would not
 * justify a dependency.
 */
final class ExponentialBackoffRateLimiter<K> implements RateLimiter<K> {

  private final long baseNanos;
  private final long maxNanos;
  private final Map<K, Integer> failures = new HashMap<>();

  ExponentialBackoffRateLimiter(Duration base, Duration max) {
    if (base.isNegative() || base.isZero()) {
      throw new IllegalArgumentException("base delay must be positive: " + base);
    }
    if (max.compareTo(base) < 0) {
      throw new IllegalArgumentException("max delay " + max + " is shorter than base delay " + base);
    }
    this.baseNanos = base.toNanos();
    this.maxNanos = max.toNanos();
  }

  @Override
  public synchronized Duration when(K key) {
    int exp = failures.merge(key, 1, Integer::sum) - 1;
    // Shifting past 62 bits overflows; anything that large is capped anyway.
    if (exp >= 62 || baseNanos > (maxNanos >> Math.min(exp, 62))) {
      return Duration.ofNanos(maxNanos);
    }
    return Duration.ofNanos(Math.min(maxNanos, baseNanos << exp));
  }

  @Override
  public synchronized void forget(K key) {
    failures.remove(key);
  }

  @Override
  public synchronized int numRequeues(K key) {
    return failures.getOrDefault(key, 0);
  }
}

package io.kollect.core;

import java.time.Duration;

/**
 * Decides how long a key that failed waits before it is retried, mirroring client-go's {@code
 * workqueue.RateLimiter}: {@link #when} is asked once per retry and counts it, {@link #forget} is
 * called when the key succeeded.
 */
interface RateLimiter<K> {

  /** The delay before the key's next attempt; counts one more failure for the key. */
  Duration when(K key);

  /** Clears the key's failure history. */
  void forget(K key);

  /** How many times {@link #when} was asked for the key since it was last forgotten. */
  int numRequeues(K key);

  /**
   * The limiter a controller uses by default: the longer of a per-key exponential backoff and an
   * overall token bucket (client-go's {@code DefaultControllerRateLimiter}), so one failing key
   * backs off on its own while a burst of failing keys is also throttled as a whole.
   */
  static <K> RateLimiter<K> controllerDefault(
      Duration baseDelay, Duration maxDelay, double qps, int burst, Ticker ticker) {
    return new MaxOfRateLimiter<>(
        new ExponentialBackoffRateLimiter<>(baseDelay, maxDelay),
        new TokenBucketRateLimiter<>(qps, burst, ticker));
  }

  /** A monotonic nanosecond clock, replaceable in tests. */
  interface Ticker {
    long nanoTime();

    Ticker SYSTEM = System::nanoTime;
  }
}

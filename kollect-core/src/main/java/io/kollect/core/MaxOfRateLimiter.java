package io.kollect.core;

import java.time.Duration;
import java.util.List;

/**
 * The longest delay of several limiters; every limiter counts every retry (client-go's {@code
 * MaxOfRateLimiter}, which combines the per-key backoff with the overall bucket). No library
 * composes per-key limiters this way (see {@link TokenBucketRateLimiter} and {@link
 * ExponentialBackoffRateLimiter} for why those two stay hand-written), so neither can this.
 */
final class MaxOfRateLimiter<K> implements RateLimiter<K> {

  private final List<RateLimiter<K>> limiters;

  @SafeVarargs
  MaxOfRateLimiter(RateLimiter<K>... limiters) {
    this.limiters = List.of(limiters);
  }

  @Override
  public Duration when(K key) {
    Duration longest = Duration.ZERO;
    for (RateLimiter<K> limiter : limiters) {
      Duration d = limiter.when(key);
      if (d.compareTo(longest) > 0) {
        longest = d;
      }
    }
    return longest;
  }

  @Override
  public void forget(K key) {
    limiters.forEach(l -> l.forget(key));
  }

  @Override
  public int numRequeues(K key) {
    return limiters.stream().mapToInt(l -> l.numRequeues(key)).max().orElse(0);
  }
}

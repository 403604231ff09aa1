package io.kollect.core;

import java.time.Duration;

/**
 * An overall token bucket shared by all keys (client-go's {@code BucketRateLimiter}, i.e. Go's
 * {@code rate.Limiter.Reserve}): up to {@code burst} retries pass at once, beyond that they are
 * spaced {@code 1/qps} apart. A reservation is never cancelled, so the tokens may go negative and a
 * later caller waits for the ones reserved before it.
 *
 * <p><b>Why not Bucket4j.</b> Bucket4j's token bucket (refill greedy, custom {@code TimeMeter})
 * is the same arithmetic, but the work queue needs its reservation as a value: "take a token now,
 * even into debt, and tell me how long this key must wait", to park the key on the queue's delay
 * line. Bucket4j's non-blocking calls ({@code tryConsume}, {@code
 * tryConsumeAndReturnRemaining}) refuse instead of reserving, and it reserves only inside {@code
 * asBlocking()} (parks the calling thread) or {@code asScheduler()} (completes a future on an
 * executor): either would hold a worker or a thread per retry, where client-go's {@code
 * rate.Limiter.Reserve().Delay()} is one arithmetic step. These twenty lines are that step; a
 * dependency would not replace them.
 */
final class TokenBucketRateLimiter<K> implements RateLimiter<K> {

  private final double qps;
  private final double burst;
  private final Ticker ticker;
  private double tokens;
  private long lastNanos;

  TokenBucketRateLimiter(double qps, int burst, Ticker ticker) {
    if (!(qps > 0)) {
      throw new IllegalArgumentException("qps must be positive: " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1: " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.ticker = ticker;
    this.tokens = burst;
    this.lastNanos = ticker.nanoTime();
  }

  @Override
  public synchronized Duration when(K key) {
    long now = ticker.nanoTime();
    tokens = Math.min(burst, tokens + (now - lastNanos) / 1e9 * qps);
    lastNanos = now;
    tokens -= 1;
    if (tokens >= 0) {
      return Duration.ZERO;
    }
    return Duration.ofNanos((long) Math.ceil(-tokens / qps * 1e9));
  }

  @Override
  public void forget(K key) {}

  @Override
  public int numRequeues(K key) {
    return 0;
  }
}

package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final RateLimiter.Ticker ticker = now::get;

  @Test
  void exponentialBackoffDoublesPerFailureUpToTheCap() {
    var limiter = new ExponentialBackoffRateLimiter<String>(Duration.ofMillis(100), Duration.ofSeconds(1));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(100));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(200));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(400));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(800));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1));
    assertThat(limiter.numRequeues("a")).isEqualTo(6);
  }

  @Test
  void exponentialBackoffNeverOverflowsAfterManyFailures() {
    var limiter = new ExponentialBackoffRateLimiter<String>(Duration.ofMillis(100), Duration.ofMinutes(5));
    Duration last = Duration.ZERO;
    for (int i = 0; i < 200; i++) {
      last = limiter.when("a");
      assertThat(last).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(5));
    }
    assertThat(last).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void exponentialBackoffIsPerKeyAndForgetResetsIt() {
    var limiter = new ExponentialBackoffRateLimiter<String>(Duration.ofMillis(100), Duration.ofMinutes(5));
    limiter.when("a");
    limiter.when("a");
    assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(100));
    limiter.forget("a");
    assertThat(limiter.numRequeues("a")).isZero();
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void exponentialBackoffRejectsNonsenseDelays() {
    assertThatThrownBy(() -> new ExponentialBackoffRateLimiter<String>(Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessageContaining("base delay must be positive");
    assertThatThrownBy(() -> new ExponentialBackoffRateLimiter<String>(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("shorter than base delay");
  }

  @Test
  void tokenBucketLetsABurstThroughThenSpacesRetriesByRate() {
    var bucket = new TokenBucketRateLimiter<String>(10, 3, ticker);
    assertThat(bucket.when("a")).isZero();
    assertThat(bucket.when("b")).isZero();
    assertThat(bucket.when("c")).isZero();
    // Bucket empty: each further reservation waits one more 1/qps slot.
    assertThat(bucket.when("d")).isEqualTo(Duration.ofMillis(100));
    assertThat(bucket.when("e")).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void tokenBucketRefillsWithTimeButNotBeyondBurst() {
    var bucket = new TokenBucketRateLimiter<String>(10, 2, ticker);
    bucket.when("a");
    bucket.when("b");
    now.addAndGet(Duration.ofSeconds(60).toNanos());
    assertThat(bucket.when("c")).isZero();
    assertThat(bucket.when("d")).isZero();
    assertThat(bucket.when("e")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void controllerDefaultTakesTheLongerOfBackoffAndBucket() {
    RateLimiter<String> limiter =
        RateLimiter.controllerDefault(Duration.ofMillis(100), Duration.ofMinutes(5), 10, 1, ticker);
    // First failure: backoff 100 ms, bucket has its one token.
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(100));
    // Another key, bucket now empty: the bucket's 100 ms equals the backoff's 100 ms.
    assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(100));
    // Third reservation: the bucket asks 200 ms, longer than c's first backoff of 100 ms.
    assertThat(limiter.when("c")).isEqualTo(Duration.ofMillis(200));
    // After a long pause the bucket is full again and only the backoff counts.
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(200));
    limiter.forget("a");
    assertThat(limiter.numRequeues("a")).isZero();
  }
}

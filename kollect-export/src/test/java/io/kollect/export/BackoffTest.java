package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Scale;

class BackoffTest {

  @Property
  void delayStaysBetweenInitialAndTheDoublingCap(
      @ForAll @IntRange(min = 1, max = 100) int attempt,
      @ForAll @LongRange(min = 1, max = 10_000) long initialMs,
      @ForAll @LongRange(min = 0, max = 1_000_000) long extraMs,
      @ForAll @DoubleRange(min = 0, max = 0.999999) @Scale(6) double random) {
    Duration initial = Duration.ofMillis(initialMs);
    Duration max = initial.plusMillis(extraMs);
    Duration d = new Backoff(initial, max, () -> random).delay(attempt, Optional.empty());
    assertThat(d).isBetween(initial, max);
    double doublingCap = initialMs * Math.pow(2, attempt - 1);
    assertThat((double) d.toMillis()).isLessThanOrEqualTo(doublingCap);
  }

  @Property
  void capDoublesUntilMax(@ForAll @IntRange(min = 1, max = 30) int attempt) {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(30), () -> 0.5);
    long expected = Math.min(100L << (attempt - 1), 30_000L);
    assertThat(Duration.ofNanos(b.cap(attempt)).toMillis()).isEqualTo(expected);
  }

  @Property
  void retryAfterHintWinsWithinBounds(@ForAll @LongRange(min = 0, max = 10_000_000) long hintMs) {
    Backoff b = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.5);
    Duration d = b.delay(1, Optional.of(Duration.ofMillis(hintMs)));
    long expected = Math.min(Math.max(hintMs, 500), Backoff.MAX_RETRY_AFTER.toMillis());
    assertThat(d.toMillis()).isEqualTo(expected);
  }

  @Property
  void fullJitterUsesTheWholeRange(@ForAll @DoubleRange(min = 0, max = 0.999999) @Scale(6) double random) {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1_000), () -> random);
    long ms = b.delay(20, Optional.empty()).toMillis();
    assertThat(ms).isEqualTo(100 + (long) (900 * random));
  }
}

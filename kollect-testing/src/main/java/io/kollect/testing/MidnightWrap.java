package io.kollect.testing;

import java.time.Duration;
import java.time.LocalTime;
import java.util.Optional;

/**
 * kube-api-test 7.5.2 bounds each of its waits for readiness (etcd healthy, API server ready,
 * default namespace there) by the local time of day: it takes {@code LocalTime.now()} when the wait
 * begins and gives up once {@code LocalTime.now()} is after that plus the bound. A wait that begins
 * less than the bound before midnight therefore ends where it should keep polling: its end wraps
 * into the small hours, every time before midnight is "after" it, and the first poll that finds the
 * process not yet ready throws "did not start properly". Every start in the last minutes of the
 * day failed at once that way. What is left to do then is to let midnight pass and start again:
 * from then on a wait's end does not wrap until the next day's window.
 */
final class MidnightWrap {

  /**
   * A margin past midnight, so that the new start's clock reads the new day even if the sleep
   * ends a little early on a coarse clock.
   */
  static final Duration PAST_MIDNIGHT = Duration.ofMillis(200);

  private MidnightWrap() {}

  /**
   * Whether a start that began at local time {@code began} and failed {@code elapsed} later was
   * cut short by the wrap, and if so how long to wait before starting again (zero once midnight
   * has passed); empty when the failure was not the wrap. A wait that really ran out took the whole
   * {@code bound}, so a failure sooner than that, from a start whose waits could end past midnight,
   * is the wrap.
   */
  static Optional<Duration> retryAfter(LocalTime began, Duration elapsed, Duration bound) {
    if (elapsed.compareTo(bound) >= 0 || !endWraps(began, elapsed.plus(bound))) {
      return Optional.empty();
    }
    if (endWraps(began, elapsed)) {
      return Optional.of(Duration.ZERO);
    }
    LocalTime now = began.plus(elapsed);
    return Optional.of(Duration.ofNanos(LocalTime.MAX.toNanoOfDay() - now.toNanoOfDay() + 1)
        .plus(PAST_MIDNIGHT));
  }

  /** Whether {@code start} plus {@code span} is on the next day. */
  static boolean endWraps(LocalTime start, Duration span) {
    return start.plus(span).isBefore(start);
  }
}

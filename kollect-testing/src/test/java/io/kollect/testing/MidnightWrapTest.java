package io.kollect.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

class MidnightWrapTest {

  private static final Duration BOUND = Duration.ofMinutes(3);

  @Test
  void aFailureSoonerThanTheBoundJustBeforeMidnightWaitsUntilJustPastMidnight() {
    // failed at 23:58:01
    assertThat(MidnightWrap.retryAfter(LocalTime.of(23, 58), Duration.ofSeconds(1), BOUND))
        .contains(Duration.ofSeconds(119).plus(MidnightWrap.PAST_MIDNIGHT));
  }

  @Test
  void aStartThatBeganBeforeMidnightAndFailedAfterItStartsAgainAtOnce() {
    assertThat(MidnightWrap.retryAfter(LocalTime.of(23, 59, 58), Duration.ofSeconds(5), BOUND))
        .contains(Duration.ZERO);
  }

  @Test
  void aStartWhoseLaterWaitCouldWrapCountsEvenIfItBeganOutsideTheWindow() {
    // began 3m10s before midnight; a wait begun 20 s later would end past midnight
    assertThat(MidnightWrap.retryAfter(LocalTime.of(23, 56, 50), Duration.ofSeconds(20), BOUND))
        .contains(Duration.ofSeconds(170).plus(MidnightWrap.PAST_MIDNIGHT));
  }

  @Test
  void aFailureAtMiddayIsTheStartsOwn() {
    assertThat(MidnightWrap.retryAfter(LocalTime.NOON, Duration.ofSeconds(1), BOUND)).isEmpty();
  }

  @Test
  void aWaitThatRanItsWholeBoundIsARealTimeoutEvenAcrossMidnight() {
    assertThat(MidnightWrap.retryAfter(LocalTime.of(23, 58), BOUND, BOUND)).isEmpty();
  }
}

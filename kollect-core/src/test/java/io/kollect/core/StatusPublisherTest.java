package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.export.DeliveryStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which status changes reach listeners (the operator writes each one it hears): a change of the
 * target at once, a change of delivery figures alone only once per figure interval, a change of
 * {@code lastExport} once per its own interval.
 */
class StatusPublisherTest {

  private static final TargetId ID = new TargetId("tenant", "t");
  private static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");
  private static final Duration HOUR = Duration.ofHours(1);

  private final WorkQueue<TargetId> queue = new WorkQueue<>(RateLimiter.controllerDefault(
      Duration.ofMillis(1), Duration.ofSeconds(1), 100, 100, RateLimiter.Ticker.SYSTEM),
      RateLimiter.Ticker.SYSTEM);
  private final TargetRuntime rt = new TargetRuntime(TargetRuntime.Definition.of(new TargetSpec(
      ID, 1, "p", TargetScope.everything(), List.of(), false)));
  private final List<TargetStatus> heard = new ArrayList<>();

  private StatusPublisher publisher(Duration lastExportInterval, Duration figureInterval) {
    StatusPublisher p = new StatusPublisher(queue, lastExportInterval, figureInterval, () -> true);
    p.addListener(heard::add);
    return p;
  }

  private static TargetStatus status(int objects, Instant lastExport, Instant acknowledged,
      int pending) {
    return new TargetStatus(ID, 1, List.of(), Map.of("v1/ConfigMap", objects), List.of(),
        lastExport, 0, List.of(), Map.of("s", new DeliveryStatus(acknowledged, pending, 0, null,
            null, List.of())));
  }

  @Test
  void deliveryFiguresAloneAreHeldBackForTheFigureIntervalAndTheTargetIsQueuedForThen() {
    StatusPublisher p = publisher(Duration.ZERO, HOUR);
    p.publish(rt, status(3, T0, null, 3));
    p.publish(rt, status(3, T0, T0.plusSeconds(1), 0));
    p.publish(rt, status(3, T0, T0.plusSeconds(60), 0));
    assertThat(heard).hasSize(1);
    assertThat(rt.status.deliveries().get("s").lastAcknowledged())
        .as("the engine's own view has the latest figures").isEqualTo(T0.plusSeconds(60));
    assertThat(queue.length()).as("parked for when the interval is over, not queued now").isZero();
  }

  @Test
  void aChangeOfTheTargetIsHeardAtOnceWithTheFiguresOfTheMoment() {
    StatusPublisher p = publisher(HOUR, HOUR);
    p.publish(rt, status(3, T0, null, 3));
    p.publish(rt, status(3, T0, T0.plusSeconds(1), 0));
    p.publish(rt, status(4, T0, T0.plusSeconds(2), 1));
    assertThat(heard).extracting(s -> s.objectCounts().get("v1/ConfigMap")).containsExactly(3, 4);
    assertThat(heard.get(1).deliveries().get("s").pending()).isEqualTo(1);
  }

  @Test
  void anExportMovesLastExportUnderItsOwnShorterInterval() {
    StatusPublisher p = publisher(Duration.ZERO, HOUR);
    p.publish(rt, status(3, T0, null, 3));
    p.publish(rt, status(3, T0, T0.plusSeconds(1), 0));
    p.publish(rt, status(3, T0.plusSeconds(5), T0.plusSeconds(6), 0));
    assertThat(heard).extracting(TargetStatus::lastExport).containsExactly(T0, T0.plusSeconds(5));
  }

  @Test
  void withAZeroFigureIntervalEveryFigureIsHeard() {
    StatusPublisher p = publisher(HOUR, Duration.ZERO);
    p.publish(rt, status(3, T0, null, 3));
    p.publish(rt, status(3, T0, T0.plusSeconds(1), 0));
    assertThat(heard).hasSize(2);
  }

  @Test
  void targetsThatStartedTogetherReportTheirFiguresSpreadOverHalfAnIntervalNotInOneBurst() {
    Duration minutes = Duration.ofMinutes(5);
    StatusPublisher p = publisher(Duration.ZERO, minutes);
    int[] tenths = new int[10];
    for (int i = 0; i < 1000; i++) {
      long holdBack = p.figureHoldBackNanos(new TargetId("bench-" + (i % 10), "t-" + i));
      assertThat(holdBack).isGreaterThanOrEqualTo(minutes.toNanos())
          .isLessThan(minutes.toNanos() * 3 / 2);
      tenths[(int) ((holdBack - minutes.toNanos()) * 10 / (minutes.toNanos() / 2))]++;
    }
    // 100 a tenth if even; a burst would put them all in one
    assertThat(java.util.Arrays.stream(tenths).boxed().toList())
        .allSatisfy(n -> assertThat(n).isBetween(50, 150));
    assertThat(p.figureHoldBackNanos(ID)).as("the same target, the same share")
        .isEqualTo(p.figureHoldBackNanos(new TargetId("tenant", "t")));
  }
}

package io.kollect.export;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Issues record sequences: a hybrid clock whose next value is the larger of (the last value issued
 * or loaded from a checkpoint, plus one) and the wall clock in microseconds since the epoch.
 *
 * <p>Why a hybrid clock and not a counter: a counter restarted from the last <em>persisted</em>
 * value would reuse numbers issued after that checkpoint write and before a {@code kill -9}, and a
 * receiver would then refuse the new states as old. The wall-clock part moves past every number
 * issued before the restart (at most one per microsecond is issued on average, so the clock part
 * never lags the issued values for long), and the persisted part keeps values increasing for a key
 * even when a new leader's clock is behind the old one's. Numbers are unique within one exporter
 * and increase per key across restarts and leader changes; they are not comparable across keys.
 */
final class SequenceClock {

  private final Clock clock;
  private long last;

  SequenceClock(Clock clock) {
    this.clock = clock;
  }

  /** The next sequence: larger than every value issued or observed before. */
  synchronized long next() {
    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, clock.instant());
    last = Math.max(last + 1, micros);
    return last;
  }

  /** Makes every later {@link #next()} larger than {@code persisted} (a value from a checkpoint). */
  synchronized void observe(long persisted) {
    last = Math.max(last, persisted);
  }
}

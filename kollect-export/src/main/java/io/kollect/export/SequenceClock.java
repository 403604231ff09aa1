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
 * issued before the restart: issuing runs ahead of the wall clock only during a burst of more than
 * one number per microsecond (a large checkpoint loaded at once, say), and then by at most the
 * burst's size in microseconds, far less than a restart takes. The persisted part keeps values
 * increasing for a key even when a new leader's clock is behind the old one's. Numbers are issued
 * once within one exporter (one state handed to several sinks at once shares its number) and
 * increase per key across restarts and leader changes; across keys they only roughly follow time.
 *
 * <p>Microseconds since the epoch stay below 2^53 until the year 2255, so receivers that read JSON
 * numbers as doubles read sequences exactly.
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

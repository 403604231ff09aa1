package io.kollect.bench;

import java.time.Instant;

/**
 * Converts a wall-clock instant of a process on this machine (a record's {@code observedAt}) to
 * the runner's {@link System#nanoTime()}, so it can be placed between two sightings the runner
 * timed itself. The offset is taken once; the wall clock's drift against the monotonic clock over
 * a benchmark's minutes is far below the milliseconds compared.
 */
final class RunnerClock {

  private static final long EPOCH_NANOS_MINUS_NANO_TIME = epochNanos(Instant.now()) - System.nanoTime();

  private RunnerClock() {}

  static long nanoTimeOf(Instant instant) {
    return epochNanos(instant) - EPOCH_NANOS_MINUS_NANO_TIME;
  }

  private static long epochNanos(Instant i) {
    return i.getEpochSecond() * 1_000_000_000L + i.getNano();
  }
}

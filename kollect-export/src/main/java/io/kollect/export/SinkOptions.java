package io.kollect.export;

import java.time.Duration;

/**
 * How the exporter delivers to one sink.
 *
 * @param maxBatchSize records per {@link Sink#write} call at most
 * @param linger how long to wait for more records before sending a partial batch
 * @param heartbeatInterval how often the full current set is re-sent ({@link Duration#ZERO} turns
 *     heartbeats off)
 * @param initialBackoff first retry delay; doubles (with jitter) up to {@code maxBackoff}
 * @param maxBackoff longest retry delay
 */
public record SinkOptions(
    int maxBatchSize,
    Duration linger,
    Duration heartbeatInterval,
    Duration initialBackoff,
    Duration maxBackoff) {

  /** Rejects settings the exporter cannot honour, naming the field. */
  public SinkOptions {
    if (maxBatchSize < 1) {
      throw new IllegalArgumentException("maxBatchSize: must be at least 1, got " + maxBatchSize);
    }
    requireNonNegative("linger", linger);
    requireNonNegative("heartbeatInterval", heartbeatInterval);
    requireNonNegative("initialBackoff", initialBackoff);
    requireNonNegative("maxBackoff", maxBackoff);
    if (initialBackoff.isZero()) {
      throw new IllegalArgumentException("initialBackoff: must be positive, got " + initialBackoff);
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff: must be at least initialBackoff ("
          + initialBackoff + "), got " + maxBackoff);
    }
  }

  private static void requireNonNegative(String field, Duration value) {
    if (value == null) {
      throw new IllegalArgumentException(field + ": must be set");
    }
    if (value.isNegative()) {
      throw new IllegalArgumentException(field + ": must not be negative, got " + value);
    }
  }

  /** 500 records, 1 s linger, 10 min heartbeat, backoff 500 ms to 2 min. */
  public static SinkOptions defaults() {
    return new SinkOptions(
        500, Duration.ofSeconds(1), Duration.ofMinutes(10), Duration.ofMillis(500),
        Duration.ofMinutes(2));
  }

  public SinkOptions withMaxBatchSize(int n) {
    return new SinkOptions(n, linger, heartbeatInterval, initialBackoff, maxBackoff);
  }

  public SinkOptions withLinger(Duration d) {
    return new SinkOptions(maxBatchSize, d, heartbeatInterval, initialBackoff, maxBackoff);
  }

  public SinkOptions withHeartbeatInterval(Duration d) {
    return new SinkOptions(maxBatchSize, linger, d, initialBackoff, maxBackoff);
  }

  public SinkOptions withBackoff(Duration initial, Duration max) {
    return new SinkOptions(maxBatchSize, linger, heartbeatInterval, initial, max);
  }
}

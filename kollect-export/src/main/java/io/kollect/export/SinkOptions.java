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
 * @param concurrency writes in progress at once, each for a different target, for a sink whose
 *     {@link Sink#concurrentWrites()} is true (other sinks are written by one thread)
 */
public record SinkOptions(
    int maxBatchSize,
    Duration linger,
    Duration heartbeatInterval,
    Duration initialBackoff,
    Duration maxBackoff,
    int concurrency) {

  /** Default {@link #concurrency()}. */
  public static final int DEFAULT_CONCURRENCY = 4;

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
    if (concurrency < 1 || concurrency > 64) {
      throw new IllegalArgumentException("concurrency: must be between 1 and 64, got "
          + concurrency);
    }
  }

  /** Options with the default {@link #concurrency()} (kept for callers written before it existed). */
  public SinkOptions(
      int maxBatchSize,
      Duration linger,
      Duration heartbeatInterval,
      Duration initialBackoff,
      Duration maxBackoff) {
    this(maxBatchSize, linger, heartbeatInterval, initialBackoff, maxBackoff, DEFAULT_CONCURRENCY);
  }

  private static void requireNonNegative(String field, Duration value) {
    if (value == null) {
      throw new IllegalArgumentException(field + ": must be set");
    }
    if (value.isNegative()) {
      throw new IllegalArgumentException(field + ": must not be negative, got " + value);
    }
  }

  /** 500 records, 1 s linger, 10 min heartbeat, backoff 500 ms to 2 min, concurrency 4. */
  public static SinkOptions defaults() {
    return new SinkOptions(
        500, Duration.ofSeconds(1), Duration.ofMinutes(10), Duration.ofMillis(500),
        Duration.ofMinutes(2), DEFAULT_CONCURRENCY);
  }

  public SinkOptions withMaxBatchSize(int n) {
    return new SinkOptions(n, linger, heartbeatInterval, initialBackoff, maxBackoff, concurrency);
  }

  public SinkOptions withLinger(Duration d) {
    return new SinkOptions(maxBatchSize, d, heartbeatInterval, initialBackoff, maxBackoff,
        concurrency);
  }

  public SinkOptions withHeartbeatInterval(Duration d) {
    return new SinkOptions(maxBatchSize, linger, d, initialBackoff, maxBackoff, concurrency);
  }

  public SinkOptions withBackoff(Duration initial, Duration max) {
    return new SinkOptions(maxBatchSize, linger, heartbeatInterval, initial, max, concurrency);
  }

  /** These options with {@code n} concurrent writes for a sink that allows them. */
  public SinkOptions withConcurrency(int n) {
    return new SinkOptions(maxBatchSize, linger, heartbeatInterval, initialBackoff, maxBackoff, n);
  }
}

package io.kollect.operator;

import java.time.Duration;

/**
 * How fast targets are reconciled and their statuses written ({@code --workers}, {@code
 * --status-write-interval}).
 *
 * @param workers reconcile worker threads
 * @param statusWriteInterval a target's status is written at most once per this interval (changes
 *     in between are coalesced into the next write)
 */
public record ReconcileSettings(int workers, Duration statusWriteInterval) {

  /** Status writes per target at most every 10 s. */
  public static final Duration DEFAULT_STATUS_WRITE_INTERVAL = Duration.ofSeconds(10);

  public ReconcileSettings {
    if (workers < 1) {
      throw new IllegalArgumentException("--workers must be at least 1");
    }
    SettingRules.positive(statusWriteInterval, "--status-write-interval");
  }

  /** One worker, statuses at most every 10 s. */
  public static ReconcileSettings defaults() {
    return new ReconcileSettings(1, DEFAULT_STATUS_WRITE_INTERVAL);
  }
}

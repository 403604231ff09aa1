package io.kollect.operator;

import io.kollect.core.KollectEngineBuilder;
import io.kollect.core.lifecycle.ExperimentTransitions;
import io.kollect.core.lifecycle.ProfileExperiments;
import java.time.Duration;
import java.util.Objects;

/**
 * How fast targets are reconciled and their statuses written ({@code --workers}, {@code
 * --status-write-interval}).
 *
 * @param workers reconcile worker threads
 * @param statusWriteInterval a target's status is written at most once per this interval (changes
 *     in between are coalesced into the next write)
 * @param timings the intervals no flag sets ({@link Timings#shipped()} unless a test shortens them)
 */
public record ReconcileSettings(int workers, Duration statusWriteInterval, Timings timings) {

  /** Status writes per target at most every 10 s. */
  public static final Duration DEFAULT_STATUS_WRITE_INTERVAL = Duration.ofSeconds(10);

  public ReconcileSettings {
    if (workers < 1) {
      throw new IllegalArgumentException("--workers must be at least 1");
    }
    SettingRules.positive(statusWriteInterval, "--status-write-interval");
    Objects.requireNonNull(timings, "timings");
  }

  /** These settings with the shipped {@link Timings}. */
  public ReconcileSettings(int workers, Duration statusWriteInterval) {
    this(workers, statusWriteInterval, Timings.shipped());
  }

  /** One worker, statuses at most every 10 s. */
  public static ReconcileSettings defaults() {
    return new ReconcileSettings(1, DEFAULT_STATUS_WRITE_INTERVAL);
  }

  /**
   * Intervals of the status and experiment pipeline that are not worth a flag: the operator always
   * runs with {@link #shipped()}; integration tests shorten them to see in seconds what takes
   * minutes when shipped.
   *
   * @param lastExportNotifyInterval a change of a target's {@code lastExport} alone is written to
   *     its status at most once per this interval (shipped: 30 s, {@link
   *     KollectEngineBuilder#lastExportNotifyInterval})
   * @param experimentDiffInterval how often a running shadow experiment's diff is stored in its
   *     profile's status (shipped: {@link ProfileExperiments#DEFAULT_DIFF_INTERVAL})
   * @param experimentRetention how long an experiment's terminal phase stays in its profile's
   *     status before it is cleared (shipped: {@link ExperimentTransitions#TERMINAL_RETENTION})
   */
  public record Timings(Duration lastExportNotifyInterval, Duration experimentDiffInterval,
      Duration experimentRetention) {

    public Timings {
      SettingRules.positive(lastExportNotifyInterval, "lastExportNotifyInterval");
      SettingRules.positive(experimentDiffInterval, "experimentDiffInterval");
      SettingRules.positive(experimentRetention, "experimentRetention");
    }

    /** The intervals the operator runs with. */
    public static Timings shipped() {
      return new Timings(KollectEngineBuilder.DEFAULT_LAST_EXPORT_NOTIFY_INTERVAL,
          ProfileExperiments.DEFAULT_DIFF_INTERVAL, ExperimentTransitions.TERMINAL_RETENTION);
    }

    public Timings withLastExportNotifyInterval(Duration d) {
      return new Timings(d, experimentDiffInterval, experimentRetention);
    }

    public Timings withExperimentDiffInterval(Duration d) {
      return new Timings(lastExportNotifyInterval, d, experimentRetention);
    }

    public Timings withExperimentRetention(Duration d) {
      return new Timings(lastExportNotifyInterval, experimentDiffInterval, d);
    }
  }
}

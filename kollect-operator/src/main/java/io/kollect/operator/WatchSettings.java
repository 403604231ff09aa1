package io.kollect.operator;

import io.kollect.informers.InformerOptions;
import java.time.Duration;

/**
 * How the informers watch: the {@code kollect run} flags {@code --resync-period}, {@code
 * --watch-liveness}, {@code --list-page-size} and {@code --informer-cluster-wide-threshold}.
 *
 * @param resyncPeriod informer resync period (a correctness backstop, not a freshness knob);
 *     zero turns it off
 * @param watchLiveness the liveness bound of every watch and request
 * @param listPageSize objects per page of an informer's list: a list is never held whole in memory
 * @param clusterWideThreshold past this many namespaces (the union over the targets reading a
 *     type), one cluster-wide informer serves the type instead of one per namespace, when the
 *     operator may list it cluster-wide
 */
public record WatchSettings(Duration resyncPeriod, Duration watchLiveness, int listPageSize,
    int clusterWideThreshold) {

  /** Resync every 10 hours, as controller-runtime's default. */
  public static final Duration DEFAULT_RESYNC_PERIOD = Duration.ofHours(10);
  /** A dead watch is noticed within 60 s. */
  public static final Duration DEFAULT_WATCH_LIVENESS = Duration.ofSeconds(60);
  /** Informers list in pages of 500 objects (as client-go's pager). */
  public static final int DEFAULT_LIST_PAGE_SIZE = 500;

  public WatchSettings {
    if (resyncPeriod == null || resyncPeriod.isNegative()) {
      throw new IllegalArgumentException("--resync-period: must be zero (off) or positive, got "
          + resyncPeriod);
    }
    SettingRules.positive(watchLiveness, "--watch-liveness");
    if (listPageSize < 1) {
      throw new IllegalArgumentException("--list-page-size must be at least 1, got " + listPageSize);
    }
    if (clusterWideThreshold < 0) {
      throw new IllegalArgumentException("--informer-cluster-wide-threshold must be zero or "
          + "positive, got " + clusterWideThreshold);
    }
  }

  /** The defaults of the flags. */
  public static WatchSettings defaults() {
    return new WatchSettings(DEFAULT_RESYNC_PERIOD, DEFAULT_WATCH_LIVENESS, DEFAULT_LIST_PAGE_SIZE,
        InformerOptions.DEFAULT_CLUSTER_WIDE_THRESHOLD);
  }
}

package io.kollect.informers;

import java.time.Duration;

/**
 * Registry settings.
 *
 * @param cluster cluster name reported with events and metrics
 * @param resyncPeriod informer resync period; a correctness backstop only ({@link Duration#ZERO}
 *     turns it off)
 * @param releaseGrace how long an informer no lease needs keeps running before it stops
 * @param forbiddenRetry how long to wait before re-checking access that was forbidden
 * @param discoveryInterval how often to look for types that are not served yet
 * @param metrics where to report counts
 * @param watchLiveness the liveness window of every watch: the API server is asked to end each
 *     watch request after it, the client gives up on a watch that stays silent a little longer
 *     (a dead connection is replaced within about one window), and a watch silent past that is
 *     reported as stalled; whole seconds, at least one
 * @param listPageSize how many objects each page of an informer's list holds
 * @param clusterWideThreshold the largest number of namespaces (the union over a type's leases)
 *     still served by one informer per namespace; more, or any lease reading all namespaces, and
 *     the type gets one cluster-wide informer, if cluster-wide list and watch are allowed. Zero
 *     or more
 * @param ownership which objects this process owns when sharded ({@link ObjectOwnership#ALL}:
 *     every object); the others never reach the informers' caches
 */
public record InformerOptions(
    String cluster,
    Duration resyncPeriod,
    Duration releaseGrace,
    Duration forbiddenRetry,
    Duration discoveryInterval,
    InformerMetrics metrics,
    Duration watchLiveness,
    int listPageSize,
    int clusterWideThreshold,
    ObjectOwnership ownership) {

  /** The default {@link #watchLiveness()}. */
  public static final Duration DEFAULT_WATCH_LIVENESS = Duration.ofSeconds(60);
  /** The default {@link #listPageSize()}. */
  public static final int DEFAULT_LIST_PAGE_SIZE = 500;
  /** The default {@link #clusterWideThreshold()}. */
  public static final int DEFAULT_CLUSTER_WIDE_THRESHOLD = 8;

  public InformerOptions {
    ownership = ownership == null ? ObjectOwnership.ALL : ownership;
  }

  /** Settings that own every object (no sharding). */
  public InformerOptions(String cluster, Duration resyncPeriod, Duration releaseGrace,
      Duration forbiddenRetry, Duration discoveryInterval, InformerMetrics metrics,
      Duration watchLiveness, int listPageSize, int clusterWideThreshold) {
    this(cluster, resyncPeriod, releaseGrace, forbiddenRetry, discoveryInterval, metrics,
        watchLiveness, listPageSize, clusterWideThreshold, ObjectOwnership.ALL);
  }

  /**
   * Settings with the default cluster-wide threshold (8).
   */
  public InformerOptions(String cluster, Duration resyncPeriod, Duration releaseGrace,
      Duration forbiddenRetry, Duration discoveryInterval, InformerMetrics metrics,
      Duration watchLiveness, int listPageSize) {
    this(cluster, resyncPeriod, releaseGrace, forbiddenRetry, discoveryInterval, metrics,
        watchLiveness, listPageSize, DEFAULT_CLUSTER_WIDE_THRESHOLD);
  }

  /** Settings with the default watch liveness (60 s) and list page size (500). */
  public InformerOptions(String cluster, Duration resyncPeriod, Duration releaseGrace,
      Duration forbiddenRetry, Duration discoveryInterval, InformerMetrics metrics) {
    this(cluster, resyncPeriod, releaseGrace, forbiddenRetry, discoveryInterval, metrics,
        DEFAULT_WATCH_LIVENESS, DEFAULT_LIST_PAGE_SIZE, DEFAULT_CLUSTER_WIDE_THRESHOLD);
  }

  /**
   * Cluster "default", 10 h resync, 30 s grace, 5 min forbidden retry, 10 s discovery, 60 s watch
   * liveness, lists in pages of 500, cluster-wide informers beyond 8 namespaces.
   */
  public static InformerOptions defaults() {
    return new InformerOptions("default", Duration.ofHours(10), Duration.ofSeconds(30),
        Duration.ofMinutes(5), Duration.ofSeconds(10), InformerMetrics.noop());
  }

  public InformerOptions withCluster(String c) {
    return new InformerOptions(c, resyncPeriod, releaseGrace, forbiddenRetry, discoveryInterval,
        metrics, watchLiveness, listPageSize, clusterWideThreshold, ownership);
  }

  public InformerOptions withResyncPeriod(Duration d) {
    return new InformerOptions(cluster, d, releaseGrace, forbiddenRetry, discoveryInterval,
        metrics, watchLiveness, listPageSize, clusterWideThreshold, ownership);
  }

  public InformerOptions withReleaseGrace(Duration d) {
    return new InformerOptions(cluster, resyncPeriod, d, forbiddenRetry, discoveryInterval,
        metrics, watchLiveness, listPageSize, clusterWideThreshold, ownership);
  }

  public InformerOptions withForbiddenRetry(Duration d) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, d, discoveryInterval,
        metrics, watchLiveness, listPageSize, clusterWideThreshold, ownership);
  }

  public InformerOptions withDiscoveryInterval(Duration d) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry, d,
        metrics, watchLiveness, listPageSize, clusterWideThreshold, ownership);
  }

  public InformerOptions withMetrics(InformerMetrics m) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry,
        discoveryInterval, m, watchLiveness, listPageSize, clusterWideThreshold, ownership);
  }

  /** The liveness window of every watch (default 60 s); see {@link #watchLiveness()}. */
  public InformerOptions withWatchLiveness(Duration d) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry,
        discoveryInterval, metrics, d, listPageSize, clusterWideThreshold, ownership);
  }

  /** Objects per page of an informer's list (default 500). */
  public InformerOptions withListPageSize(int n) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry,
        discoveryInterval, metrics, watchLiveness, n, clusterWideThreshold, ownership);
  }

  /**
   * The largest union of leased namespaces still served by per-namespace informers (default 8);
   * see {@link #clusterWideThreshold()}.
   */
  public InformerOptions withClusterWideThreshold(int n) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry,
        discoveryInterval, metrics, watchLiveness, listPageSize, n, ownership);
  }

  /**
   * Which objects this process owns (default: all); see {@link ObjectOwnership}. The cluster
   * passed to it is {@link #cluster()}, so set the cluster name first or keep it consistent.
   */
  public InformerOptions withOwnership(ObjectOwnership o) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry,
        discoveryInterval, metrics, watchLiveness, listPageSize, clusterWideThreshold, o);
  }
}

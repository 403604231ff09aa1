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
 */
public record InformerOptions(
    String cluster,
    Duration resyncPeriod,
    Duration releaseGrace,
    Duration forbiddenRetry,
    Duration discoveryInterval,
    InformerMetrics metrics) {

  /** Cluster "default", 10 h resync, 30 s grace, 5 min forbidden retry, 10 s discovery. */
  public static InformerOptions defaults() {
    return new InformerOptions("default", Duration.ofHours(10), Duration.ofSeconds(30),
        Duration.ofMinutes(5), Duration.ofSeconds(10), InformerMetrics.noop());
  }

  public InformerOptions withCluster(String c) {
    return new InformerOptions(c, resyncPeriod, releaseGrace, forbiddenRetry, discoveryInterval, metrics);
  }

  public InformerOptions withResyncPeriod(Duration d) {
    return new InformerOptions(cluster, d, releaseGrace, forbiddenRetry, discoveryInterval, metrics);
  }

  public InformerOptions withReleaseGrace(Duration d) {
    return new InformerOptions(cluster, resyncPeriod, d, forbiddenRetry, discoveryInterval, metrics);
  }

  public InformerOptions withForbiddenRetry(Duration d) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, d, discoveryInterval, metrics);
  }

  public InformerOptions withDiscoveryInterval(Duration d) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry, d, metrics);
  }

  public InformerOptions withMetrics(InformerMetrics m) {
    return new InformerOptions(cluster, resyncPeriod, releaseGrace, forbiddenRetry, discoveryInterval, m);
  }
}

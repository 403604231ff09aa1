package io.kollect.informers;

import java.time.Instant;
import java.util.List;

/**
 * What a lease can currently see.
 *
 * @param type the leased type
 * @param served whether the API server serves the type now
 * @param synced whether every informer behind the lease has completed its initial list under a
 *     projection that keeps every path of the lease's {@link LeaseRequest#keepPaths()}
 * @param skipped namespaces (or {@code "*"} for cluster-wide) that cannot be read, with the reason
 * @param projectionVersion identifies the shape of the type's cached objects: it changes whenever
 *     that shape (the projection) changes, so extractions memoised under another value are stale
 *     even for an unchanged resourceVersion; {@code 0} before anything is cached
 * @param stalled watches behind the lease that have been silent past the liveness window
 */
public record LeaseStatus(ResourceType type, boolean served, boolean synced, List<Skipped> skipped,
    long projectionVersion, List<Stalled> stalled) {

  public LeaseStatus {
    skipped = List.copyOf(skipped);
    stalled = stalled == null ? List.of() : List.copyOf(stalled);
  }

  /** A status with projection version 0 and nothing stalled. */
  public LeaseStatus(ResourceType type, boolean served, boolean synced, List<Skipped> skipped) {
    this(type, served, synced, skipped, 0, List.of());
  }

  /**
   * A part of the lease's scope that is not being read.
   *
   * @param namespace the namespace, or {@code "*"} for the cluster-wide scope
   * @param reason {@code forbidden} or {@code notServed}
   * @param message a human-readable detail
   */
  public record Skipped(String namespace, String reason, String message) {
    public static final String FORBIDDEN = "forbidden";
    public static final String NOT_SERVED = "notServed";
  }

  /**
   * A watch behind the lease that is dead or silent past the liveness window; it is being
   * replaced, and the entry disappears once it delivers again.
   *
   * @param namespace the watched namespace, or {@code "*"} for the cluster-wide watch
   * @param silentSince when the watch last showed it was alive (a response or an event)
   * @param reason why it is not delivering, e.g. {@code liveness: no data for 75 s} or
   *     {@code error: connection refused}
   */
  public record Stalled(String namespace, Instant silentSince, String reason) {}
}

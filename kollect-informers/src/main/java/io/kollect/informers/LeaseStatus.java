package io.kollect.informers;

import java.util.List;

/**
 * What a lease can currently see.
 *
 * @param type the leased type
 * @param served whether the API server serves the type now
 * @param synced whether every informer behind the lease has completed its initial list
 * @param skipped namespaces (or {@code "*"} for cluster-wide) that cannot be read, with the reason
 */
public record LeaseStatus(ResourceType type, boolean served, boolean synced, List<Skipped> skipped) {

  public LeaseStatus {
    skipped = List.copyOf(skipped);
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
}

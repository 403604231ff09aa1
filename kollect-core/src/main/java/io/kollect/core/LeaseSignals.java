package io.kollect.core;

import io.kollect.informers.LeaseStatus;
import java.time.Instant;
import java.util.List;

/**
 * What a lease's status says beyond sync and skipped scopes: which projection its informer cache
 * holds, and which of its watches are silent. The reconciler reads it through this interface so
 * that tests can drive both signals without an API server.
 */
interface LeaseSignals {

  /**
   * A watch that has been silent past the liveness window.
   *
   * @param namespace its namespace, or {@code "*"} for a cluster-wide watch
   * @param silentSince when it last heard from the API server
   * @param reason why it counts as stalled
   */
  record SilentWatch(String namespace, Instant silentSince, String reason) {}

  /**
   * The version of the projection the lease's informer cache actually holds; any change
   * re-extracts the objects of the type (memoised extractions are stamped with it).
   */
  long cachedProjectionVersion(LeaseStatus status);

  /**
   * The watches behind the lease that are silent past the liveness window; each degrades the
   * target with reason {@code WatchStalled}.
   */
  List<SilentWatch> stalledWatches(LeaseStatus status);

  /** The signals as {@link LeaseStatus} carries them. */
  LeaseSignals FROM_LEASE_STATUS = new LeaseSignals() {
    @Override
    public long cachedProjectionVersion(LeaseStatus status) {
      return status.projectionVersion();
    }

    @Override
    public List<SilentWatch> stalledWatches(LeaseStatus status) {
      return status.stalled().stream()
          .map(s -> new SilentWatch(s.namespace(), s.silentSince(), s.reason())).toList();
    }
  };
}

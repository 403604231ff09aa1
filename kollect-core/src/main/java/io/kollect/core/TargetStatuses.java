package io.kollect.core;

import java.time.Instant;
import java.util.List;

/**
 * The two operations every step of the status pipeline shares: a condition's transition from the
 * previous status, and a copy of a status with its conditions replaced. {@link StatusBuilder}
 * (a pass's facts), {@link ClusterStatusMerge} (cluster units and their health) and {@link
 * CircuitBreaker#decorate} (the circuit) all make their conditions here, so a condition keeps its
 * {@code lastTransitionTime} by one rule wherever it was computed.
 */
final class TargetStatuses {

  private TargetStatuses() {}

  static TargetStatus withConditions(TargetStatus s, List<Condition> conditions) {
    return new TargetStatus(s.id(), s.observedGeneration(), conditions, s.objectCounts(),
        s.skipped(), s.lastExport(), s.extractionErrorCount(), s.extractionErrors(),
        s.deliveries(), s.clusters());
  }

  /**
   * A condition as of {@code now}: its transition time is carried over from {@code previous}
   * while its status (True/False) is unchanged, else it is {@code now}. A changed reason or
   * message alone is no transition, as in Kubernetes.
   */
  static Condition transition(String type, String status, String reason, String message,
      TargetStatus previous, Instant now) {
    Instant since = now;
    if (previous != null) {
      Condition before = previous.condition(type);
      if (before != null && before.status().equals(status)) {
        since = before.lastTransitionTime();
      }
    }
    return new Condition(type, status, reason, message, since);
  }
}

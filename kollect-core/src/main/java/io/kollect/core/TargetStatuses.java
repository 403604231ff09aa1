package io.kollect.core;

import java.util.List;

/** Copies of a {@link TargetStatus} with one part replaced, for the guards that amend it. */
final class TargetStatuses {

  private TargetStatuses() {}

  static TargetStatus withConditions(TargetStatus s, List<Condition> conditions) {
    return new TargetStatus(s.id(), s.observedGeneration(), conditions, s.objectCounts(),
        s.skipped(), s.lastExport(), s.extractionErrorCount(), s.extractionErrors(),
        s.deliveries(), s.clusters());
  }
}

package io.kollect.core;

import java.time.Instant;

/**
 * A status condition in the Kubernetes style.
 *
 * @param type {@code Ready}, {@code Degraded}, {@code ExtractionErrors}, {@code CircuitOpen} or
 *     {@code HighCardinality}
 * @param status {@code True}, {@code False} or {@code Unknown}
 * @param reason a CamelCase reason
 * @param message a human-readable message
 * @param lastTransitionTime when the status last changed
 */
public record Condition(String type, String status, String reason, String message, Instant lastTransitionTime) {
  public static final String READY = "Ready";
  public static final String DEGRADED = "Degraded";
  /** {@code True} while objects in the target's scope fail extraction (they are named). */
  public static final String EXTRACTION_ERRORS = "ExtractionErrors";
  /**
   * {@code True} while the target's circuit is open: its reconciles kept failing, so it is skipped
   * until the next attempt the message names.
   */
  public static final String CIRCUIT_OPEN = "CircuitOpen";
  /**
   * {@code True} while the target holds more objects than the engine's warning threshold, or
   * leaves some out because of its {@link TargetSpec#maxObjects() cap}.
   */
  public static final String HIGH_CARDINALITY = "HighCardinality";
}

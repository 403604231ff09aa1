package io.kollect.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How deliveries of one target to one sink are going, as the engine reports them ({@code
 * TargetStatus.deliveries()}, from {@code Exporter.deliveryStatus(target, sink)}), named by sink
 * for the target's status and metrics.
 *
 * @param sink the engine's sink name ({@code namespace/name})
 * @param lastAcknowledged when the sink last acknowledged a delivery, or {@code null}
 * @param pending records waiting for the sink
 * @param consecutiveFailures failed attempts since the last success
 * @param failingSince the first failed attempt since the last success, or {@code null}
 * @param lastError the last failure (endpoint and cause), or {@code null}
 * @param rejected records the sink can never take, with the reason
 */
record SinkDelivery(
    String sink,
    Instant lastAcknowledged,
    int pending,
    int consecutiveFailures,
    Instant failingSince,
    String lastError,
    List<Rejected> rejected) {

  /**
   * A record the sink rejected for good.
   *
   * @param key the record key
   * @param reason why
   */
  record Rejected(String key, String reason) {}

  SinkDelivery {
    rejected = rejected == null ? List.of() : List.copyOf(rejected);
  }

  /** The same threshold as inventory writes: 3 failed attempts in a row, or failing for 60 s. */
  boolean failing(Instant now) {
    return consecutiveFailures >= InventoryHealth.FAILING_ATTEMPTS
        || (failingSince != null && !now.isBefore(failingSince.plus(InventoryHealth.FAILING_AFTER)));
  }

  /** For messages: how long deliveries have been failing. */
  Duration failingFor(Instant now) {
    return failingSince == null ? Duration.ZERO : Duration.between(failingSince, now);
  }
}

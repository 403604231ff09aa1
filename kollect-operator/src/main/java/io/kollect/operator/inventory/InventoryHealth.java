package io.kollect.operator.inventory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How the KollectInventory objects of one target are doing, for its status and metrics.
 *
 * @param records records in the target's inventory (rejected ones not counted)
 * @param pending records changed since the last successful write
 * @param consecutiveFailures failed write attempts since the last success
 * @param failingSince the first failed attempt since the last success, or {@code null}
 * @param lastError what the last failed attempt failed with (endpoint and cause), or {@code null}
 * @param lastWritten when the objects last matched the records, or {@code null}
 * @param rejected records left out because no KollectInventory object can hold them
 */
public record InventoryHealth(
    int records,
    int pending,
    int consecutiveFailures,
    Instant failingSince,
    String lastError,
    Instant lastWritten,
    List<RejectedRecord> rejected) {

  /** Failed attempts in a row after which a target is no longer Ready. */
  static final int FAILING_ATTEMPTS = 3;
  /** How long writes may keep failing before a target is no longer Ready. */
  static final Duration FAILING_AFTER = Duration.ofSeconds(60);

  public InventoryHealth {
    rejected = List.copyOf(rejected);
  }

  /** Nothing written or failed yet. */
  static InventoryHealth empty() {
    return new InventoryHealth(0, 0, 0, null, null, null, List.of());
  }

  /**
   * Writes keep failing: {@value #FAILING_ATTEMPTS} attempts in a row, or failing for {@link
   * #FAILING_AFTER}. One retried hiccup does not count.
   */
  public boolean failing(Instant now) {
    return consecutiveFailures >= FAILING_ATTEMPTS
        || (failingSince != null && !now.isBefore(failingSince.plus(FAILING_AFTER)));
  }

  /**
   * A record that does not fit in a KollectInventory object.
   *
   * @param key the record key
   * @param object the object it was extracted from, {@code Kind namespace/name}
   * @param bytes size of the record's JSON
   * @param reason why it was left out
   */
  public record RejectedRecord(String key, String object, long bytes, String reason) {}
}

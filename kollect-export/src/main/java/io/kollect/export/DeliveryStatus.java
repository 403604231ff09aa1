package io.kollect.export;

import java.time.Instant;
import java.util.List;

/**
 * How delivery of one target's records to one sink is going ({@link Exporter#deliveryStatus}).
 *
 * @param lastAcknowledged when the sink last acknowledged records of this target ({@code null}
 *     when it never did; after a restart, the latest time known from the checkpoint)
 * @param pending records of this target not yet acknowledged: waiting (coalesced, one per object)
 *     or in a write in progress
 * @param consecutiveFailures failed writes of this target's records since the last successful one
 *     ({@code 0} when healthy)
 * @param failingSince when the current streak of failures began ({@code null} when healthy)
 * @param lastError the error of the latest failed write in the current streak, naming the
 *     endpoint and the cause ({@code null} when healthy)
 * @param rejected records the sink refused for good and that are not offered again until their
 *     content changes (at most {@link #MAX_REPORTED_REJECTIONS}, ordered by key)
 */
public record DeliveryStatus(
    Instant lastAcknowledged,
    int pending,
    int consecutiveFailures,
    Instant failingSince,
    String lastError,
    List<Rejection> rejected) {

  /** At most this many rejections are listed; more are only counted in the dropped metric. */
  public static final int MAX_REPORTED_REJECTIONS = 20;

  public DeliveryStatus {
    rejected = rejected == null ? List.of() : List.copyOf(rejected);
  }

  /** Whether the latest write of this target's records failed. */
  public boolean failing() {
    return consecutiveFailures > 0;
  }
}

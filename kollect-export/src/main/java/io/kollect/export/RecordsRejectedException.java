package io.kollect.export;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Thrown by a {@link Sink} for records of a batch that can never be delivered as they are (for
 * example, one record is larger than the destination accepts). The exporter drops exactly those,
 * reports them in {@link DeliveryStatus#rejected()} (key and reason), does not offer the same
 * state again (neither by retry nor by heartbeat) until the object's content changes, and delivers
 * the rest of the batch.
 *
 * <p>Whether the rest was already delivered is the sink's to say: with {@code othersDelivered} the
 * exporter counts the other records of the batch as acknowledged; without, it writes them again
 * (a receiver that honours {@code sequence} ignores a duplicate).
 */
public final class RecordsRejectedException extends SinkException {

  private static final int MESSAGE_KEYS = 5;

  private final transient List<Rejection> rejections;
  private final boolean othersDelivered;

  /** The named records are refused; the rest of the batch was not delivered and is written again. */
  public RecordsRejectedException(List<Rejection> rejections) {
    this(rejections, false);
  }

  /**
   * The named records are refused.
   *
   * @param othersDelivered whether the sink delivered every other record of the batch
   */
  public RecordsRejectedException(List<Rejection> rejections, boolean othersDelivered) {
    super(message(rejections), false, null, null);
    if (rejections.isEmpty()) {
      throw new IllegalArgumentException("rejections: must name at least one record");
    }
    this.rejections = List.copyOf(rejections);
    this.othersDelivered = othersDelivered;
  }

  /** The refused records, by record key, with the sink's reason. */
  public List<Rejection> rejections() {
    return rejections;
  }

  /** The refused records as key to reason (the first reason wins for a key named twice). */
  public Map<String, String> reasonsByKey() {
    return rejections.stream().collect(Collectors.toMap(Rejection::key, Rejection::reason,
        (a, b) -> a));
  }

  /** Whether every record of the batch that is not named was delivered. */
  public boolean othersDelivered() {
    return othersDelivered;
  }

  private static String message(List<Rejection> rejections) {
    Objects.requireNonNull(rejections, "rejections");
    String named = rejections.stream().limit(MESSAGE_KEYS)
        .map(r -> r.key() + " (" + r.reason() + ")").collect(Collectors.joining(", "));
    int more = rejections.size() - MESSAGE_KEYS;
    return rejections.size() + " record(s) rejected: " + named + (more > 0 ? ", and " + more
        + " more" : "");
  }
}

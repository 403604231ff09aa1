package io.kollect.core;

import io.kollect.export.DeliveryStatus;
import io.kollect.export.Exporter;
import io.kollect.export.Rejection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads how a target's records are being delivered ({@link Exporter#deliveryStatus}) and judges
 * it: a sink is <em>failing</em> for a target once its writes have failed {@value
 * #FAILING_ATTEMPTS} times in a row or for {@link #FAILING_AFTER}, so one retried hiccup never
 * flips a target's {@code Ready}, while a sink that keeps refusing does.
 *
 * <p>Split into what changes the target's conditions ({@link #material}) and what only refreshes
 * figures (time of the last acknowledgement, pending count): the first needs a reconcile, the
 * second only a new copy of the status.
 */
final class DeliveryHealth {

  /** Consecutive failed writes after which a sink counts as failing for a target. */
  static final int FAILING_ATTEMPTS = 3;

  /** How long a streak of failures lasts before a sink counts as failing, whatever the count. */
  static final Duration FAILING_AFTER = Duration.ofSeconds(60);

  private DeliveryHealth() {}

  /** The delivery status of the target's records for each sink that has one, by sink name. */
  static Map<String, DeliveryStatus> snapshot(Exporter exporter, TargetId id, Set<String> sinks) {
    return snapshot(exporter, id.toString(), sinks);
  }

  /** The delivery status of the records under one exporter key, by sink name. */
  static Map<String, DeliveryStatus> snapshot(Exporter exporter, String exportKey,
      Set<String> sinks) {
    Map<String, DeliveryStatus> out = new TreeMap<>();
    for (String sink : sinks) {
      exporter.deliveryStatus(exportKey, sink).ifPresent(d -> out.put(sink, d));
    }
    return out;
  }

  /** Whether the sink counts as failing for the target at {@code now}. */
  static boolean failing(DeliveryStatus d, Instant now) {
    return d.consecutiveFailures() >= FAILING_ATTEMPTS
        || (d.failingSince() != null && !d.failingSince().plus(FAILING_AFTER).isAfter(now));
  }

  /** What of the deliveries decides conditions: failing (by the threshold), the error, refusals. */
  static Map<String, List<Object>> material(Map<String, DeliveryStatus> deliveries, Instant now) {
    Map<String, List<Object>> out = new TreeMap<>();
    deliveries.forEach((sink, d) -> {
      boolean failing = failing(d, now);
      out.put(sink, List.of(failing, failing && d.lastError() != null ? d.lastError() : "",
          d.rejected().stream().map(Rejection::key).toList()));
    });
    return out;
  }

  /** The deliveries without the figures that change on every acknowledgement. */
  static Map<String, DeliveryStatus> withoutFigures(Map<String, DeliveryStatus> deliveries) {
    Map<String, DeliveryStatus> out = new TreeMap<>();
    deliveries.forEach((sink, d) -> out.put(sink, new DeliveryStatus(null, 0,
        Math.min(d.consecutiveFailures(), FAILING_ATTEMPTS), d.failingSince(), d.lastError(),
        d.rejected())));
    return out;
  }

  /** One line for a condition message: which sink fails, since when, how often, and why. */
  static String failingMessage(String sink, DeliveryStatus d) {
    return "sink " + sink + " keeps failing (" + d.consecutiveFailures() + " attempts"
        + (d.failingSince() == null ? "" : " since " + d.failingSince()) + "): "
        + (d.lastError() == null ? "no error message" : d.lastError());
  }

  /** One line for a condition message naming the first refused records and why. */
  static String rejectedMessage(String sink, DeliveryStatus d) {
    StringBuilder sb = new StringBuilder("sink ").append(sink).append(" refused ")
        .append(d.rejected().size()).append(d.rejected().size() == 1 ? " record" : " records")
        .append(" for good (left out until they change): ");
    List<Rejection> first = d.rejected().subList(0, Math.min(3, d.rejected().size()));
    for (int i = 0; i < first.size(); i++) {
      sb.append(i == 0 ? "" : "; ").append(first.get(i).key()).append(" (")
          .append(first.get(i).reason()).append(')');
    }
    if (d.rejected().size() > first.size()) {
      sb.append("; and ").append(d.rejected().size() - first.size()).append(" more");
    }
    return sb.toString();
  }
}

package io.kollect.export;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sinks an exporter delivers to, by name: each one's {@link DeliveryChannel}, the ones that are
 * suspended, and a warning, once per name, about a sink a target names that is not configured.
 * Thread-safe; adding and removing are serialised by the exporter.
 */
final class ConfiguredSinks {

  /** Logs as the exporter: one category for what export does, as before this class was split out. */
  private static final Logger LOG = LoggerFactory.getLogger(Exporter.class);

  private final ConcurrentHashMap<String, DeliveryChannel> channels = new ConcurrentHashMap<>();
  private final Set<String> warnedUnknown = ConcurrentHashMap.newKeySet();
  /** Sinks nothing is handed to until resumed; what they were handed stays as it was. */
  private final Set<String> suspended = ConcurrentHashMap.newKeySet();

  /** The channel of a configured sink, or null. */
  DeliveryChannel get(String sink) {
    return channels.get(sink);
  }

  /**
   * The channel to hand a target's records to now: null while the sink is suspended (resuming
   * diffs the whole current set against what it was handed) or not configured (warned once).
   */
  DeliveryChannel accepting(String target, String sink) {
    if (suspended.contains(sink)) {
      return null;
    }
    DeliveryChannel channel = channels.get(sink);
    if (channel == null && warnedUnknown.add(sink)) {
      LOG.warn("target {} names sink {}, which is not configured; its records are sent once the "
          + "sink is added", target, sink);
    }
    return channel;
  }

  /** Adds or replaces the channel of its sink; returns the one it replaced, or null. */
  DeliveryChannel put(DeliveryChannel channel) {
    DeliveryChannel old = channels.put(channel.name(), channel);
    warnedUnknown.remove(channel.name());
    return old;
  }

  /** Removes a sink's channel; returns it, or null when none was configured. */
  DeliveryChannel remove(String sink) {
    return channels.remove(sink);
  }

  boolean isSuspended(String sink) {
    return suspended.contains(sink);
  }

  void suspend(String sink) {
    suspended.add(sink);
  }

  /** Resumes a sink; false when it was not suspended. */
  boolean resume(String sink) {
    return suspended.remove(sink);
  }

  /** The names of the configured sinks (a live view). */
  Set<String> names() {
    return channels.keySet();
  }

  /** A copy of every configured channel. */
  List<DeliveryChannel> all() {
    return List.copyOf(channels.values());
  }

  void clear() {
    channels.clear();
  }
}

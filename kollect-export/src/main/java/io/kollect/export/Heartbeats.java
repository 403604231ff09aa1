package io.kollect.export;

import io.kollect.export.DeliveryChannel.Pending;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each sink's heartbeat: re-sends every target's current set once per {@link
 * SinkOptions#heartbeatInterval()}, in {@link #SLICES} slices spread evenly over the interval, so
 * a receiver that lost state converges without a burst of the whole inventory at once.
 */
final class Heartbeats {

  /** Logs as the exporter: one category for what export does, as before this class was split out. */
  private static final Logger LOG = LoggerFactory.getLogger(Exporter.class);

  /** Heartbeat slices per interval: each tick re-sends the keys of one slice. */
  static final int SLICES = 64;

  private final ScheduledExecutorService scheduler;
  private final Collection<TargetState> targets;
  private final ConfiguredSinks sinks;
  private final Clock clock;
  private final SequenceClock sequences;
  private final ConcurrentHashMap<String, ScheduledFuture<?>> scheduled = new ConcurrentHashMap<>();

  /** {@code targets} is a live view of the exporter's target states. */
  Heartbeats(ScheduledExecutorService scheduler, Collection<TargetState> targets,
      ConfiguredSinks sinks, Clock clock, SequenceClock sequences) {
    this.scheduler = scheduler;
    this.targets = targets;
    this.sinks = sinks;
    this.clock = clock;
    this.sequences = sequences;
  }

  /** Starts the heartbeat of a sink (none when its interval is zero). */
  void start(DeliveryChannel channel) {
    Duration interval = channel.options().heartbeatInterval();
    if (interval.isZero()) {
      return;
    }
    long periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), interval.toNanos() / SLICES);
    AtomicInteger tick = new AtomicInteger();
    ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
        () -> tick(channel, Math.floorMod(tick.getAndIncrement(), SLICES)),
        periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    scheduled.put(channel.name(), future);
  }

  /** Stops the heartbeat of a sink, if it has one. */
  void stop(String sink) {
    ScheduledFuture<?> future = scheduled.remove(sink);
    if (future != null) {
      future.cancel(false);
    }
  }

  /**
   * Re-sends one slice of every target's current set to one sink. Slices come from a hash of
   * (target, key), so the load is spread evenly over the interval. A key sent less than half an
   * interval ago (its slice came up just after a converge sent it, or the checkpoint of the last
   * run shows it was sent shortly before a restart) waits for its next turn, so every key is
   * re-sent between half and one and a half intervals after it was last sent, and a restart does
   * not re-send everything within one interval. Runs under the target's monitor and reads the
   * current record, so it can only re-send the newest state, with that state's sequence: it never
   * overtakes a converge. A state the sink refused for good is not offered again.
   */
  void tick(DeliveryChannel channel, int slice) {
    if (sinks.isSuspended(channel.name())) {
      return;
    }
    Instant now = clock.instant();
    Duration minAge = channel.options().heartbeatInterval().dividedBy(2);
    try {
      for (TargetState ts : targets) {
        synchronized (ts) {
          if (ts.discarded || sinks.get(channel.name()) != channel) {
            continue;
          }
          SinkState st = ts.bySink.get(channel.name());
          if (st != null) {
            channel.enqueue(due(ts, st, slice, now, minAge));
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("heartbeat of sink {} failed: {}", channel.name(), e.toString());
    }
  }

  /** The records of one slice of a target that are due again. Caller holds {@code ts}'s monitor. */
  private List<Pending> due(TargetState ts, SinkState st, int slice, Instant now,
      Duration minAge) {
    List<Pending> out = new ArrayList<>();
    for (Map.Entry<ExportKey, Record> e : ts.current.entrySet()) {
      ExportKey key = e.getKey();
      if (slice(ts.target, key) != slice) {
        continue;
      }
      ExportedEntry entry = st.enqueuedEntry(key);
      Instant lastSent = entry == null ? null : entry.lastSentAt();
      if (entry == null || (lastSent != null
          && Duration.between(lastSent, now).compareTo(minAge) < 0)
          || st.isRefused(key, entry)) {
        continue;
      }
      entry = entry.resent(entry.sequence() != null ? entry.sequence() : sequences.next(), now);
      st.markEnqueued(key, entry);
      out.add(new Pending(st, key, e.getValue().withSequence(entry.sequence()), entry));
    }
    return out;
  }

  /** The slice a (target, key) is re-sent in. */
  static int slice(String target, String key) {
    return slice(target, key.hashCode());
  }

  /** The same slice as for the key's text ({@link ExportKey#hashCode} is that text's). */
  static int slice(String target, ExportKey key) {
    return slice(target, key.hashCode());
  }

  private static int slice(String target, int keyHash) {
    int h = target.hashCode() * 31 + keyHash;
    h ^= h >>> 16;
    h *= 0x9E3779B1;
    h ^= h >>> 15;
    return Math.floorMod(h, SLICES);
  }
}

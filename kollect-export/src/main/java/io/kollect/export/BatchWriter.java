package io.kollect.export;

import io.kollect.export.DeliveryChannel.Pending;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one batch to a sink on a delivery thread and sorts out what happened to each record:
 * acknowledged to its (target, sink) state, refused for good (dropped, reported, logged once per
 * reason), or to be written again. Which lane a batch comes from, when it is due and how a lane
 * backs off is the {@link DeliveryChannel}'s business; this class holds no lock and no lane.
 */
final class BatchWriter {

  /**
   * Logs as the channel whose batches it writes: the category a sink's delivery has always had,
   * which log configurations filter on.
   */
  private static final Logger LOG = LoggerFactory.getLogger(DeliveryChannel.class);
  /** Distinct permanent-failure reasons logged per sink before further ones are only counted. */
  static final int MAX_LOGGED_REASONS = 32;
  private static final int MAX_REASON_CHARS = 300;

  private final Sink sink;
  private final String name;
  private final ExportMetrics metrics;
  private final Clock clock;
  private final Set<String> loggedReasons = ConcurrentHashMap.newKeySet();
  private volatile boolean reasonsSuppressedLogged;

  BatchWriter(Sink sink, ExportMetrics metrics, Clock clock) {
    this.sink = sink;
    this.name = sink.name();
    this.metrics = metrics;
    this.clock = clock;
  }

  /** The outcome of writing one batch, possibly in parts. */
  static final class Outcome {
    /** What is to be written again: everything not delivered once a retryable failure came. */
    final List<Pending> retry = new ArrayList<>();
    int delivered;
    Optional<Duration> retryAfter = Optional.empty();
    /** The retryable failure that ended the attempt, or null. */
    SinkException retryCause;
  }

  /** Writes a batch (taken from one lane) and says how it went. */
  Outcome write(List<Pending> batch) {
    Outcome outcome = new Outcome();
    deliver(batch, outcome);
    return outcome;
  }

  /**
   * Writes a batch. Records a sink names in a {@link RecordsRejectedException} are dropped and the
   * rest written again (or counted delivered, when the sink says so); a permanent rejection of
   * several unnamed records is bisected so one poison record is dropped alone instead of taking its
   * batch with it; a retryable failure stops the attempt and everything not yet delivered goes back
   * for a retry.
   */
  private void deliver(List<Pending> part, Outcome outcome) {
    if (!outcome.retry.isEmpty()) {
      outcome.retry.addAll(part);
      return;
    }
    List<Record> records = new ArrayList<>(part.size());
    for (Pending p : part) {
      records.add(p.record());
    }
    SinkException failure = null;
    try {
      sink.write(records);
    } catch (RecordsRejectedException e) {
      if (dropNamed(part, e, outcome)) {
        return;
      }
      failure = e;
    } catch (SinkException e) {
      failure = e;
    } catch (RuntimeException e) {
      // A sink bug is not proof the records are bad; keep them (memory stays bounded) and retry.
      failure = SinkException.retryable("sink " + name + " threw " + e, e);
    }
    if (failure == null) {
      acknowledge(part, outcome);
    } else if (failure.retryable()) {
      metrics.failed(name, part.size(), false);
      outcome.retry.addAll(part);
      outcome.retryAfter = failure.retryAfter();
      outcome.retryCause = failure;
    } else if (part.size() > 1) {
      int half = part.size() / 2;
      deliver(part.subList(0, half), outcome);
      deliver(part.subList(half, part.size()), outcome);
    } else {
      drop(part.get(0), failure.getMessage());
    }
  }

  /**
   * Drops the records a sink named and delivers (or acknowledges) the rest. False when the sink
   * named none of them: then it cannot be told which record is bad, and the part is treated as a
   * plain permanent rejection.
   */
  private boolean dropNamed(List<Pending> part, RecordsRejectedException e, Outcome outcome) {
    Map<String, String> reasons = e.reasonsByKey();
    List<Pending> rest = new ArrayList<>(part.size());
    for (Pending p : part) {
      if (!reasons.containsKey(p.key().toString())) {
        rest.add(p);
      }
    }
    if (rest.size() == part.size()) {
      return false;
    }
    for (Pending p : part) {
      String reason = reasons.get(p.key().toString());
      if (reason != null) {
        drop(p, reason);
      }
    }
    if (!rest.isEmpty()) {
      if (e.othersDelivered()) {
        acknowledge(rest, outcome);
      } else {
        deliver(rest, outcome);
      }
    }
    return true;
  }

  private void acknowledge(List<Pending> part, Outcome outcome) {
    Instant now = clock.instant();
    for (Pending p : part) {
      p.owner().acknowledge(p.key(), p.record().op(), p.entry(), now);
    }
    outcome.delivered += part.size();
    metrics.sent(name, part.size());
    metrics.lastSuccess(name, now);
  }

  /** A record the sink refused for good: counted, reported, logged once per reason, dropped. */
  private void drop(Pending p, String reason) {
    String r = reason == null ? "rejected (no reason given)" : reason;
    if (r.length() > MAX_REASON_CHARS) {
      r = r.substring(0, MAX_REASON_CHARS) + "...";
    }
    metrics.failed(name, 1, true);
    metrics.dropped(name, 1);
    p.owner().refuse(p.key(), p.entry(), r);
    logPermanentOnce(r, p);
  }

  /** A failure message that names the sink when the sink's own message does not. */
  String describe(SinkException e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      m = e.getCause() != null ? e.getCause().toString() : "failed without a message";
    }
    return m.contains(name) || m.contains("://") ? m : "sink " + name + ": " + m;
  }

  private void logPermanentOnce(String reason, Pending p) {
    if (loggedReasons.contains(reason)) {
      return;
    }
    synchronized (loggedReasons) {
      if (loggedReasons.contains(reason)) {
        return;
      }
      if (loggedReasons.size() >= MAX_LOGGED_REASONS) {
        if (!reasonsSuppressedLogged) {
          reasonsSuppressedLogged = true;
          LOG.warn("sink {} rejected records for more than {} distinct reasons; further reasons "
              + "are only counted in the dropped metric", name, MAX_LOGGED_REASONS);
        }
        return;
      }
      loggedReasons.add(reason);
    }
    LOG.warn("sink {} permanently rejected record {} of target {} and it was dropped; further "
        + "rejections for this reason are only counted in the dropped metric: {}",
        name, p.key(), p.owner().target, reason);
  }

  /** The distinct permanent-failure reasons logged so far. */
  Set<String> loggedReasons() {
    return Set.copyOf(loggedReasons);
  }
}

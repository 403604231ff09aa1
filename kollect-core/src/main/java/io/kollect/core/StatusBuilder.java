package io.kollect.core;

import io.kollect.export.DeliveryStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Collects one pass's findings into a {@link TargetStatus}: readiness (the first reason given
 * wins), degraded reasons (the most important names the condition, the message lists all),
 * skipped scopes, extraction errors, deliveries and counts. A full pass leaves a builder behind
 * as the base a delta pass {@link #copy copies}: a delta only adds what it changes (counts,
 * errors, deliveries, the last export), so its status costs O(types + error samples).
 */
final class StatusBuilder {

  static final String TRUE = "True";
  static final String FALSE = "False";

  static final String REASON_RECONCILED = "Reconciled";
  static final String REASON_INVALID_PROFILE = "InvalidProfile";
  static final String REASON_PROFILE_NOT_FOUND = "ProfileNotFound";
  static final String REASON_SINK_NOT_FOUND = "SinkNotFound";
  static final String REASON_FORBIDDEN = "Forbidden";
  static final String REASON_NOT_SERVED = "NotServed";
  static final String REASON_NOT_SYNCED = "NotSynced";
  static final String REASON_DELIVERY_FAILING = "DeliveryFailing";
  static final String REASON_RECORDS_REJECTED = "RecordsRejected";
  static final String REASON_WATCH_STALLED = "WatchStalled";
  static final String REASON_RECONCILE_FAILED = "ReconcileFailed";
  static final String REASON_EXTRACTION_FAILED = "ExtractionFailed";
  static final String REASON_NO_ERRORS = "NoErrors";

  /** Degraded reasons, most important first: the first present names the condition. */
  static final List<String> DEGRADED_PRIORITY = List.of(
      REASON_INVALID_PROFILE, REASON_RECONCILE_FAILED, REASON_SINK_NOT_FOUND,
      REASON_DELIVERY_FAILING,
      REASON_RECORDS_REJECTED, REASON_WATCH_STALLED, REASON_FORBIDDEN, REASON_NOT_SERVED);

  private final TargetRuntime rt;
  private final TargetSpec spec;
  final Instant now;
  private final List<String[]> degraded;
  private Map<String, DeliveryStatus> deliveries = Map.of();
  final List<SkippedScope> skipped;
  private String readyStatus;
  private String readyReason;
  private String readyMessage;
  private Instant lastExport;
  private int extractionErrorCount;
  private List<ExtractionError> extractionErrors = List.of();
  /** Guard conditions (CircuitOpen, HighCardinality) of this status only: never copied. */
  private final List<Condition> guards = new ArrayList<>();

  StatusBuilder(TargetRuntime rt, TargetSpec spec, Instant now) {
    this.rt = rt;
    this.spec = spec;
    this.now = now;
    this.lastExport = rt.status == null ? null : rt.status.lastExport();
    this.degraded = new ArrayList<>();
    this.skipped = new ArrayList<>();
  }

  private StatusBuilder(StatusBuilder base, Instant now) {
    this.rt = base.rt;
    this.spec = base.spec;
    this.now = now;
    this.degraded = new ArrayList<>(base.degraded);
    this.skipped = new ArrayList<>(base.skipped);
    this.deliveries = base.deliveries;
    this.readyStatus = base.readyStatus;
    this.readyReason = base.readyReason;
    this.readyMessage = base.readyMessage;
    this.lastExport = rt.status == null ? base.lastExport : rt.status.lastExport();
    this.extractionErrorCount = base.extractionErrorCount;
    this.extractionErrors = base.extractionErrors;
  }

  /** A builder with everything given so far, at {@code now}; the last export is the target's. */
  StatusBuilder copy(Instant now) {
    return new StatusBuilder(this, now);
  }

  void degraded(String reason, String message) {
    degraded.add(new String[] {reason, message});
  }

  void skipped(SkippedScope s) {
    if (!skipped.contains(s)) {
      skipped.add(s);
    }
  }

  void notReady(String reason, String message) {
    if (readyStatus == null) {
      readyStatus = FALSE;
      readyReason = reason;
      readyMessage = message;
    }
  }

  void ready(String reason, String message) {
    if (readyStatus == null) {
      readyStatus = TRUE;
      readyReason = reason;
      readyMessage = message;
    }
  }

  /** Whether readiness was decided already (a not-ready reason, or ready). */
  boolean readinessDecided() {
    return readyStatus != null;
  }

  /** Adds a condition after the standard ones (one per type; a later one replaces it). */
  void condition(String type, String status, String reason, String message) {
    guards.removeIf(c -> c.type().equals(type));
    guards.add(new Condition(type, status, reason, message, null));
  }

  void lastExport(Instant when) {
    this.lastExport = when;
  }

  void deliveries(Map<String, DeliveryStatus> d) {
    this.deliveries = d;
  }

  /** The failing objects: how many, and the first few ordered by type, namespace and name. */
  void extractionErrors(int count, List<ExtractionError> samples) {
    this.extractionErrorCount = count;
    this.extractionErrors = List.copyOf(samples.subList(0,
        Math.min(TargetStatus.EXTRACTION_ERROR_SAMPLES, samples.size())));
  }

  /** {@link #extractionErrors(int, List)} of a whole ordered list. */
  void extractionErrors(List<ExtractionError> errors) {
    extractionErrors(errors.size(), errors);
  }

  /**
   * Puts the sinks' delivery of this target into the status: a sink that keeps failing (past
   * {@link DeliveryHealth}'s threshold) makes the target not Ready and Degraded, refused records
   * make it Degraded; both name the sink and the cause.
   */
  void judgeDeliveries(Map<String, DeliveryStatus> d) {
    deliveries(d);
    for (Map.Entry<String, DeliveryStatus> e : d.entrySet()) {
      DeliveryStatus ds = e.getValue();
      if (DeliveryHealth.failing(ds, now)) {
        String message = DeliveryHealth.failingMessage(e.getKey(), ds);
        notReady(REASON_DELIVERY_FAILING, message);
        degraded(REASON_DELIVERY_FAILING, message);
      }
      if (!ds.rejected().isEmpty()) {
        degraded(REASON_RECORDS_REJECTED, DeliveryHealth.rejectedMessage(e.getKey(), ds));
      }
    }
  }

  TargetStatus build(Map<String, Integer> counts, TargetStatus previous) {
    List<Condition> conditions = new ArrayList<>();
    conditions.add(condition(Condition.READY, readyStatus == null ? FALSE : readyStatus,
        readyReason == null ? REASON_NOT_SYNCED : readyReason,
        readyMessage == null ? "" : readyMessage, previous));
    if (degraded.isEmpty()) {
      conditions.add(condition(Condition.DEGRADED, FALSE, REASON_RECONCILED,
          "all parts of the target work", previous));
    } else {
      // The most important reason names the condition; the message lists all, in that order.
      List<String[]> sorted = new ArrayList<>(degraded);
      sorted.sort(Comparator.comparingInt(d -> DEGRADED_PRIORITY.indexOf(d[0])));
      List<String> messages = new ArrayList<>();
      for (String[] d : sorted) {
        if (!messages.contains(d[1])) {
          messages.add(d[1]);
        }
      }
      conditions.add(condition(Condition.DEGRADED, TRUE, sorted.get(0)[0],
          String.join("; ", messages), previous));
    }
    if (extractionErrorCount == 0) {
      conditions.add(condition(Condition.EXTRACTION_ERRORS, FALSE, REASON_NO_ERRORS,
          "every object in scope was extracted", previous));
    } else {
      List<String> named = new ArrayList<>();
      for (ExtractionError e : extractionErrors) {
        named.add(e.resource() + " " + (e.namespace() == null ? "" : e.namespace() + "/")
            + e.name() + ": " + e.message());
      }
      int more = extractionErrorCount - extractionErrors.size();
      conditions.add(condition(Condition.EXTRACTION_ERRORS, TRUE, REASON_EXTRACTION_FAILED,
          extractionErrorCount + (extractionErrorCount == 1 ? " object" : " objects")
              + " cannot be extracted and " + (extractionErrorCount == 1 ? "is" : "are")
              + " left out: " + String.join("; ", named)
              + (more > 0 ? "; and " + more + " more" : ""), previous));
    }
    for (Condition g : guards) {
      conditions.add(condition(g.type(), g.status(), g.reason(), g.message(), previous));
    }
    return new TargetStatus(rt.id, spec.generation(), conditions, counts, skipped, lastExport,
        extractionErrorCount, extractionErrors, deliveries);
  }

  private Condition condition(String type, String status, String reason, String message,
      TargetStatus previous) {
    return TargetStatuses.transition(type, status, reason, message, previous, now);
  }

  /**
   * The status of a target whose pass threw (an API call failed, e.g. an access review the
   * engine may not make): not Ready, Degraded, with the error's first line; counts, skipped scopes
   * and deliveries as last reported. The caller retries with backoff.
   */
  static TargetStatus failed(TargetRuntime rt, RuntimeException error, Instant now) {
    synchronized (rt) {
      TargetStatus previous = rt.status;
      StatusBuilder status = new StatusBuilder(rt, rt.definition.spec(), now);
      String message = "reconcile failed, retrying with backoff: " + firstLine(error);
      status.notReady(REASON_RECONCILE_FAILED, message);
      status.degraded(REASON_RECONCILE_FAILED, message);
      if (previous != null) {
        previous.skipped().forEach(status::skipped);
        status.deliveries(previous.deliveries());
      }
      return status.build(previous == null ? Map.of() : previous.objectCounts(), previous);
    }
  }

  static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /**
   * The status without what changes on every delivery (the last export and acknowledgement
   * times, pending counts): what is left must be reported at once when it changes.
   */
  static TargetStatus withoutLastExport(TargetStatus s) {
    return s == null ? null : new TargetStatus(s.id(), s.observedGeneration(), s.conditions(),
        s.objectCounts(), s.skipped(), null, s.extractionErrorCount(), s.extractionErrors(),
        DeliveryHealth.withoutFigures(s.deliveries()), s.clusters());
  }
}

package io.kollect.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A circuit breaker per target (safe change): a target whose reconciles keep failing is
 * skipped for a while instead of being retried at the work queue's pace.
 *
 * <p><b>What fails.</b> A reconcile that throws (an API call it depends on failed: an access
 * review, discovery, a namespace list), or one after which at least half of the target's objects
 * fail extraction ({@link #extractionFailure}). Not a failure: a forbidden or not-served type
 * (reported as {@code Degraded}, nothing to retry), an unsynced or stalled lease (the shared
 * informers retry on their own, and skipping the target would not lighten that load), and sink
 * back-pressure (the exporter retries per sink).
 *
 * <p><b>States.</b> Closed: every reconcile runs. After {@code failures} consecutive failures it
 * opens: the target is skipped until its next attempt, {@code min(30 s, cap / 8)} after the first
 * opening and doubling per failed attempt up to the cap. At that time one half-open attempt runs
 * (a full pass); its success closes the circuit, its failure opens it again with the longer
 * cool-down. {@link #grantAttempt} (a host's forced reconcile, or a changed spec, profile, sink
 * or access answer: maybe the fix) makes the next reconcile such an attempt at once. Events that arrive while open stay marked dirty (bounded by objects), so
 * nothing is lost.
 *
 * <p><b>Why not Failsafe or resilience4j.</b> Both have a consecutive-failures breaker with an
 * open state that can back off (Failsafe's {@code withDelayFn}, resilience4j's {@code
 * waitIntervalFunctionInOpenState}) and a manual half-open. What they lack is what this one is
 * for: (a) one breaker per target, created on the first failure and forgotten with the target
 * (a resilience4j {@code CircuitBreakerRegistry} would do that part, Failsafe has none); (b) the
 * caller's clock ({@code now} is passed in, the same instant the status is stamped with; both
 * libraries read their own clock); (c) a status that names the consecutive
 * failures, the last error and the time of the next attempt ({@link #decorate}), which neither
 * exposes; and (d) a skip that parks the key on the work queue's delay line until the attempt is
 * due, rather than rejecting a call. Wrapping either would keep all of this class and add
 * translation, so it stays hand-written.
 *
 * <p>Thread-safe: one target is worked by one worker at a time; per-target state is guarded by
 * its own monitor.
 */
final class CircuitBreaker {

  static final String REASON_OPEN = "ConsecutiveFailures";
  static final String REASON_CLOSED = "Closed";
  private static final Duration FIRST_COOLDOWN_MAX = Duration.ofSeconds(30);

  private final int failures;
  private final Duration maxCooldown;
  private final ConcurrentHashMap<TargetId, State> states = new ConcurrentHashMap<>();

  /**
   * @param failures consecutive failures that open a circuit; {@code 0} turns the breaker off
   * @param maxCooldown the longest cool-down
   */
  CircuitBreaker(int failures, Duration maxCooldown) {
    this.failures = failures;
    this.maxCooldown = maxCooldown;
  }

  static CircuitBreaker off() {
    return new CircuitBreaker(0, Duration.ZERO);
  }

  private static final class State {
    int consecutive;
    boolean open;
    Duration cooldown;
    Instant nextAttempt;
    String lastError;
  }

  /**
   * How long the target must still wait (its circuit is open and the attempt is not due), or
   * {@code null} when it may be reconciled now.
   */
  Duration untilAttempt(TargetId id, Instant now) {
    State s = states.get(id);
    if (s == null) {
      return null;
    }
    synchronized (s) {
      return !s.open || !now.isBefore(s.nextAttempt) ? null
          : Duration.between(now, s.nextAttempt);
    }
  }

  /** Makes the target's next reconcile a half-open attempt, now. */
  void grantAttempt(TargetId id, Instant now) {
    State s = states.get(id);
    if (s != null) {
      synchronized (s) {
        if (s.open) {
          s.nextAttempt = now;
        }
      }
    }
  }

  /**
   * Records a reconcile's outcome.
   *
   * @param error why it failed, {@code null} when it succeeded
   * @return the cool-down when this outcome opened (or re-opened) the circuit, else {@code null}
   */
  Duration record(TargetId id, String error, Instant now) {
    if (failures <= 0) {
      return null;
    }
    if (error == null) {
      State s = states.get(id);
      if (s != null) {
        synchronized (s) {
          s.consecutive = 0;
          s.open = false;
          s.cooldown = null;
          s.nextAttempt = null;
        }
      }
      return null;
    }
    State s = states.computeIfAbsent(id, k -> new State());
    synchronized (s) {
      s.consecutive++;
      s.lastError = error;
      if (!s.open && s.consecutive < failures) {
        return null;
      }
      s.cooldown = s.open && s.cooldown != null ? min(s.cooldown.multipliedBy(2), maxCooldown)
          : firstCooldown();
      s.open = true;
      s.nextAttempt = now.plus(s.cooldown);
      return s.cooldown;
    }
  }

  private Duration firstCooldown() {
    Duration d = min(FIRST_COOLDOWN_MAX, maxCooldown.dividedBy(8));
    return d.isZero() ? Duration.ofMillis(1) : d;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Forgets a removed target. */
  void forget(TargetId id) {
    states.remove(id);
  }

  /** How many circuits are open now. */
  int openCount() {
    int n = 0;
    for (State s : states.values()) {
      synchronized (s) {
        if (s.open) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * Why the reconcile that gave {@code status} counts as failed because of extraction: at least
   * half of the target's objects fail (and at least one does); {@code null} otherwise.
   */
  static String extractionFailure(TargetStatus status) {
    if (status == null || status.extractionErrorCount() == 0) {
      return null;
    }
    int records = 0;
    for (int n : status.objectCounts().values()) {
      records += n;
    }
    int errors = status.extractionErrorCount();
    if (errors * 2 < errors + records) {
      return null;
    }
    return errors + " of " + (errors + records) + " objects fail extraction";
  }

  /**
   * The status with the circuit's condition: while open, {@code CircuitOpen=True} naming the
   * failures, the last error and the next attempt, and {@code Ready=False} reason {@code
   * CircuitOpen}; once a circuit was reported, {@code CircuitOpen=False} after it closes.
   */
  TargetStatus decorate(TargetStatus status, TargetStatus previous, Instant now) {
    if (status == null) {
      return null;
    }
    State s = states.get(status.id());
    boolean open;
    String message;
    synchronized (s == null ? this : s) {
      open = s != null && s.open;
      message = open ? s.consecutive + " consecutive failed reconciles; last error: "
          + s.lastError + "; next attempt at " + s.nextAttempt : null;
    }
    boolean reported = previous != null && previous.condition(Condition.CIRCUIT_OPEN) != null;
    if (!open && !reported) {
      return status;
    }
    List<Condition> conditions = new ArrayList<>();
    for (Condition c : status.conditions()) {
      if (c.type().equals(Condition.CIRCUIT_OPEN)) {
        continue;
      }
      if (open && c.type().equals(Condition.READY)) {
        conditions.add(TargetStatuses.transition(Condition.READY, StatusBuilder.FALSE,
            Condition.CIRCUIT_OPEN, "skipped while its circuit is open: " + message, previous,
            now));
      } else {
        conditions.add(c);
      }
    }
    conditions.add(open
        ? TargetStatuses.transition(Condition.CIRCUIT_OPEN, StatusBuilder.TRUE, REASON_OPEN,
            message, previous, now)
        : TargetStatuses.transition(Condition.CIRCUIT_OPEN, StatusBuilder.FALSE,
            REASON_CLOSED, "reconciles succeed", previous, now));
    return TargetStatuses.withConditions(status, conditions);
  }

}

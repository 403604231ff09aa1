package io.kollect.core.lifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The experiment state machine as pure functions of a {@link ProfileState}: every transition, and
 * every rejection with the message a person sees.
 *
 * <pre>
 *   (none | terminal) --start--> running --promote (same id)--> promoted
 *                                running --stop (same id)-----> rollback   (baseline restored)
 *                                running --deadline passed----> timeout    (baseline restored)
 *                                running --spec edited--------> aborted    (nothing restored)
 *   terminal --retention passed--> (none)
 * </pre>
 *
 * <p><b>The start race.</b> Start writes the state ({@code running}) first and the spec second, so
 * that no reconcile can see the candidate spec without the experiment that explains it. A
 * reconcile between the two sees {@code running} with the baseline spec still in place: it waits
 * ({@link Action#WAIT}). The candidate is <em>verified</em> when a reconcile first sees the spec
 * with {@code expectedSpecHash}; from then on the current revision is the candidate's, and any
 * other spec, the baseline's included (a GitOps revert), aborts.
 */
public final class ExperimentTransitions {

  /** How long an experiment may run when start gives no timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
  /** How long a terminal experiment stays visible before it is cleared. */
  public static final Duration TERMINAL_RETENTION = Duration.ofMinutes(1);

  private ExperimentTransitions() {}

  /** What a reconcile must do besides storing the new state. */
  public enum Action {
    /** Nothing. */
    NONE,
    /** The candidate spec is not in place yet: deliver the baseline and wait for it. */
    WAIT,
    /** Write the baseline spec back (stop or timeout). */
    RESTORE_BASELINE
  }

  /**
   * The state a reconcile should store, what it must do, and when to look again.
   *
   * @param state the new state (equal to the old one when nothing changed)
   * @param action what to do besides storing it
   * @param nextCheck when to reconcile again without an event (a deadline, the end of the
   *     retention), or {@code null}
   */
  public record Observed(ProfileState state, Action action, Instant nextCheck) {}

  /**
   * Starts an experiment, or accepts a retry of the running one with the same id and candidate
   * (a start that failed between its state and spec writes).
   *
   * @param candidateHash {@link ProfileRevision#specHash} of the defaulted candidate
   * @param candidateRevision the candidate's revision name
   * @throws ExperimentRejectedException when another experiment runs, the profile has no
   *     revision yet, or the candidate is the current spec
   */
  public static ProfileState start(ProfileState s, String id, ExperimentMode mode,
      Duration timeout, String candidateHash, String candidateRevision, Instant now) {
    Objects.requireNonNull(id, "id");
    if (id.isBlank()) {
      throw new ExperimentRejectedException("--id: must not be blank");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new ExperimentRejectedException("--timeout: must be positive, not " + timeout);
    }
    Experiment e = s.experiment();
    if (e != null && e.running()) {
      if (e.id().equals(id) && e.expectedSpecHash().equals(candidateHash)) {
        return s;
      }
      throw new ExperimentRejectedException("experiment " + e.id() + " is running (started "
          + e.startedAt() + "): promote or stop it first"
          + (e.id().equals(id) ? " (a retry of it must give the same candidate)" : ""));
    }
    if (s.currentRevision() == null) {
      throw new ExperimentRejectedException("the profile has no revision yet: the operator has "
          + "not seen it (is it running?)");
    }
    if (candidateRevision.equals(s.currentRevision())) {
      throw new ExperimentRejectedException("the candidate equals the current spec (revision "
          + s.currentRevision() + "): nothing to try");
    }
    return s.withExperiment(Experiment.builder().id(id).mode(mode).startedAt(now)
        .deadline(now.plus(timeout)).baselineRevision(s.currentRevision())
        .expectedSpecHash(candidateHash).message("started").build());
  }

  /**
   * Keeps the candidate.
   *
   * @throws ExperimentRejectedException when no experiment runs, the id differs, or the
   *     candidate spec has not been seen yet
   */
  public static ProfileState promote(ProfileState s, String id, Instant now) {
    Experiment e = running(s, id, "promote");
    if (!verified(s)) {
      throw new ExperimentRejectedException("experiment " + id + ": the candidate spec is not in "
          + "place yet; promote once status.currentRevision is the candidate's");
    }
    return s.withExperiment(e.finish(ExperimentPhase.PROMOTED, now, "promoted"));
  }

  /**
   * Rolls back: the caller then writes the baseline spec. A repeated stop of the same experiment
   * (whose spec write failed) is accepted unchanged.
   *
   * @throws ExperimentRejectedException when no experiment runs, or the id differs
   */
  public static ProfileState stop(ProfileState s, String id, Instant now) {
    Experiment e = s.experiment();
    if (e != null && e.phase() == ExperimentPhase.ROLLBACK && e.id().equals(id)) {
      return s;
    }
    running(s, id, "stop");
    return s.withExperiment(e.finish(ExperimentPhase.ROLLBACK, now, "stopped"));
  }

  /**
   * What a reconcile that sees the spec with revision {@code specRevision} (hash {@code specHash})
   * at {@code now} makes of the state.
   */
  public static Observed observe(ProfileState s, String specRevision, String specHash,
      Instant now) {
    return observe(s, specRevision, specHash, now, TERMINAL_RETENTION);
  }

  /**
   * As {@link #observe(ProfileState, String, String, Instant)}, keeping a terminal experiment
   * visible for {@code retention} instead of {@link #TERMINAL_RETENTION}.
   */
  public static Observed observe(ProfileState s, String specRevision, String specHash,
      Instant now, Duration retention) {
    Experiment e = s.experiment();
    if (e == null) {
      return new Observed(s.withCurrent(specRevision).withDelivered(specRevision), Action.NONE,
          null);
    }
    if (e.running()) {
      return observeRunning(s, e, specRevision, specHash, now, retention);
    }
    Instant clearAt = e.finishedAt() == null ? now : e.finishedAt().plus(retention);
    boolean restorePending = (e.phase() == ExperimentPhase.ROLLBACK
        || e.phase() == ExperimentPhase.TIMEOUT)
        && !e.baselineRevision().equals(s.currentRevision())
        && specHash.equals(e.expectedSpecHash());
    if (restorePending) {
      // The baseline spec is on its way (or its write failed): the candidate is not delivered.
      return new Observed(s.withDelivered(e.baselineRevision()), Action.RESTORE_BASELINE,
          clearAt);
    }
    ProfileState next = s.withCurrent(specRevision).withDelivered(specRevision);
    if (!now.isBefore(clearAt)) {
      return new Observed(next.withExperiment(null), Action.NONE, null);
    }
    return new Observed(next, Action.NONE, clearAt);
  }

  private static Observed observeRunning(ProfileState s, Experiment e, String specRevision,
      String specHash, Instant now, Duration retention) {
    if (e.deadline() != null && !now.isBefore(e.deadline())) {
      Experiment done = e.finish(ExperimentPhase.TIMEOUT, now, "timed out at " + e.deadline());
      boolean candidateInPlace = specHash.equals(e.expectedSpecHash());
      ProfileState next = s.withExperiment(done).withDelivered(e.baselineRevision());
      return new Observed(next, candidateInPlace ? Action.RESTORE_BASELINE : Action.NONE,
          now.plus(retention));
    }
    if (specHash.equals(e.expectedSpecHash())) {
      ProfileState next = s.withCurrent(specRevision);
      return new Observed(next.withDelivered(e.mode() == ExperimentMode.LIVE ? specRevision
          : e.baselineRevision()), Action.NONE, e.deadline());
    }
    if (specRevision.equals(e.baselineRevision()) && !verified(s)) {
      return new Observed(s.withDelivered(e.baselineRevision()), Action.WAIT, e.deadline());
    }
    Experiment aborted = e.finish(ExperimentPhase.ABORTED, now, "the spec was changed to "
        + "revision " + specRevision + " while the experiment ran; it no longer interferes");
    return new Observed(s.withCurrent(specRevision).withDelivered(specRevision)
        .withExperiment(aborted), Action.NONE, now.plus(retention));
  }

  /** Whether the running experiment's candidate spec has been seen (it is current). */
  public static boolean verified(ProfileState s) {
    Experiment e = s.experiment();
    return e != null && s.currentRevision() != null
        && !s.currentRevision().equals(e.baselineRevision());
  }

  private static Experiment running(ProfileState s, String id, String verb) {
    Experiment e = s.experiment();
    if (e == null) {
      throw new ExperimentRejectedException("cannot " + verb + " experiment " + id
          + ": the profile has no experiment");
    }
    if (!e.id().equals(id)) {
      throw new ExperimentRejectedException("cannot " + verb + " experiment " + id
          + ": the profile's experiment is " + e.id() + " (phase " + e.phase().wire() + ")");
    }
    if (!e.running()) {
      throw new ExperimentRejectedException("cannot " + verb + " experiment " + id
          + ": it is " + e.phase().wire() + ", not running");
    }
    return e;
  }
}

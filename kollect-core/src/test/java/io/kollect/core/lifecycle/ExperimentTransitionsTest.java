package io.kollect.core.lifecycle;

import static io.kollect.core.lifecycle.ExperimentTransitions.Action.NONE;
import static io.kollect.core.lifecycle.ExperimentTransitions.Action.RESTORE_BASELINE;
import static io.kollect.core.lifecycle.ExperimentTransitions.Action.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ExperimentTransitionsTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final ProfileRevision BASE = ProfileRevision.of("p", Specs.BASELINE);
  private static final ProfileRevision CAND = ProfileRevision.of("p", Specs.CANDIDATE);
  private static final ProfileRevision OTHER = ProfileRevision.of("p", Specs.OTHER);

  private static ProfileState seen(ProfileRevision r) {
    return ExperimentTransitions.observe(ProfileState.initial(), r.name(), r.specHash(), T0)
        .state();
  }

  private static ProfileState started(ExperimentMode mode) {
    return ExperimentTransitions.start(seen(BASE), "e1", mode, Duration.ofMinutes(30),
        CAND.specHash(), CAND.name(), T0);
  }

  private static ExperimentTransitions.Observed observe(ProfileState s, ProfileRevision spec,
      Instant at) {
    return ExperimentTransitions.observe(s, spec.name(), spec.specHash(), at);
  }

  /** Started, and the candidate spec seen by a reconcile. */
  private static ProfileState verified(ExperimentMode mode) {
    return observe(started(mode), CAND, T0.plusSeconds(1)).state();
  }

  @Test
  void withoutAnExperimentTheCurrentAndPreviousRevisionFollowTheSpec() {
    ProfileState s = seen(BASE);
    assertThat(s.currentRevision()).isEqualTo(BASE.name());
    assertThat(s.previousRevision()).isNull();
    assertThat(s.deliveredRevision()).isEqualTo(BASE.name());

    ProfileState next = observe(s, OTHER, T0).state();

    assertThat(next.currentRevision()).isEqualTo(OTHER.name());
    assertThat(next.previousRevision()).isEqualTo(BASE.name());
    assertThat(next.deliveredRevision()).isEqualTo(OTHER.name());
    assertThat(observe(next, OTHER, T0).state()).isEqualTo(next);
  }

  @Test
  void startLocksTheBaselineRecordsTheCandidateHashAndRuns() {
    ProfileState s = started(ExperimentMode.SHADOW);

    Experiment e = s.experiment();
    assertThat(e.phase()).isEqualTo(ExperimentPhase.RUNNING);
    assertThat(e.baselineRevision()).isEqualTo(BASE.name());
    assertThat(e.expectedSpecHash()).isEqualTo(CAND.specHash());
    assertThat(e.startedAt()).isEqualTo(T0);
    assertThat(e.deadline()).isEqualTo(T0.plus(Duration.ofMinutes(30)));
    assertThat(e.mode()).isEqualTo(ExperimentMode.SHADOW);
    assertThat(s.currentRevision()).isEqualTo(BASE.name());
  }

  @Test
  void aReconcileBetweenTheStatusWriteAndTheSpecPatchWaitsInsteadOfAborting() {
    ExperimentTransitions.Observed o = observe(started(ExperimentMode.SHADOW), BASE,
        T0.plusSeconds(1));

    assertThat(o.action()).isEqualTo(WAIT);
    assertThat(o.state().experiment().phase()).isEqualTo(ExperimentPhase.RUNNING);
    assertThat(o.state().deliveredRevision()).isEqualTo(BASE.name());
    assertThat(o.nextCheck()).isEqualTo(T0.plus(Duration.ofMinutes(30)));
  }

  @Test
  void theFirstReconcileWithTheCandidateVerifiesItAndShadowKeepsDeliveringTheBaseline() {
    ProfileState s = verified(ExperimentMode.SHADOW);

    assertThat(s.experiment().phase()).isEqualTo(ExperimentPhase.RUNNING);
    assertThat(s.currentRevision()).isEqualTo(CAND.name());
    assertThat(s.previousRevision()).isEqualTo(BASE.name());
    assertThat(s.deliveredRevision()).isEqualTo(BASE.name());
    assertThat(ExperimentTransitions.verified(s)).isTrue();
  }

  @Test
  void liveModeDeliversTheCandidateWhileRunning() {
    assertThat(verified(ExperimentMode.LIVE).deliveredRevision()).isEqualTo(CAND.name());
  }

  @Test
  void anyOtherSpecWhileRunningAbortsAndStopsInterfering() {
    ExperimentTransitions.Observed o = observe(verified(ExperimentMode.SHADOW), OTHER,
        T0.plusSeconds(5));

    assertThat(o.state().experiment().phase()).isEqualTo(ExperimentPhase.ABORTED);
    assertThat(o.state().experiment().message()).contains(OTHER.name());
    assertThat(o.state().currentRevision()).isEqualTo(OTHER.name());
    assertThat(o.state().deliveredRevision()).isEqualTo(OTHER.name());
    assertThat(o.action()).isEqualTo(NONE);
  }

  @Test
  void anotherSpecBeforeTheCandidateArrivedAbortsToo() {
    ExperimentTransitions.Observed o = observe(started(ExperimentMode.SHADOW), OTHER, T0);

    assertThat(o.state().experiment().phase()).isEqualTo(ExperimentPhase.ABORTED);
  }

  @Test
  void aRevertToTheBaselineAfterVerificationAborts() {
    ExperimentTransitions.Observed o = observe(verified(ExperimentMode.SHADOW), BASE,
        T0.plusSeconds(5));

    assertThat(o.state().experiment().phase()).isEqualTo(ExperimentPhase.ABORTED);
    assertThat(o.state().currentRevision()).isEqualTo(BASE.name());
    assertThat(o.action()).isEqualTo(NONE);
  }

  @Test
  void promoteKeepsTheCandidate() {
    ProfileState s = ExperimentTransitions.promote(verified(ExperimentMode.SHADOW), "e1",
        T0.plusSeconds(9));
    assertThat(s.experiment().phase()).isEqualTo(ExperimentPhase.PROMOTED);
    assertThat(s.experiment().finishedAt()).isEqualTo(T0.plusSeconds(9));

    ExperimentTransitions.Observed o = observe(s, CAND, T0.plusSeconds(10));

    assertThat(o.state().deliveredRevision()).isEqualTo(CAND.name());
    assertThat(o.state().currentRevision()).isEqualTo(CAND.name());
    assertThat(o.action()).isEqualTo(NONE);
  }

  @Test
  void stopRollsBackAndTheBaselineIsRestoredBeforeTheCandidateIsEverDelivered() {
    ProfileState s = ExperimentTransitions.stop(verified(ExperimentMode.SHADOW), "e1",
        T0.plusSeconds(9));
    assertThat(s.experiment().phase()).isEqualTo(ExperimentPhase.ROLLBACK);

    // The spec write of the baseline has not been seen yet.
    ExperimentTransitions.Observed pending = observe(s, CAND, T0.plusSeconds(10));
    assertThat(pending.action()).isEqualTo(RESTORE_BASELINE);
    assertThat(pending.state().deliveredRevision()).isEqualTo(BASE.name());

    ExperimentTransitions.Observed restored = observe(pending.state(), BASE, T0.plusSeconds(11));
    assertThat(restored.action()).isEqualTo(NONE);
    assertThat(restored.state().currentRevision()).isEqualTo(BASE.name());
    assertThat(restored.state().previousRevision()).isEqualTo(CAND.name());
    assertThat(restored.state().deliveredRevision()).isEqualTo(BASE.name());
    assertThat(restored.state().experiment().phase()).isEqualTo(ExperimentPhase.ROLLBACK);
  }

  @Test
  void aRepeatedStopOfTheSameExperimentIsAcceptedSoItsSpecWriteCanBeRetried() {
    ProfileState s = ExperimentTransitions.stop(verified(ExperimentMode.SHADOW), "e1", T0);

    assertThat(ExperimentTransitions.stop(s, "e1", T0.plusSeconds(1))).isSameAs(s);
  }

  @Test
  void pastTheDeadlineARunningExperimentTimesOutAndRestoresTheBaseline() {
    ProfileState s = verified(ExperimentMode.LIVE);
    Instant deadline = s.experiment().deadline();

    assertThat(observe(s, CAND, deadline.minusMillis(1)).state().experiment().phase())
        .isEqualTo(ExperimentPhase.RUNNING);
    ExperimentTransitions.Observed o = observe(s, CAND, deadline);

    assertThat(o.state().experiment().phase()).isEqualTo(ExperimentPhase.TIMEOUT);
    assertThat(o.action()).isEqualTo(RESTORE_BASELINE);
    assertThat(o.state().deliveredRevision()).isEqualTo(BASE.name());
  }

  @Test
  void aTimeoutBeforeTheCandidateArrivedHasNothingToRestore() {
    ProfileState s = started(ExperimentMode.SHADOW);

    ExperimentTransitions.Observed o = observe(s, BASE, s.experiment().deadline());

    assertThat(o.state().experiment().phase()).isEqualTo(ExperimentPhase.TIMEOUT);
    assertThat(o.action()).isEqualTo(NONE);
  }

  @Test
  void aTerminalExperimentStaysVisibleForTheRetentionThenIsCleared() {
    ProfileState promoted = ExperimentTransitions.promote(verified(ExperimentMode.SHADOW), "e1",
        T0.plusSeconds(10));
    Instant clearAt = T0.plusSeconds(10).plus(ExperimentTransitions.TERMINAL_RETENTION);

    ExperimentTransitions.Observed before = observe(promoted, CAND, clearAt.minusMillis(1));
    assertThat(before.state().experiment()).isNotNull();
    assertThat(before.nextCheck()).isEqualTo(clearAt);

    ExperimentTransitions.Observed after = observe(promoted, CAND, clearAt);
    assertThat(after.state().experiment()).isNull();
    assertThat(after.nextCheck()).isNull();
  }

  @Test
  void startIsRejectedWhileAnotherExperimentRuns() {
    ProfileState s = started(ExperimentMode.SHADOW);

    assertThatThrownBy(() -> ExperimentTransitions.start(s, "e2", ExperimentMode.SHADOW,
        Duration.ofMinutes(5), OTHER.specHash(), OTHER.name(), T0))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessageContaining("experiment e1 is running");
  }

  @Test
  void aRetryOfTheRunningStartWithTheSameIdAndCandidateIsAccepted() {
    ProfileState s = started(ExperimentMode.SHADOW);

    assertThat(ExperimentTransitions.start(s, "e1", ExperimentMode.SHADOW, Duration.ofMinutes(30),
        CAND.specHash(), CAND.name(), T0.plusSeconds(3))).isSameAs(s);
  }

  @Test
  void aRetryWithTheSameIdButAnotherCandidateIsRejected() {
    ProfileState s = started(ExperimentMode.SHADOW);

    assertThatThrownBy(() -> ExperimentTransitions.start(s, "e1", ExperimentMode.SHADOW,
        Duration.ofMinutes(30), OTHER.specHash(), OTHER.name(), T0))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessageContaining("same candidate");
  }

  @Test
  void startIsRejectedForAProfileNeverSeenOrACandidateEqualToTheCurrentSpec() {
    assertThatThrownBy(() -> ExperimentTransitions.start(ProfileState.initial(), "e1",
        ExperimentMode.SHADOW, Duration.ofMinutes(1), CAND.specHash(), CAND.name(), T0))
        .isInstanceOf(ExperimentRejectedException.class).hasMessageContaining("no revision");
    assertThatThrownBy(() -> ExperimentTransitions.start(seen(BASE), "e1",
        ExperimentMode.SHADOW, Duration.ofMinutes(1), BASE.specHash(), BASE.name(), T0))
        .isInstanceOf(ExperimentRejectedException.class).hasMessageContaining("equals");
  }

  @Test
  void startIsRejectedWithABlankIdOrANonPositiveTimeout() {
    assertThatThrownBy(() -> ExperimentTransitions.start(seen(BASE), " ",
        ExperimentMode.SHADOW, Duration.ofMinutes(1), CAND.specHash(), CAND.name(), T0))
        .isInstanceOf(ExperimentRejectedException.class).hasMessageContaining("--id");
    assertThatThrownBy(() -> ExperimentTransitions.start(seen(BASE), "e1",
        ExperimentMode.SHADOW, Duration.ZERO, CAND.specHash(), CAND.name(), T0))
        .isInstanceOf(ExperimentRejectedException.class).hasMessageContaining("--timeout");
  }

  @Test
  void aNewExperimentMayStartOverATerminalOne() {
    ProfileState promoted = observe(ExperimentTransitions.promote(verified(ExperimentMode.SHADOW),
        "e1", T0), CAND, T0.plusSeconds(1)).state();

    ProfileState s = ExperimentTransitions.start(promoted, "e2", ExperimentMode.LIVE,
        Duration.ofMinutes(1), OTHER.specHash(), OTHER.name(), T0.plusSeconds(2));

    assertThat(s.experiment().id()).isEqualTo("e2");
    assertThat(s.experiment().baselineRevision()).isEqualTo(CAND.name());
  }

  @Test
  void promoteAndStopAreRejectedForAWrongId() {
    ProfileState s = verified(ExperimentMode.SHADOW);

    assertThatThrownBy(() -> ExperimentTransitions.promote(s, "nope", T0))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessage("cannot promote experiment nope: the profile's experiment is e1 (phase running)");
    assertThatThrownBy(() -> ExperimentTransitions.stop(s, "nope", T0))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessageContaining("the profile's experiment is e1");
  }

  @Test
  void promoteAndStopAreRejectedInEveryTerminalPhase() {
    ProfileState running = verified(ExperimentMode.SHADOW);
    ProfileState promoted = ExperimentTransitions.promote(running, "e1", T0);
    ProfileState rolledBack = ExperimentTransitions.stop(running, "e1", T0);
    ProfileState aborted = observe(running, OTHER, T0).state();
    ProfileState timedOut = observe(running, CAND, running.experiment().deadline()).state();

    for (ProfileState s : new ProfileState[] {promoted, rolledBack, aborted, timedOut}) {
      String phase = s.experiment().phase().wire();
      assertThatThrownBy(() -> ExperimentTransitions.promote(s, "e1", T0))
          .isInstanceOf(ExperimentRejectedException.class)
          .hasMessage("cannot promote experiment e1: it is " + phase + ", not running");
      if (s != rolledBack) {
        assertThatThrownBy(() -> ExperimentTransitions.stop(s, "e1", T0))
            .isInstanceOf(ExperimentRejectedException.class)
            .hasMessage("cannot stop experiment e1: it is " + phase + ", not running");
      }
    }
  }

  @Test
  void promoteAndStopAreRejectedWithoutAnExperiment() {
    assertThatThrownBy(() -> ExperimentTransitions.promote(seen(BASE), "e1", T0))
        .isInstanceOf(ExperimentRejectedException.class).hasMessageContaining("no experiment");
    assertThatThrownBy(() -> ExperimentTransitions.stop(seen(BASE), "e1", T0))
        .isInstanceOf(ExperimentRejectedException.class).hasMessageContaining("no experiment");
  }

  @Test
  void promoteIsRejectedBeforeTheCandidateSpecIsInPlace() {
    assertThatThrownBy(() -> ExperimentTransitions.promote(started(ExperimentMode.SHADOW), "e1",
        T0)).isInstanceOf(ExperimentRejectedException.class).hasMessageContaining("not in place");
  }

  @Test
  void phasesAndModesReadTheirStatusWords() {
    for (ExperimentPhase p : ExperimentPhase.values()) {
      assertThat(ExperimentPhase.fromWire(p.wire())).isEqualTo(p);
    }
    assertThat(ExperimentMode.fromWire("live")).isEqualTo(ExperimentMode.LIVE);
    assertThatThrownBy(() -> ExperimentMode.fromWire("canary"))
        .hasMessageContaining("shadow or live");
  }
}

package io.kollect.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/** The control API and reconcile over the in-memory store (no engine: the store's view only). */
class ProfileExperimentsTest {

  private static final ProfileRevision BASE = ProfileRevision.of("p", Specs.BASELINE);
  private static final ProfileRevision CAND = ProfileRevision.of("p", Specs.CANDIDATE);
  private static final ProfileRevision OTHER = ProfileRevision.of("p", Specs.OTHER);

  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryProfileHistory history = ProfileHistory.inMemory();
  private final ProfileExperiments experiments =
      ProfileExperiments.builder(history).clock(clock).build();

  private ProfileState state() {
    return experiments.status("p").orElseThrow();
  }

  private void seenBaseline() {
    history.putSpec("p", Specs.BASELINE);
    experiments.reconcile("p");
  }

  @Test
  void everySpecChangeStoresARevisionAndMovesCurrentAndPrevious() {
    seenBaseline();
    history.putSpec("p", Specs.OTHER);
    experiments.reconcile("p");

    assertThat(history.revisions("p")).containsExactlyInAnyOrder(BASE.name(), OTHER.name());
    assertThat(history.revision("p", BASE.name()).orElseThrow().spec()).isEqualTo(Specs.BASELINE);
    assertThat(state().currentRevision()).isEqualTo(OTHER.name());
    assertThat(state().previousRevision()).isEqualTo(BASE.name());
  }

  @Test
  void garbageCollectionKeepsCurrentPreviousAndARunningExperimentsBaseline() {
    seenBaseline();
    experiments.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE));
    experiments.reconcile("p");
    // Someone else's apply aborts; then two more changes.
    history.putSpec("p", Specs.OTHER);
    experiments.reconcile("p");
    history.putSpec("p", Specs.deployments("x", ".x"));
    experiments.reconcile("p");
    clock.advance(ExperimentTransitions.TERMINAL_RETENTION);
    history.putSpec("p", Specs.deployments("y", ".y"));
    experiments.reconcile("p");

    ProfileState s = state();
    assertThat(s.experiment()).isNull();
    assertThat(history.revisions("p"))
        .containsExactlyInAnyOrder(s.currentRevision(), s.previousRevision());
  }

  @Test
  void aConfiguredRetentionKeepsTheTerminalPhaseForThatLongAndNoLonger() {
    ProfileExperiments shortRetention = ProfileExperiments.builder(history).clock(clock)
        .terminalRetention(Duration.ofSeconds(5)).build();
    history.putSpec("p", Specs.BASELINE);
    shortRetention.reconcile("p");
    shortRetention.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE));
    shortRetention.reconcile("p");
    shortRetention.stop("p", "e1");

    shortRetention.reconcile("p");
    clock.advance(Duration.ofSeconds(4));
    shortRetention.reconcile("p");
    assertThat(shortRetention.status("p").orElseThrow().experiment()).isNotNull();
    clock.advance(Duration.ofSeconds(1));
    shortRetention.reconcile("p");
    assertThat(shortRetention.status("p").orElseThrow().experiment()).isNull();
  }

  @Test
  void theBaselineOfARunningExperimentSurvivesGarbageCollection() {
    seenBaseline();
    experiments.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE)
        .withMode(ExperimentMode.LIVE));
    experiments.reconcile("p");

    assertThat(history.revisions("p")).contains(BASE.name(), CAND.name());
  }

  @Test
  void startWritesTheStateBeforeTheSpec() {
    seenBaseline();
    InMemoryProfileHistory spy = history;
    experiments.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE));

    ProfileHistory.Snapshot s = spy.read("p").orElseThrow();
    assertThat(s.spec()).isEqualTo(Specs.CANDIDATE);
    assertThat(s.state().experiment().phase()).isEqualTo(ExperimentPhase.RUNNING);
    assertThat(s.state().experiment().baselineRevision()).isEqualTo(BASE.name());
    assertThat(history.revision("p", CAND.name())).isPresent();
  }

  @Test
  void aStartWhoseSpecWriteFailedIsCompletedByARetryWithTheSameId() {
    seenBaseline();
    ProfileHistory failingSpec = new ForwardingHistory(history) {
      @Override
      public void writeSpec(String profile, io.kollect.extract.ProfileSpec spec) {
        throw new IllegalStateException("connection reset");
      }
    };
    ProfileExperiments broken = ProfileExperiments.builder(failingSpec).clock(clock).build();
    assertThatThrownBy(() -> broken.start("p",
        ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE)))
        .hasMessageContaining("connection reset");
    // A reconcile in between waits for the spec.
    experiments.reconcile("p");
    assertThat(state().experiment().phase()).isEqualTo(ExperimentPhase.RUNNING);

    experiments.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE));
    experiments.reconcile("p");

    assertThat(history.read("p").orElseThrow().spec()).isEqualTo(Specs.CANDIDATE);
    assertThat(state().currentRevision()).isEqualTo(CAND.name());
  }

  @Test
  void stopRestoresTheBaselineSpecFromItsRevision() {
    seenBaseline();
    experiments.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE));
    experiments.reconcile("p");

    Experiment e = experiments.stop("p", "e1");
    experiments.reconcile("p");

    assertThat(e.phase()).isEqualTo(ExperimentPhase.ROLLBACK);
    assertThat(history.read("p").orElseThrow().spec()).isEqualTo(Specs.BASELINE);
    assertThat(state().currentRevision()).isEqualTo(BASE.name());
    assertThat(state().previousRevision()).isEqualTo(CAND.name());
  }

  @Test
  void theTimeoutIsReadFromTheStoreSoANewInstanceAfterARestartAppliesIt() {
    seenBaseline();
    experiments.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE)
        .withTimeout(Duration.ofMinutes(5)));
    experiments.reconcile("p");

    ProfileExperiments restarted = ProfileExperiments.builder(history).clock(clock).build();
    clock.advance(Duration.ofMinutes(5));
    restarted.reconcile("p");
    restarted.reconcile("p");

    assertThat(state().experiment().phase()).isEqualTo(ExperimentPhase.TIMEOUT);
    assertThat(history.read("p").orElseThrow().spec()).isEqualTo(Specs.BASELINE);
    assertThat(state().currentRevision()).isEqualTo(BASE.name());
  }

  @Test
  void reconcileSaysWhenToLookAgain() {
    seenBaseline();
    assertThat(experiments.reconcile("p")).isEmpty();
    experiments.start("p", ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE)
        .withMode(ExperimentMode.LIVE).withTimeout(Duration.ofMinutes(7)));

    assertThat(experiments.reconcile("p")).contains(clock.instant().plus(Duration.ofMinutes(7)));
  }

  @Test
  void aStateWriteThatLosesTheRaceIsDecidedAgainOnAFreshRead() {
    seenBaseline();
    int[] writes = {0};
    ProfileHistory racing = new ForwardingHistory(history) {
      @Override
      public boolean writeState(String profile, String version, ProfileState state) {
        if (writes[0]++ == 0) {
          // Someone else starts e0 first.
          ProfileHistory.Snapshot s = history.read(profile).orElseThrow();
          history.writeState(profile, s.version(), ExperimentTransitions.start(s.state(), "e0",
              ExperimentMode.LIVE, Duration.ofMinutes(1), OTHER.specHash(), OTHER.name(),
              clock.instant()));
        }
        return super.writeState(profile, version, state);
      }
    };
    ProfileExperiments loser = ProfileExperiments.builder(racing).clock(clock).build();

    assertThatThrownBy(() -> loser.start("p",
        ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE)))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessageContaining("experiment e0 is running");
  }

  @Test
  void aMissingProfileIsReportedAsSuch() {
    assertThatThrownBy(() -> experiments.start("nope",
        ProfileExperiments.StartRequest.of("e1", Specs.CANDIDATE)))
        .isInstanceOf(NoSuchElementException.class).hasMessageContaining("nope");
    assertThat(experiments.reconcile("nope")).isEmpty();
  }

  static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  /** Delegates everything; tests override the call they break. */
  static class ForwardingHistory implements ProfileHistory {
    private final ProfileHistory delegate;

    ForwardingHistory(ProfileHistory delegate) {
      this.delegate = delegate;
    }

    @Override
    public java.util.Optional<Snapshot> read(String profile) {
      return delegate.read(profile);
    }

    @Override
    public boolean writeState(String profile, String version, ProfileState state) {
      return delegate.writeState(profile, version, state);
    }

    @Override
    public void writeSpec(String profile, io.kollect.extract.ProfileSpec spec) {
      delegate.writeSpec(profile, spec);
    }

    @Override
    public void saveRevision(ProfileRevision revision) {
      delegate.saveRevision(revision);
    }

    @Override
    public java.util.Optional<ProfileRevision> revision(String profile, String name) {
      return delegate.revision(profile, name);
    }

    @Override
    public java.util.List<String> revisions(String profile) {
      return delegate.revisions(profile);
    }

    @Override
    public void deleteRevision(String profile, String name) {
      delegate.deleteRevision(profile, name);
    }
  }
}

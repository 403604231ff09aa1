package io.kollect.core.lifecycle;

import io.kollect.core.KollectEngine;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.ProfileSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Revisions and experiments of profiles over a {@link ProfileHistory}: the Java API behind {@code
 * kollect experiment}, and the reconcile that keeps revisions, the lifecycle state and (when an
 * engine is attached) the engine's profile and shadow profile in line with the stored spec.
 *
 * <pre>{@code
 * InMemoryProfileHistory history = ProfileHistory.inMemory();
 * ProfileExperiments experiments = ProfileExperiments.builder(history).engine(engine).build();
 * history.putSpec("deployments", spec);            // instead of engine.putProfile
 * experiments.reconcile("deployments");
 * experiments.start("deployments", StartRequest.of("try-1", candidate));
 * experiments.diff("deployments");                 // what the candidate would deliver
 * experiments.promote("deployments", "try-1");     // or stop(...)
 * }</pre>
 *
 * <p>Call {@link #reconcile} after every spec change and at the instant it returns (deadlines,
 * the diff refresh and the end of a terminal phase's retention are timers, not events). With
 * {@link Builder#writes} off (a follower replica) it only drives the engine from the stored state.
 * Thread-safe: every operation is serialised on this object.
 */
public final class ProfileExperiments {

  private static final Logger LOG = LoggerFactory.getLogger(ProfileExperiments.class);
  /** Compare-and-set attempts before giving up (another writer keeps winning). */
  static final int CAS_ATTEMPTS = 5;
  /** How often a running shadow experiment's diff is stored by default. */
  public static final Duration DEFAULT_DIFF_INTERVAL = Duration.ofSeconds(10);

  /**
   * What to start.
   *
   * @param id the experiment's id; promote and stop name it
   * @param candidate the candidate spec
   * @param mode {@link ExperimentMode#SHADOW} unless given
   * @param timeout how long it may run ({@link ExperimentTransitions#DEFAULT_TIMEOUT} unless
   *     given)
   * @param note the experiment's message while it runs ({@code started} unless given), e.g.
   *     where it was declared
   */
  public record StartRequest(String id, ProfileSpec candidate, ExperimentMode mode,
      Duration timeout, String note) {
    public StartRequest {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(candidate, "candidate");
      mode = mode == null ? ExperimentMode.SHADOW : mode;
      timeout = timeout == null ? ExperimentTransitions.DEFAULT_TIMEOUT : timeout;
      note = note == null ? "started" : note;
    }

    /** The request with the default note. */
    public StartRequest(String id, ProfileSpec candidate, ExperimentMode mode, Duration timeout) {
      this(id, candidate, mode, timeout, null);
    }

    /** A shadow experiment with the default timeout. */
    public static StartRequest of(String id, ProfileSpec candidate) {
      return new StartRequest(id, candidate, null, null, null);
    }

    public StartRequest withMode(ExperimentMode m) {
      return new StartRequest(id, candidate, m, timeout, note);
    }

    public StartRequest withTimeout(Duration t) {
      return new StartRequest(id, candidate, mode, t, note);
    }

    public StartRequest withNote(String n) {
      return new StartRequest(id, candidate, mode, timeout, n);
    }
  }

  private final ProfileHistory history;
  private final KollectEngine engine;
  private final Clock clock;
  private final Duration diffInterval;
  private final Duration terminalRetention;
  private volatile boolean writes;
  /** Profiles whose shadow profile is in the engine, with the candidate's revision. */
  private final Map<String, String> shadowed = new ConcurrentHashMap<>();
  /** When each profile's diff was last stored. */
  private final Map<String, Instant> diffWritten = new ConcurrentHashMap<>();

  private ProfileExperiments(Builder b) {
    this.history = b.history;
    this.engine = b.engine;
    this.clock = b.clock;
    this.diffInterval = b.diffInterval;
    this.terminalRetention = b.terminalRetention;
    this.writes = b.writes;
  }

  /** Starts configuring experiments over {@code history}. */
  public static Builder builder(ProfileHistory history) {
    return new Builder(history);
  }

  /** Turns the store writes of {@link #reconcile} on or off (a host gaining or losing the lead). */
  public void setWrites(boolean on) {
    this.writes = on;
  }

  /** Whether {@link #reconcile} writes to the store. */
  public boolean writes() {
    return writes;
  }

  // ---- control -------------------------------------------------------------------------------

  /**
   * Starts an experiment: stores the candidate's revision, then the state ({@code running}, the
   * baseline locked to the current revision), then the candidate spec. Retrying a start that
   * failed half-way with the same id and candidate is accepted.
   *
   * @throws ExperimentRejectedException when the state does not allow it (see {@link
   *     ExperimentTransitions#start})
   * @throws NoSuchElementException when the profile does not exist
   */
  public synchronized Experiment start(String profile, StartRequest request) {
    ProfileRevision candidate = ProfileRevision.of(profile, request.candidate());
    for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      ProfileHistory.Snapshot s = snapshot(profile);
      ProfileState next = ExperimentTransitions.start(s.state(), request.id(), request.mode(),
          request.timeout(), candidate.specHash(), candidate.name(), clock.instant());
      if (next != s.state()) {
        next = next.withExperiment(next.experiment().toBuilder().message(request.note()).build());
      }
      history.saveRevision(candidate);
      if (next != s.state() && !history.writeState(profile, s.version(), next)) {
        continue;
      }
      if (!ProfileRevision.specHash(s.spec()).equals(candidate.specHash())) {
        history.writeSpec(profile, request.candidate());
      }
      reconcileIfEngine(profile);
      return next.experiment();
    }
    throw conflict(profile);
  }

  /**
   * Promotes the running experiment: the candidate stays.
   *
   * @throws ExperimentRejectedException for a wrong id, a phase other than running, or a
   *     candidate not in place yet
   */
  public synchronized Experiment promote(String profile, String id) {
    for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      ProfileHistory.Snapshot s = snapshot(profile);
      ProfileState next = ExperimentTransitions.promote(s.state(), id, clock.instant());
      if (history.writeState(profile, s.version(), next)) {
        reconcileIfEngine(profile);
        return next.experiment();
      }
    }
    throw conflict(profile);
  }

  /**
   * Stops the running experiment ({@code rollback}) and restores the baseline spec from its
   * revision. Repeating it (after the spec write failed) writes the baseline again.
   *
   * @throws ExperimentRejectedException for a wrong id or a phase other than running
   * @throws IllegalStateException when the baseline revision is no longer stored
   */
  public synchronized Experiment stop(String profile, String id) {
    for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      ProfileHistory.Snapshot s = snapshot(profile);
      ProfileState next = ExperimentTransitions.stop(s.state(), id, clock.instant());
      if (next != s.state() && !history.writeState(profile, s.version(), next)) {
        continue;
      }
      history.writeSpec(profile, baselineSpec(profile, next.experiment()));
      reconcileIfEngine(profile);
      return next.experiment();
    }
    throw conflict(profile);
  }

  /** The profile's lifecycle state, or empty when the profile does not exist. */
  public Optional<ProfileState> status(String profile) {
    return history.read(profile).map(ProfileHistory.Snapshot::state);
  }

  /**
   * The candidate compared with the baseline: from the attached engine (with samples) while a
   * shadow experiment runs here, else the last diff stored in the state (without samples).
   */
  public Optional<ProfileDiff> diff(String profile) {
    if (engine != null && shadowed.containsKey(profile)) {
      Optional<ProfileDiff> live = engine.shadowDiff(profile);
      if (live.isPresent()) {
        return live;
      }
    }
    return status(profile).map(ProfileState::experiment).map(Experiment::diff);
  }

  // ---- reconcile -----------------------------------------------------------------------------

  /**
   * Brings the profile's revisions, state and engine profiles in line with its stored spec; see
   * {@link ExperimentTransitions#observe}. A profile that no longer exists is removed from the
   * engine.
   *
   * @return when to reconcile again without a change, if at all
   */
  public synchronized Optional<Instant> reconcile(String profile) {
    for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      Optional<ProfileHistory.Snapshot> read = history.read(profile);
      if (read.isEmpty()) {
        remove(profile);
        return Optional.empty();
      }
      ProfileHistory.Snapshot s = read.get();
      Instant now = clock.instant();
      ProfileRevision rev = ProfileRevision.of(profile, s.spec());
      ExperimentTransitions.Observed observed =
          ExperimentTransitions.observe(s.state(), rev.name(), rev.specHash(), now,
              terminalRetention);
      ProfileState next = withDiff(profile, observed.state(), now);
      if (writes) {
        history.saveRevision(rev);
        if (!next.equals(s.state()) && !history.writeState(profile, s.version(), next)) {
          continue;
        }
        if (observed.action() == ExperimentTransitions.Action.RESTORE_BASELINE) {
          history.writeSpec(profile, baselineSpec(profile, next.experiment()));
        }
        collectGarbage(profile, next, rev.name());
      }
      drive(profile, s.spec(), rev, next);
      return Optional.ofNullable(nextCheck(observed, next, now));
    }
    LOG.warn("profile {}: its state changed {} times during one reconcile; retrying later",
        profile, CAS_ATTEMPTS);
    return Optional.of(clock.instant().plus(diffInterval));
  }

  /** The engine's profile is the delivered revision's spec; the candidate runs as a shadow. */
  private void drive(String profile, ProfileSpec spec, ProfileRevision rev, ProfileState state) {
    if (engine == null) {
      return;
    }
    String delivered = state.deliveredRevision();
    ProfileSpec deliveredSpec = spec;
    if (delivered != null && !delivered.equals(rev.name())) {
      Optional<ProfileRevision> stored = history.revision(profile, delivered);
      if (stored.isPresent()) {
        deliveredSpec = stored.get().spec();
      } else {
        LOG.warn("profile {}: revision {} to deliver is not stored; delivering the spec as it is",
            profile, delivered);
      }
    }
    engine.putProfile(profile, deliveredSpec);
    if (shadowing(state)) {
      // Only a new candidate is given again: giving it restarts its evaluation.
      if (!rev.name().equals(shadowed.put(profile, rev.name()))) {
        engine.putShadowProfile(profile, spec);
      }
    } else if (shadowed.remove(profile) != null) {
      engine.removeShadowProfile(profile);
      diffWritten.remove(profile);
    }
  }

  /** A running, verified shadow experiment. */
  private static boolean shadowing(ProfileState state) {
    return state.experimentRunning() && state.experiment().mode() == ExperimentMode.SHADOW
        && ExperimentTransitions.verified(state);
  }

  /** The state with the engine's diff stored, at most once per diff interval. */
  private ProfileState withDiff(String profile, ProfileState state, Instant now) {
    if (engine == null || !shadowing(state) || !shadowed.containsKey(profile)) {
      return state;
    }
    Optional<String> error = engine.shadowError(profile);
    if (error.isPresent()) {
      // The candidate does not compile: say so where the experiment is looked at.
      String message = "the candidate cannot be evaluated: " + error.get();
      return message.equals(state.experiment().message()) ? state
          : state.withExperiment(state.experiment().toBuilder().message(message).build());
    }
    Instant last = diffWritten.get(profile);
    if (last != null && now.isBefore(last.plus(diffInterval))) {
      return state;
    }
    Optional<ProfileDiff> diff = engine.shadowDiff(profile);
    if (diff.isEmpty()) {
      return state;
    }
    ProfileDiff d = diff.get();
    ProfileDiff summary = new ProfileDiff(d.objects(), d.added(), d.removed(), d.changed(),
        d.fieldChanges(), d.errors(), d.scrubHits(), d.bytesBaseline(), d.bytesCandidate(),
        List.of());
    diffWritten.put(profile, now);
    return state.withExperiment(state.experiment().toBuilder().diff(summary).build());
  }

  private Instant nextCheck(ExperimentTransitions.Observed observed, ProfileState state,
      Instant now) {
    Instant next = observed.nextCheck();
    if (shadowing(state)) {
      Instant diffAt = now.plus(diffInterval);
      next = next == null || diffAt.isBefore(next) ? diffAt : next;
    }
    return next;
  }

  /** Deletes every revision but the current, the previous and a running experiment's baseline. */
  private void collectGarbage(String profile, ProfileState state, String specRevision) {
    Set<String> keep = new HashSet<>();
    keep.add(specRevision);
    if (state.currentRevision() != null) {
      keep.add(state.currentRevision());
    }
    if (state.previousRevision() != null) {
      keep.add(state.previousRevision());
    }
    if (state.deliveredRevision() != null) {
      keep.add(state.deliveredRevision());
    }
    if (state.experiment() != null) {
      keep.add(state.experiment().baselineRevision());
      keep.add(ProfileRevision.name(profile, state.experiment().expectedSpecHash()));
    }
    for (String name : history.revisions(profile)) {
      if (!keep.contains(name)) {
        history.deleteRevision(profile, name);
      }
    }
  }

  /** The profile is gone: removes it and its shadow from the engine and forgets its timers. */
  public synchronized void remove(String profile) {
    diffWritten.remove(profile);
    if (engine != null) {
      if (shadowed.remove(profile) != null) {
        engine.removeShadowProfile(profile);
      }
      engine.removeProfile(profile);
    }
  }

  private void reconcileIfEngine(String profile) {
    if (engine != null && writes) {
      reconcile(profile);
    }
  }

  private ProfileSpec baselineSpec(String profile, Experiment e) {
    return history.revision(profile, e.baselineRevision())
        .orElseThrow(() -> new IllegalStateException("profile " + profile + ": baseline revision "
            + e.baselineRevision() + " is not stored any more; restore the spec by hand"))
        .spec();
  }

  private ProfileHistory.Snapshot snapshot(String profile) {
    return history.read(profile).orElseThrow(() -> new NoSuchElementException("profile "
        + profile + " does not exist"));
  }

  private static IllegalStateException conflict(String profile) {
    return new IllegalStateException("profile " + profile + " kept changing while writing its "
        + "experiment state (" + CAS_ATTEMPTS + " attempts); try again");
  }

  /** Configures {@link ProfileExperiments}. */
  public static final class Builder {
    private final ProfileHistory history;
    private KollectEngine engine;
    private Clock clock = Clock.systemUTC();
    private Duration diffInterval = DEFAULT_DIFF_INTERVAL;
    private Duration terminalRetention = ExperimentTransitions.TERMINAL_RETENTION;
    private boolean writes = true;

    private Builder(ProfileHistory history) {
      this.history = Objects.requireNonNull(history, "history");
    }

    /** The engine whose profiles {@link #reconcile} drives; none for a pure control client. */
    public Builder engine(KollectEngine engine) {
      this.engine = engine;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How often a running shadow experiment's diff is stored in the state (not per event). */
    public Builder diffInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("diffInterval must be positive");
      }
      this.diffInterval = interval;
      return this;
    }

    /**
     * How long a terminal experiment stays visible before a reconcile clears it (default {@link
     * ExperimentTransitions#TERMINAL_RETENTION}); integration tests shorten it to see the clearing
     * without waiting a minute.
     */
    public Builder terminalRetention(Duration retention) {
      if (retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("terminalRetention must be positive");
      }
      this.terminalRetention = retention;
      return this;
    }

    /** Whether {@link #reconcile} writes to the store at first (default true). */
    public Builder writes(boolean on) {
      this.writes = on;
      return this;
    }

    public ProfileExperiments build() {
      return new ProfileExperiments(this);
    }
  }
}

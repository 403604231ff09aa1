package io.kollect.operator.profile;

import io.kollect.core.KollectEngine;
import io.kollect.core.lifecycle.Experiment;
import io.kollect.core.lifecycle.ExperimentRejectedException;
import io.kollect.core.lifecycle.ProfileExperiments;
import io.kollect.core.lifecycle.ProfileHistory;
import io.kollect.core.lifecycle.ProfileRevision;
import io.kollect.core.lifecycle.ProfileState;
import io.kollect.extract.ProfileSpec;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.status.ProblemReports;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profile reconcile of the operator: every KollectProfile event goes through {@link
 * ProfileExperiments#reconcile} (revisions, status, experiment transitions, the engine's profile
 * and shadow profile) instead of straight into the engine, and the instants it names (deadlines,
 * the diff refresh, the end of a terminal phase's retention) are timers here, so a deadline holds
 * across restarts: it is read from status by the next instance's first reconcile.
 *
 * <p>Reconciles run on one thread of their own ({@code kollect-profile-lifecycle}), never on an
 * informer thread, except for a profile whose status shows an experiment: its spec may be a
 * shadow candidate, so it is reconciled before anything goes into the engine. Only the leader
 * writes (status, revisions, a restored spec, a declared experiment's transitions); a follower
 * drives its engine from the status as it is. When a reconcile fails (API unreachable, no
 * permission on ControllerRevisions) it is retried after {@link #RETRY}, and the inventory does not
 * wait for it (see {@link #put}).
 */
public final class ProfileLifecycle implements ProfileFeed.ProfileInput, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProfileLifecycle.class);
  static final Duration RETRY = Duration.ofSeconds(10);

  private final ControllerRevisionHistory history;
  private final ProfileExperiments experiments;
  private final KollectEngine engine;
  private final ScheduledExecutorService timers;
  private final Clock clock;
  private final Map<String, ScheduledFuture<?>> scheduled = new ConcurrentHashMap<>();
  /** Profiles whose reconcile succeeded once (their engine profile is the lifecycle's). */
  private final Set<String> reconciled = ConcurrentHashMap.newKeySet();
  /** Problems of declared experiments already logged (once each). */
  private final Set<String> warnedDeclarations = ConcurrentHashMap.newKeySet();

  public ProfileLifecycle(ControllerRevisionHistory history, ProfileExperiments experiments,
      KollectEngine engine, Clock clock) {
    this.history = history;
    this.experiments = experiments;
    this.engine = engine;
    this.clock = clock;
    this.timers = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kollect-profile-lifecycle");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The body of {@code GET /experiments/{profile}}.
   *
   * @param profile the profile
   * @param currentRevision the revision of its spec
   * @param previousRevision the revision before
   * @param deliveredRevision the revision sinks receive
   * @param experiment the experiment as in status
   * @param diff the candidate vs the baseline with samples of changed records (scrubbed), from
   *     this replica's engine while a shadow experiment runs here, else as stored in status
   */
  public record ExperimentView(String profile, String currentRevision, String previousRevision,
      String deliveredRevision, io.kollect.operator.crd.ProfileExperimentStatus experiment,
      io.kollect.extract.ProfileDiff diff) {}

  /** The experiment view of a profile, empty when it does not exist. */
  public Optional<ExperimentView> view(String profile) {
    return experiments.status(profile).map(s -> new ExperimentView(profile, s.currentRevision(),
        s.previousRevision(), s.deliveredRevision(), ProfileStates.status(s.experiment()),
        experiments.diff(profile).orElse(null)));
  }

  /**
   * A profile without an experiment goes into the engine at once, as its spec says (what a
   * reconcile would deliver), and its revisions and status follow off the informer thread: the
   * targets never wait for the history. A profile whose cached status has an experiment is
   * reconciled here first, as its spec may be a shadow candidate that must not be delivered;
   * when that fails before any reconcile succeeded and no experiment runs, the spec goes in as
   * it is.
   */
  @Override
  public void put(KollectProfile profile, ProfileSpec spec) {
    String name = profile.getMetadata().getName();
    ProfileState cached = ProfileStates.from(profile.getStatus());
    if (cached.experiment() == null) {
      engine.putProfile(name, spec);
      schedule(name, Optional.of(clock.instant()));
      return;
    }
    if (!reconcile(name) && !reconciled.contains(name) && !cached.experimentRunning()) {
      engine.putProfile(name, spec);
    }
  }

  @Override
  public void remove(String name) {
    ScheduledFuture<?> f = scheduled.remove(name);
    if (f != null) {
      f.cancel(false);
    }
    reconciled.remove(name);
    experiments.remove(name);
  }

  @Override
  public void statusChanged(String name) {
    schedule(name, Optional.of(clock.instant()));
  }

  /** Leading: writes on, and every known profile reconciled (its deadlines may have passed). */
  public void leadership(boolean leading) {
    experiments.setWrites(leading);
    if (leading) {
      for (String name : Set.copyOf(reconciled)) {
        schedule(name, Optional.of(clock.instant()));
      }
    }
  }

  /** Reconciles now; whether it succeeded. */
  private boolean reconcile(String name) {
    try {
      if (experiments.writes()) {
        followDeclaration(name);
      }
      schedule(name, experiments.reconcile(name));
      reconciled.add(name);
      return true;
    } catch (RuntimeException e) {
      log.warn("KollectProfile {}: reconciling its revisions and experiment failed, retrying in "
          + "{}s: {}", name, RETRY.toSeconds(), ProblemReports.firstLine(String.valueOf(e.getMessage())));
      schedule(name, Optional.of(clock.instant().plus(RETRY)));
      return false;
    }
  }

  /**
   * A declared experiment ({@link DeclaredExperiment}) starts when its id is not the profile's
   * experiment yet; when the declaration goes, the running experiment it started is promoted
   * (the spec is now the candidate) or stopped (the spec is still the baseline); any other spec
   * aborts it as usual. A declaration while another experiment runs waits for it to end.
   */
  private void followDeclaration(String name) {
    Optional<ProfileExperiments.StartRequest> declared;
    try {
      declared = history.declared(name);
    } catch (IllegalArgumentException e) {
      if (warnedDeclarations.add(name + "\n" + e.getMessage())) {
        log.warn("KollectProfile {}: {}", name, e.getMessage());
      }
      return;
    }
    Optional<ProfileHistory.Snapshot> read = history.read(name);
    if (read.isEmpty() || read.get().state().currentRevision() == null) {
      return;
    }
    ProfileState state = read.get().state();
    Experiment e = state.experiment();
    try {
      if (declared.isPresent()) {
        ProfileExperiments.StartRequest d = declared.get();
        if (e == null || (!e.running() && !e.id().equals(d.id()))) {
          experiments.start(name, d.withNote(DeclaredExperiment.MESSAGE));
        }
      } else if (e != null && e.running() && DeclaredExperiment.MESSAGE.equals(e.message())) {
        String hash = ProfileRevision.specHash(read.get().spec());
        if (hash.equals(e.expectedSpecHash())) {
          experiments.promote(name, e.id());
        } else if (ProfileRevision.name(name, hash).equals(e.baselineRevision())) {
          experiments.stop(name, e.id());
        }
      }
    } catch (ExperimentRejectedException ex) {
      if (warnedDeclarations.add(name + "\n" + ex.getMessage())) {
        log.warn("KollectProfile {}: declared experiment: {}", name, ex.getMessage());
      }
    }
  }

  private void schedule(String name, Optional<Instant> at) {
    ScheduledFuture<?> old = at.isEmpty() ? scheduled.remove(name) : null;
    if (old != null) {
      old.cancel(false);
    }
    if (at.isEmpty() || timers.isShutdown()) {
      return;
    }
    long delay = Math.max(0, Duration.between(clock.instant(), at.get()).toMillis());
    ScheduledFuture<?> next = timers.schedule(() -> {
      scheduled.remove(name);
      reconcile(name);
    }, delay, TimeUnit.MILLISECONDS);
    ScheduledFuture<?> replaced = scheduled.put(name, next);
    if (replaced != null) {
      replaced.cancel(false);
    }
  }

  @Override
  public void close() {
    timers.shutdownNow();
    scheduled.clear();
  }
}

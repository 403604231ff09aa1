package io.kollect.operator.profile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kollect.core.KollectEngine;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ProfileValidationException;
import io.kollect.operator.crd.KindWatch;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectProfileSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.status.FeedContext;
import io.kollect.operator.status.ProblemReports;
import io.kollect.operator.status.ResourceStatuses;
import io.kollect.operator.targets.CrTranslation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * KollectProfiles into the engine (through the {@link ProfileInput}, the profile lifecycle in the
 * operator), and their problems back out: once in the log and as an Event, and on the leader in
 * the profile's status. A target naming a profile that does not exist is reported here too, as
 * only this feed sees profiles come and go; the target feed asks it for each target it puts.
 */
public final class ProfileFeed implements AutoCloseable {

  /** Where a profile's spec goes: the engine, or the profile lifecycle in front of it. */
  interface ProfileInput {
    void put(KollectProfile profile, ProfileSpec spec);

    void remove(String name);

    /** The profile's lifecycle status changed (someone started, promoted or stopped). */
    default void statusChanged(String name) {
    }

    /** Profiles straight into the engine. */
    static ProfileInput into(KollectEngine engine) {
      return new ProfileInput() {
        @Override
        public void put(KollectProfile profile, ProfileSpec spec) {
          engine.putProfile(profile.getMetadata().getName(), spec);
        }

        @Override
        public void remove(String name) {
          engine.removeProfile(name);
        }
      };
    }
  }

  private final FeedContext context;
  private final ProfileInput input;
  /** The readable KollectTargets (whose profileRefs are checked) in the handled namespaces. */
  private final Supplier<List<KollectTarget>> targets;
  /** Validation problems of KollectProfiles by name. */
  private final Map<String, String> problems = new ConcurrentHashMap<>();
  private volatile KindWatch<KollectProfile> watch;

  /**
   * @param targets every readable KollectTarget, for their {@code profileRef}s
   */
  public ProfileFeed(FeedContext context, ProfileInput input,
      Supplier<List<KollectTarget>> targets) {
    this.context = context;
    this.input = input;
    this.targets = targets;
  }

  /**
   * Starts the watch and waits for its first list.
   *
   * @throws IllegalStateException naming the kind and the cause when the first list fails
   */
  public void start() {
    watch = new KindWatch<>(context.client(), KollectProfile.class, KollectProfileSpec.class,
        false, context.resyncMillis(), context.handler(this::onProfile, this::onProfileDeleted,
            (before, after) -> {
              if (ProfileStates.lifecycleChanged(before, after)) {
                input.statusChanged(after.getMetadata().getName());
              }
            }, (object, message) -> { }));
    watch.startAndAwaitListed("KollectProfiles");
  }

  /** Whether the first list is in. */
  public boolean listed() {
    KindWatch<KollectProfile> w = watch;
    return w != null && w.hasSynced();
  }

  /** Reports every profile's known problem and every missing profile, for a new leader. */
  public void reportAll() {
    KindWatch<KollectProfile> w = watch;
    if (w != null) {
      w.list().forEach(this::report);
    }
    reportMissingProfiles();
  }

  void onProfile(KollectProfile profile) {
    String name = profile.getMetadata().getName();
    String problem = null;
    try {
      ProfileSpec spec = CrTranslation.profile(profile);
      input.put(profile, spec);
      problem = context.engine().profileError(name).orElse(null);
    } catch (ProfileValidationException e) {
      problem = e.getMessage();
    } catch (IllegalArgumentException e) {
      problem = "KollectProfile " + name + " is invalid: " + ProblemReports.firstLine(e.getMessage());
    }
    if (problem != null && problem.startsWith("profile " + name + " is invalid: ")) {
      problem = "KollectProfile " + problem.substring("profile ".length());
    }
    if (problem == null) {
      problems.remove(name);
    } else {
      problems.put(name, problem);
    }
    report(profile);
    reportMissingProfiles();
  }

  /** Logs (once), records as an event and writes to status the profile's known problem. */
  private void report(KollectProfile profile) {
    String name = profile.getMetadata().getName();
    String problem = problems.get(name);
    context.problems().report(profile, "InvalidProfile", "KollectProfile " + name, problem);
    KindWatch<KollectProfile> w = watch;
    if (context.leader().getAsBoolean() && w != null) {
      w.cached(name).ifPresent(cached -> context.status().write(cached, ResourceStatuses.profile(
          profile, problem, context.engine().profileWarnings(name), context.clock().instant()),
          ProfileStates.STATUS_KEYS));
    }
  }

  private void onProfileDeleted(HasMetadata profile) {
    input.remove(profile.getMetadata().getName());
    problems.remove(profile.getMetadata().getName());
    reportMissingProfiles();
  }

  private void reportMissingProfiles() {
    targets.get().stream()
        .filter(t -> context.namespaceFilter().test(t.getMetadata().getNamespace()))
        .forEach(this::reportMissingProfile);
  }

  /** Reports (or clears) the target's {@code ProfileNotFound} problem. */
  public void reportMissingProfile(KollectTarget target) {
    KindWatch<KollectProfile> w = watch;
    if (target.getSpec() == null || w == null) {
      return;
    }
    String ref = target.getSpec().profileRef();
    String id = target.getMetadata().getNamespace() + "/" + target.getMetadata().getName();
    boolean missing = w.get(ref).isEmpty();
    context.problems().report(target, "ProfileNotFound", "KollectTarget " + id, missing
        ? "KollectTarget " + id + ": spec.profileRef: KollectProfile \"" + ref + "\" does not exist"
        : null);
  }

  @Override
  public void close() {
    KindWatch<KollectProfile> w = watch;
    if (w != null) {
      w.close();
    }
  }
}

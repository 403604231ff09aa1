package io.kollect.operator.profile;

import io.kollect.core.lifecycle.Experiment;
import io.kollect.core.lifecycle.ExperimentMode;
import io.kollect.core.lifecycle.ExperimentPhase;
import io.kollect.core.lifecycle.ProfileState;
import io.kollect.extract.ProfileDiff;
import io.kollect.operator.crd.KollectProfileStatus;
import io.kollect.operator.crd.ProfileExperimentStatus;
import io.kollect.operator.status.ResourceStatuses;
import io.kollect.operator.targets.CrTranslation;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A profile's lifecycle state ({@link ProfileState}) to and from {@code KollectProfile.status}:
 * {@code currentRevision}, {@code previousRevision}, {@code deliveredRevision} and {@code
 * experiment}. The conditions are {@link ResourceStatuses}'; each writer keeps the other's keys.
 */
public final class ProfileStates {

  /** The status keys the lifecycle writes (the condition writer keeps them as stored). */
  public static final Set<String> STATUS_KEYS =
      Set.of("currentRevision", "previousRevision", "deliveredRevision", "experiment");

  private ProfileStates() {}

  /** Whether an update changed a lifecycle key of the status or the declared experiment. */
  static boolean lifecycleChanged(io.fabric8.kubernetes.api.model.GenericKubernetesResource before,
      io.fabric8.kubernetes.api.model.GenericKubernetesResource after) {
    if (!java.util.Objects.equals(DeclaredExperiment.text(before.getMetadata().getAnnotations()),
        DeclaredExperiment.text(after.getMetadata().getAnnotations()))) {
      return true;
    }
    Object b = before.getAdditionalProperties().get("status");
    Object a = after.getAdditionalProperties().get("status");
    for (String k : STATUS_KEYS) {
      if (!java.util.Objects.equals(b instanceof Map<?, ?> m ? m.get(k) : null,
          a instanceof Map<?, ?> m2 ? m2.get(k) : null)) {
        return true;
      }
    }
    return false;
  }

  /** The state in a status ({@link ProfileState#initial()} for none). */
  static ProfileState from(KollectProfileStatus status) {
    if (status == null) {
      return ProfileState.initial();
    }
    return new ProfileState(status.currentRevision(), status.previousRevision(),
        status.deliveredRevision(), experiment(status.experiment()));
  }

  /** {@code old} with the lifecycle keys of {@code state}. */
  static KollectProfileStatus apply(KollectProfileStatus old, ProfileState state) {
    KollectProfileStatus o = old == null ? new KollectProfileStatus(null, null) : old;
    return new KollectProfileStatus(o.observedGeneration(), o.conditions(), o.resources(),
        state.currentRevision(), state.previousRevision(), state.deliveredRevision(),
        status(state.experiment()));
  }

  static ProfileExperimentStatus status(Experiment e) {
    if (e == null) {
      return null;
    }
    ProfileDiff d = e.diff();
    ProfileExperimentStatus.ExperimentDiff diff = d == null ? null
        : new ProfileExperimentStatus.ExperimentDiff(d.objects(), d.added(), d.removed(),
            d.changed(), d.fieldChanges(), d.errors(), d.scrubHits(), d.bytesBaseline(),
            d.bytesCandidate());
    return new ProfileExperimentStatus(e.id(), e.phase().wire(), e.mode().wire(),
        time(e.startedAt()), time(e.deadline()), e.baselineRevision(), e.expectedSpecHash(),
        time(e.finishedAt()), e.message(), diff);
  }

  private static Experiment experiment(ProfileExperimentStatus s) {
    if (s == null || s.id() == null || s.baselineRevision() == null
        || s.expectedSpecHash() == null) {
      return null;
    }
    ProfileExperimentStatus.ExperimentDiff d = s.diff();
    ProfileDiff diff = d == null ? null : new ProfileDiff(n(d.objects()), n(d.added()),
        n(d.removed()), n(d.changed()), d.fieldChanges() == null ? Map.of() : d.fieldChanges(),
        n(d.errors()), n(d.scrubHits()), n(d.bytesBaseline()), n(d.bytesCandidate()), List.of());
    return Experiment.builder().id(s.id())
        .phase(ExperimentPhase.fromWire(s.phase()))
        .mode(s.mode() == null ? ExperimentMode.SHADOW : ExperimentMode.fromWire(s.mode()))
        .startedAt(instant(s.startedAt())).deadline(instant(s.deadline()))
        .baselineRevision(s.baselineRevision()).expectedSpecHash(s.expectedSpecHash())
        .finishedAt(instant(s.finishedAt())).message(s.message()).diff(diff).build();
  }

  private static long n(Long v) {
    return v == null ? 0 : v;
  }

  private static String time(Instant i) {
    return i == null ? null : CrTranslation.rfc3339(i);
  }

  private static Instant instant(String s) {
    return s == null || s.isBlank() ? null : Instant.parse(s);
  }
}

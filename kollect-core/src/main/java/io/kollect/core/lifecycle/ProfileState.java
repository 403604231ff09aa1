package io.kollect.core.lifecycle;

/**
 * A profile's lifecycle state as stored next to it (the operator: its status).
 *
 * @param currentRevision the revision of the spec last seen, or {@code null} before the first
 * @param previousRevision the revision current before it, or {@code null}
 * @param deliveredRevision the revision whose records sinks receive (the baseline while a shadow
 *     experiment runs), or {@code null}
 * @param experiment the experiment, running or terminal until cleared, or {@code null}
 */
public record ProfileState(String currentRevision, String previousRevision,
    String deliveredRevision, Experiment experiment) {

  /** The state of a profile never seen. */
  public static ProfileState initial() {
    return new ProfileState(null, null, null, null);
  }

  /** Whether an experiment runs. */
  public boolean experimentRunning() {
    return experiment != null && experiment.running();
  }

  public ProfileState withExperiment(Experiment e) {
    return new ProfileState(currentRevision, previousRevision, deliveredRevision, e);
  }

  public ProfileState withDelivered(String revision) {
    return new ProfileState(currentRevision, previousRevision, revision, experiment);
  }

  /** {@code revision} becomes current and the current one previous (unchanged when equal). */
  public ProfileState withCurrent(String revision) {
    if (revision.equals(currentRevision)) {
      return this;
    }
    return new ProfileState(revision, currentRevision, deliveredRevision, experiment);
  }
}

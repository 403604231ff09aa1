package io.kollect.core.lifecycle;

import io.kollect.extract.ProfileDiff;
import java.time.Instant;
import java.util.Objects;

/**
 * One experiment on a profile: a candidate spec tried against the baseline it replaced. Build
 * with {@link #builder()}; change with {@link #toBuilder()}.
 *
 * @param id the id given at start; promote and stop must name it
 * @param phase where it is
 * @param mode what sinks receive while it runs
 * @param startedAt when it started
 * @param deadline when a running experiment times out (kept in the store, so it survives
 *     restarts)
 * @param baselineRevision the revision that was current at start, restored by stop and timeout
 * @param expectedSpecHash {@link ProfileRevision#specHash} of the defaulted candidate: the spec
 *     the profile must get, any other spec aborts the experiment
 * @param finishedAt when it reached a terminal phase, or {@code null} while running; it is
 *     cleared a retention period (at least a minute) later
 * @param message why it reached its phase, for people (e.g. what aborted it)
 * @param diff the last shadow comparison of candidate and baseline (without samples), or {@code
 *     null}
 */
public record Experiment(
    String id,
    ExperimentPhase phase,
    ExperimentMode mode,
    Instant startedAt,
    Instant deadline,
    String baselineRevision,
    String expectedSpecHash,
    Instant finishedAt,
    String message,
    ProfileDiff diff) {

  public Experiment {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(baselineRevision, "baselineRevision");
    Objects.requireNonNull(expectedSpecHash, "expectedSpecHash");
  }

  /** Whether it is still running. */
  public boolean running() {
    return phase == ExperimentPhase.RUNNING;
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this experiment's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.id = id;
    b.phase = phase;
    b.mode = mode;
    b.startedAt = startedAt;
    b.deadline = deadline;
    b.baselineRevision = baselineRevision;
    b.expectedSpecHash = expectedSpecHash;
    b.finishedAt = finishedAt;
    b.message = message;
    b.diff = diff;
    return b;
  }

  /** The same experiment in a terminal phase, finished at {@code now}. */
  Experiment finish(ExperimentPhase terminal, Instant now, String why) {
    return toBuilder().phase(terminal).finishedAt(now).message(why).build();
  }

  /** Builds an {@link Experiment}; id, baselineRevision and expectedSpecHash are required. */
  public static final class Builder {
    private String id;
    private ExperimentPhase phase = ExperimentPhase.RUNNING;
    private ExperimentMode mode = ExperimentMode.SHADOW;
    private Instant startedAt;
    private Instant deadline;
    private String baselineRevision;
    private String expectedSpecHash;
    private Instant finishedAt;
    private String message;
    private ProfileDiff diff;

    private Builder() {}

    public Builder id(String id) {
      this.id = id;
      return this;
    }

    public Builder phase(ExperimentPhase phase) {
      this.phase = phase;
      return this;
    }

    public Builder mode(ExperimentMode mode) {
      this.mode = mode;
      return this;
    }

    public Builder startedAt(Instant startedAt) {
      this.startedAt = startedAt;
      return this;
    }

    public Builder deadline(Instant deadline) {
      this.deadline = deadline;
      return this;
    }

    public Builder baselineRevision(String baselineRevision) {
      this.baselineRevision = baselineRevision;
      return this;
    }

    public Builder expectedSpecHash(String expectedSpecHash) {
      this.expectedSpecHash = expectedSpecHash;
      return this;
    }

    public Builder finishedAt(Instant finishedAt) {
      this.finishedAt = finishedAt;
      return this;
    }

    public Builder message(String message) {
      this.message = message;
      return this;
    }

    public Builder diff(ProfileDiff diff) {
      this.diff = diff;
      return this;
    }

    public Experiment build() {
      return new Experiment(id, phase, mode, startedAt, deadline, baselineRevision,
          expectedSpecHash, finishedAt, message, diff);
    }
  }
}

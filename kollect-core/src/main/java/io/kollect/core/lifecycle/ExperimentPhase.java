package io.kollect.core.lifecycle;

import java.util.Arrays;
import java.util.Locale;

/** Where an experiment is; every phase but {@link #RUNNING} is terminal. */
public enum ExperimentPhase {
  /** The candidate is the profile's spec (or about to be) and is being evaluated. */
  RUNNING,
  /** The candidate was kept. */
  PROMOTED,
  /** Stopped by hand: the baseline spec was restored. */
  ROLLBACK,
  /** The deadline passed while running: the baseline spec was restored. */
  TIMEOUT,
  /** Someone else changed the spec while running; the experiment stopped interfering. */
  ABORTED;

  /** The word in status and on the command line ({@code running}, {@code rollback}, ...). */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether the experiment is over. */
  public boolean terminal() {
    return this != RUNNING;
  }

  /** The phase of a status word. */
  public static ExperimentPhase fromWire(String phase) {
    return Arrays.stream(values()).filter(p -> p.wire().equals(phase)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("experiment.phase: unknown phase \""
            + phase + "\" (running, promoted, rollback, timeout, aborted)"));
  }
}

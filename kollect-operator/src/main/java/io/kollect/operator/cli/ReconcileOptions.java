package io.kollect.operator.cli;

import io.kollect.operator.ReconcileSettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The reconcile flags of {@code kollect run}: they make its {@link ReconcileSettings}. */
final class ReconcileOptions {

  @Option(names = "--workers", paramLabel = "N", defaultValue = "2",
      description = "Reconcile worker threads (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--status-write-interval", paramLabel = "DURATION", defaultValue = "10s",
      converter = Converters.GoDuration.class,
      description = "Write a target's status at most once per this interval; changes in between "
          + "are coalesced (default: ${DEFAULT-VALUE}).")
  Duration statusWriteInterval;

  /** The settings; a value out of range is bad input (exit 2). */
  ReconcileSettings settings() {
    try {
      return new ReconcileSettings(workers, statusWriteInterval);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }
}

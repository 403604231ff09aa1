package io.kollect.operator.cli;

import io.kollect.operator.GuardSettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The guards' flags of {@code kollect run}: they make its {@link GuardSettings}. */
final class GuardOptions {

  @Option(names = "--circuit-breaker-failures", paramLabel = "N", defaultValue = "5",
      description = "Consecutive failed reconciles after which a target's circuit opens and it is "
          + "skipped for a growing cool-down; 0 turns the breaker off (default: ${DEFAULT-VALUE}).")
  int circuitBreakerFailures;

  @Option(names = "--circuit-breaker-max-cooldown", paramLabel = "DURATION", defaultValue = "10m",
      converter = Converters.GoDuration.class,
      description = "The longest cool-down of an open circuit (default: ${DEFAULT-VALUE}).")
  Duration circuitBreakerMaxCooldown;

  @Option(names = "--warn-objects-per-target", paramLabel = "N", defaultValue = "10000",
      description = "Objects past which a target reports the HighCardinality warning "
          + "(default: ${DEFAULT-VALUE}).")
  int warnObjectsPerTarget;

  /** The settings; a value out of range is bad input (exit 2). */
  GuardSettings settings() {
    try {
      return new GuardSettings(circuitBreakerFailures, circuitBreakerMaxCooldown,
          warnObjectsPerTarget);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }
}

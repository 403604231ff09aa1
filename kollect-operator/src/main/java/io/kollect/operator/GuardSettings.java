package io.kollect.operator;

import java.time.Duration;

/**
 * The guards' flags: the per-target circuit breaker and the cardinality
 * warning. The per-target cap and suspend are fields of the KollectTarget.
 *
 * @param circuitBreakerFailures consecutive failed reconciles that open a target's circuit
 *     ({@code --circuit-breaker-failures}; {@code 0} turns the breaker off)
 * @param circuitBreakerMaxCooldown the longest a target with an open circuit is skipped ({@code
 *     --circuit-breaker-max-cooldown})
 * @param warnObjectsPerTarget objects past which a target warns {@code HighCardinality} ({@code
 *     --warn-objects-per-target})
 */
public record GuardSettings(int circuitBreakerFailures, Duration circuitBreakerMaxCooldown,
    int warnObjectsPerTarget) {

  public static final int DEFAULT_CIRCUIT_BREAKER_FAILURES = 5;
  public static final Duration DEFAULT_CIRCUIT_BREAKER_MAX_COOLDOWN = Duration.ofMinutes(10);
  public static final int DEFAULT_WARN_OBJECTS_PER_TARGET = 10_000;

  public GuardSettings {
    if (circuitBreakerFailures < 0) {
      throw new IllegalArgumentException("--circuit-breaker-failures must be zero (off) or "
          + "positive, got " + circuitBreakerFailures);
    }
    SettingRules.positive(circuitBreakerMaxCooldown, "--circuit-breaker-max-cooldown");
    if (warnObjectsPerTarget < 1) {
      throw new IllegalArgumentException("--warn-objects-per-target must be at least 1, got "
          + warnObjectsPerTarget);
    }
  }

  /** The defaults: 5 failures, at most 10 minutes, a warning past 10,000 objects. */
  public static GuardSettings defaults() {
    return new GuardSettings(DEFAULT_CIRCUIT_BREAKER_FAILURES,
        DEFAULT_CIRCUIT_BREAKER_MAX_COOLDOWN, DEFAULT_WARN_OBJECTS_PER_TARGET);
  }
}

package io.kollect.core;

/**
 * The {@code HighCardinality} condition: a warning (Ready is not affected) when a target holds
 * more objects than the engine's threshold ({@link KollectEngineBuilder#warnObjectsPerTarget}),
 * or leaves some out because of its cap ({@link TargetSpec#maxObjects()}). Counted per (cluster,
 * target) unit, over the objects in scope that yield a record; O(1) per status.
 */
final class Cardinality {

  static final int DEFAULT_WARN_OBJECTS = 10_000;
  static final String REASON_CAPPED = "ObjectsCapped";
  static final String REASON_TOO_MANY = "TooManyObjects";
  static final String REASON_WITHIN = "WithinLimits";

  private Cardinality() {}

  /**
   * Adds the condition to {@code b}: {@code True} when capped or over the threshold; {@code
   * False} only once it was reported (a target that never had it carries none).
   */
  static void judge(StatusBuilder b, int inScope, TargetRuntime rt, int warn,
      TargetStatus previous) {
    int leftOut = rt.cap == null ? 0 : rt.cap.leftOutCount();
    if (leftOut > 0) {
      b.condition(Condition.HIGH_CARDINALITY, StatusBuilder.TRUE, REASON_CAPPED, inScope
          + " objects in scope; " + leftOut + " left out by limits.maxObjects=" + rt.cap.max
          + " (the first " + rt.cap.max + " keys in key order are exported)");
    } else if (inScope > warn) {
      b.condition(Condition.HIGH_CARDINALITY, StatusBuilder.TRUE, REASON_TOO_MANY, inScope
          + " objects in scope, more than the warning threshold of " + warn
          + " (--warn-objects-per-target); consider narrowing the scope or setting "
          + "limits.maxObjects");
    } else if (previous != null && previous.condition(Condition.HIGH_CARDINALITY) != null) {
      b.condition(Condition.HIGH_CARDINALITY, StatusBuilder.FALSE, REASON_WITHIN,
          inScope + " objects in scope, within " + warn);
    }
  }
}

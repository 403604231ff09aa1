package io.kollect.core;

/**
 * The arrange step most engine ITs share: an engine given the Deployment profile ({@link
 * EngineIT#deploymentProfile()}), a recording sink {@code rec} and one target reading one
 * namespace into it.
 *
 * @param engine the engine arranged
 * @param sink the sink {@code rec}
 * @param spec the target
 */
record OneTarget(KollectEngine engine, RecordingSink sink, TargetSpec spec) {

  /** Puts the profile, the sink and the target into {@code engine}; does not start it. */
  static OneTarget put(KollectEngine engine, String target, String namespace, String profile) {
    return put(engine, new RecordingSink("rec"),
        EngineIT.target(target, namespace, profile, "rec"));
  }

  /**
   * Puts the Deployment profile under the name {@code spec} refers to, {@code sink} and {@code
   * spec} into {@code engine}; does not start it.
   */
  static OneTarget put(KollectEngine engine, RecordingSink sink, TargetSpec spec) {
    engine.putProfile(spec.profileRef(), EngineIT.deploymentProfile());
    engine.putSink(sink, EngineIT.fastSink());
    engine.putTarget(spec);
    return new OneTarget(engine, sink, spec);
  }

  /** {@link #put}, then starts the engine. */
  static OneTarget started(KollectEngine engine, String target, String namespace,
      String profile) {
    OneTarget t = put(engine, target, namespace, profile);
    engine.start();
    return t;
  }

  /** {@link #started}, then waits until the target is {@code Ready}. */
  static OneTarget ready(KollectEngine engine, String target, String namespace, String profile) {
    OneTarget t = started(engine, target, namespace, profile);
    EngineIT.awaitStatus(engine, t.spec().id(), TargetStatus::ready);
    return t;
  }

  /** {@link #put(KollectEngine, RecordingSink, TargetSpec)}, started, once the target is ready. */
  static OneTarget ready(KollectEngine engine, RecordingSink sink, TargetSpec spec) {
    OneTarget t = put(engine, sink, spec);
    engine.start();
    EngineIT.awaitStatus(engine, spec.id(), TargetStatus::ready);
    return t;
  }
}

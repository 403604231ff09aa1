package io.kollect.operator.sink;

import io.kollect.operator.crd.KollectSinkSpec;

/**
 * {@code KollectSink.spec.suspend} apart from the sink's settings: toggling it pauses or resumes
 * the configured sink (which then receives only what changed meanwhile) instead of building a new
 * one, which would be handed every record again.
 */
final class SinkSuspend {

  private SinkSuspend() {}

  /** The spec's settings without {@code suspend}, to compare two specs by what builds the sink. */
  public static KollectSinkSpec withoutSuspend(KollectSinkSpec spec) {
    return spec == null ? null : new KollectSinkSpec(spec.type(), spec.file(), spec.http(),
        spec.batch(), spec.heartbeatInterval(), spec.tls(), null, spec.kafka(), spec.otlp(),
        spec.postgres());
  }
}

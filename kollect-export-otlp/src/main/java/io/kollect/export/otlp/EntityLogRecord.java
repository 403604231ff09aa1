package io.kollect.export.otlp;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.logs.data.Body;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.resources.Resource;

/**
 * One entity event as the OTLP exporter takes it: built directly from a record, never through the
 * SDK's logger and processors (they would queue, and drop when the queue fills).
 */
record EntityLogRecord(Resource resource, InstrumentationScopeInfo scope, long epochNanos,
    String eventName, Attributes attributes, Value<?> bodyValue) implements LogRecordData {

  @Override
  public Resource getResource() {
    return resource;
  }

  @Override
  public InstrumentationScopeInfo getInstrumentationScopeInfo() {
    return scope;
  }

  @Override
  public long getTimestampEpochNanos() {
    return epochNanos;
  }

  /** The state was observed when Kollect saw it: both timestamps are {@code observedAt}. */
  @Override
  public long getObservedTimestampEpochNanos() {
    return epochNanos;
  }

  @Override
  public SpanContext getSpanContext() {
    return SpanContext.getInvalid();
  }

  @Override
  public Severity getSeverity() {
    return Severity.INFO;
  }

  @Override
  public String getSeverityText() {
    return null;
  }

  @Override
  @SuppressWarnings("deprecation") // the interface still requires it; getBodyValue is what is sent
  public Body getBody() {
    return bodyValue == null ? Body.empty() : Body.string(bodyValue.asString());
  }

  @Override
  public Value<?> getBodyValue() {
    return bodyValue;
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public int getTotalAttributeCount() {
    return attributes.size();
  }

  @Override
  public String getEventName() {
    return eventName;
  }
}

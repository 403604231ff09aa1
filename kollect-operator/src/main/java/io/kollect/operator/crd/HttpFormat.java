package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code KollectSink.spec.http.format}: what one request of an http sink carries. */
public enum HttpFormat {
  /** A JSON array of records (the default). */
  @JsonProperty("records")
  RECORDS,
  /** CloudEvents, batched content mode: one JSON array of structured events per batch. */
  @JsonProperty("cloudevents")
  CLOUDEVENTS,
  /** CloudEvents, binary content mode: one request per record, attributes as ce-* headers. */
  @JsonProperty("cloudevents-binary")
  CLOUDEVENTS_BINARY
}

/**
 * The otlp sink: records as OpenTelemetry entity events, sent to any OTLP receiver.
 *
 * <p>{@link io.kollect.export.otlp.OtlpSink} is an {@link io.kollect.export.Sink} configured by
 * {@link io.kollect.export.otlp.OtlpSinkConfig}: UPSERT becomes an {@code entity.state} log
 * record, DELETE an {@code entity.delete}, sent with the opentelemetry-java OTLP exporters over
 * OTLP/HTTP (protobuf) or OTLP/gRPC, one export per batch, acknowledged only when the receiver
 * accepted it; {@link io.kollect.export.otlp.PartialSuccess} is what a receiver that dropped part
 * of a request said. This is its own artifact ({@code kollect-export-otlp}) so embedders that do
 * not use OpenTelemetry never get its exporter. Reference: {@code docs/sinks.md}, section "otlp",
 * and {@code docs/record-format.md}, "OTLP mapping".
 */
package io.kollect.export.otlp;

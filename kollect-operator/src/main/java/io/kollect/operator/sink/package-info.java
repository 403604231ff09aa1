/**
 * KollectSinks: their feed into the engine and their status ({@link
 * io.kollect.operator.sink.SinkFeed}), a sink's spec to a configured engine sink and its options ({@link
 * io.kollect.operator.sink.SinkTranslation}), its credentials read from Secrets ({@link
 * io.kollect.operator.sink.SecretValues}), suspend apart from the settings ({@link
 * io.kollect.operator.sink.SinkSuspend}), the kafka sinks' topic checks ({@link
 * io.kollect.operator.sink.KafkaSinkChecks}); per type, the translations that are more than a
 * few fields: the otlp sink ({@code OtlpSinkTranslation}), the http sink's CloudEvents format
 * and Standard Webhooks signing ({@code WebhookTranslation}) and the postgres sink ({@code
 * PostgresSinkTranslation}); the otlp sinks' partial successes for status and metrics ({@code
 * OtlpSinkReports}) and the postgres sinks' database checks ({@code PostgresSinkChecks}), both
 * kinds of destination check run in the background the same way ({@code BackgroundSinkChecks}).
 */
package io.kollect.operator.sink;

/**
 * KollectSinks: their feed into the engine and their status ({@link
 * io.kollect.operator.sink.SinkFeed}), a sink's spec to a configured engine sink and its options ({@link
 * io.kollect.operator.sink.SinkTranslation}), its credentials read from Secrets ({@link
 * io.kollect.operator.sink.SecretValues}), suspend apart from the settings ({@link
 * io.kollect.operator.sink.SinkSuspend}), and the kafka sinks' topic checks ({@link
 * io.kollect.operator.sink.KafkaSinkChecks}).
 */
package io.kollect.operator.sink;

/**
 * KollectSinks: a sink's spec to a configured engine sink and its options ({@link
 * io.kollect.operator.sink.SinkTranslation}), its credentials read from Secrets ({@link
 * io.kollect.operator.sink.SecretValues}), suspend apart from the settings ({@link
 * io.kollect.operator.sink.SinkSuspend}), the kafka sinks' topic checks ({@link
 * io.kollect.operator.sink.KafkaSinkChecks}), and the postgres sinks' spec ({@link
 * io.kollect.operator.sink.PostgresSinkTranslation}) and database checks ({@link
 * io.kollect.operator.sink.PostgresSinkChecks}).
 */
package io.kollect.operator.sink;

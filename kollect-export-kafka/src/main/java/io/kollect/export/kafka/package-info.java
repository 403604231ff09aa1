/**
 * The kafka sink: records into a Kafka topic whose compacted content is the inventory.
 *
 * <p>{@link io.kollect.export.kafka.KafkaSink} is an {@link io.kollect.export.Sink} configured by
 * {@link io.kollect.export.kafka.KafkaSinkConfig}: one message per object state under the record
 * identity ({@link io.kollect.export.kafka.KafkaSink#messageKey}), tombstones for deletes, an
 * idempotent {@code acks=all} producer, acknowledgement only after the brokers' ack. {@link
 * io.kollect.export.kafka.TopicCheck} is the outcome of the topic check, shaped for a status
 * condition. This is its own artifact ({@code kollect-export-kafka}) so embedders that do not use
 * Kafka never get {@code kafka-clients}. Reference: {@code docs/sinks.md}, section "kafka".
 */
package io.kollect.export.kafka;

package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.kollect.export.kafka.KafkaSink;
import io.kollect.operator.crd.KollectSink;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** KollectSink {@code type: kafka} to a {@link KafkaSink} (issue 15), without Secrets. */
class KafkaSinkTranslationTest {

  private final SinkTranslation translation = new SinkTranslation(null);

  private static KollectSink sink(String spec) {
    return Serialization.unmarshal("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: fleet, namespace: platform}
        spec:
        %s
        """.formatted(spec.indent(2)), KollectSink.class);
  }

  @Test
  void theIssuesShapeWithoutSecretsBuildsAKafkaSinkWithLinger5msAndNoHeartbeat() {
    var built = translation.build("platform/fleet", sink("""
        type: kafka
        kafka:
          bootstrapServers: ["kafka-0.kafka:9092", "[::1]:9093"]
          topic: kollect-inventory
          deletes: both
          createTopic: {partitions: 12, replicationFactor: 3, deleteRetention: 48h}
          deliveryTimeout: 10s
        """));
    assertThat(built.sink()).isInstanceOf(KafkaSink.class);
    assertThat(built.sink().name()).isEqualTo("platform/fleet");
    assertThat(built.options().linger()).isEqualTo(Duration.ofMillis(5));
    assertThat(built.options().heartbeatInterval()).isEqualTo(Duration.ZERO);
    assertThat(built.warnings()).isEmpty();
    built.sink().close();
  }

  @Test
  void batchAndHeartbeatInTheSpecOverrideTheKafkaDefaults() {
    var built = translation.build("platform/fleet", sink("""
        type: kafka
        kafka: {bootstrapServers: ["kafka:9092"], topic: t}
        batch: {linger: 50ms}
        heartbeatInterval: 1h
        """));
    assertThat(built.options().linger()).isEqualTo(Duration.ofMillis(50));
    assertThat(built.options().heartbeatInterval()).isEqualTo(Duration.ofHours(1));
    built.sink().close();
  }

  @Test
  void eachUnusableKafkaSettingIsReportedNamingItsField() {
    assertThatThrownBy(() -> translation.build("p/f", sink("type: kafka")))
        .hasMessage("spec.kafka: is required for type kafka");
    assertThatThrownBy(() -> translation.build("p/f", sink("type: kafka\nkafka: {topic: t}")))
        .hasMessageStartingWith("spec.kafka.bootstrapServers: is required");
    assertThatThrownBy(() -> translation.build("p/f",
        sink("type: kafka\nkafka: {bootstrapServers: [kafka-0], topic: t}")))
        .hasMessage("spec.kafka.bootstrapServers: 'kafka-0' is not host:port");
    assertThatThrownBy(() -> translation.build("p/f",
        sink("type: kafka\nkafka: {bootstrapServers: [\"k:9092\"]}")))
        .hasMessage("spec.kafka.topic: is required");
    assertThatThrownBy(() -> translation.build("p/f",
        sink("type: kafka\nkafka: {bootstrapServers: [\"k:9092\"], topic: \" \"}")))
        .hasMessage("spec.kafka.topic: is required");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: kafka\nkafka: {bootstrapServers: [\"k:9092\"], topic: t, createTopic: {partitions: 0, replicationFactor: 1}}")))
        .hasMessageStartingWith("spec.kafka.createTopic.partitions:");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: kafka\nkafka: {bootstrapServers: [\"k:9092\"], topic: t, deliveryTimeout: 10ms}")))
        .hasMessageStartingWith("spec.kafka.deliveryTimeout: must be at least 1s");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: kafka\nkafka: {bootstrapServers: [\"k:9092\"], topic: t, sasl: {mechanism: GSSAPI, secretRef: {name: s}}}")))
        .hasMessageStartingWith("spec.kafka.sasl.mechanism: one of SCRAM-SHA-512");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: kafka\nkafka: {bootstrapServers: [\"k:9092\"], topic: t}\ntls: {insecureSkipVerify: true}")))
        .hasMessageStartingWith("spec.tls: type kafka takes its TLS settings in spec.kafka.tls");
  }
}

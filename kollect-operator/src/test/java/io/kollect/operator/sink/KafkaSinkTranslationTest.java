package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.kafka.KafkaSink;
import io.kollect.operator.crd.KollectSink;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** KollectSink {@code type: kafka} to a {@link KafkaSink} without Secrets. */
class KafkaSinkTranslationTest {

  private final SinkTranslation translation = new SinkTranslation(null);

  private static KollectSink sink(String spec) {
    return KollectSinkYaml.parse("platform", "fleet", spec);
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

  @Test
  void producerPropertiesForTuningReachTheSinksConfigTrimmed() {
    var built = translation.build("platform/fleet", sink("""
        type: kafka
        kafka:
          bootstrapServers: ["kafka:9092"]
          topic: t
          producerProperties:
            compression.type: zstd
            batch.size: " 65536 "
            max.in.flight.requests.per.connection: "3"
        """));
    assertThat(((KafkaSink) built.sink()).config().producerProperties()).isEqualTo(java.util.Map.of(
        "compression.type", "zstd", "batch.size", "65536",
        "max.in.flight.requests.per.connection", "3"));
    built.sink().close();
  }

  @Test
  void aProducerPropertyTheOperatorDoesNotAllowIsRefusedNamingTheKey() {
    for (String key : java.util.List.of("acks", "enable.idempotence", "interceptor.classes",
        "sasl.jaas.config", "ssl.truststore.location", "ssl.endpoint.identification.algorithm",
        "sasl.oauthbearer.token.endpoint.url", "linger.ms", "delivery.timeout.ms",
        "security.protocol", "no.such.setting")) {
      assertThatThrownBy(() -> translation.build("p/f", sink("""
          type: kafka
          kafka:
            bootstrapServers: ["k:9092"]
            topic: t
            producerProperties: {%s: "x"}
          """.formatted(key))))
          .as(key)
          .hasMessageStartingWith("spec.kafka.producerProperties." + key + ": is not allowed; "
              + "only tuning settings are (batch.size, buffer.memory, client.dns.lookup,");
    }
  }

  @Test
  void aBadProducerPropertyValueIsRefusedWithKafkaClientsReason() {
    assertThatThrownBy(() -> translation.build("p/f", sink("""
        type: kafka
        kafka: {bootstrapServers: ["k:9092"], topic: t, producerProperties: {compression.type: zip}}
        """)))
        .hasMessageStartingWith("spec.kafka.producerProperties.compression.type: 'zip' is not "
            + "valid: Invalid value zip for configuration compression.type");
    assertThatThrownBy(() -> translation.build("p/f", sink("""
        type: kafka
        kafka: {bootstrapServers: ["k:9092"], topic: t, producerProperties: {batch.size: many}}
        """)))
        .hasMessageStartingWith("spec.kafka.producerProperties.batch.size: 'many' is not valid");
    assertThatThrownBy(() -> translation.build("p/f", sink("""
        type: kafka
        kafka:
          bootstrapServers: ["k:9092"]
          topic: t
          producerProperties: {max.in.flight.requests.per.connection: "6"}
        """)))
        .hasMessageStartingWith("spec.kafka.producerProperties: max.in.flight.requests.per"
            + ".connection above 5 loses per-key order");
  }

  @Test
  void aProducerMemorySettingAboveTheOperatorsLimitIsRefusedNamingTheLimit() {
    assertThatThrownBy(() -> translation.build("p/f", sink("""
        type: kafka
        kafka: {bootstrapServers: ["k:9092"], topic: t,
            producerProperties: {batch.size: "1073741824"}}
        """)))
        .hasMessageStartingWith("spec.kafka.producerProperties.batch.size: 1073741824 is above "
            + "the operator's limit of 1048576 bytes");
    assertThatThrownBy(() -> translation.build("p/f", sink("""
        type: kafka
        kafka: {bootstrapServers: ["k:9092"], topic: t,
            producerProperties: {buffer.memory: "68157440"}}
        """)))
        .hasMessageStartingWith("spec.kafka.producerProperties.buffer.memory: 68157440 is above "
            + "the operator's limit of 67108864 bytes");
    var atTheLimit = translation.build("p/f", sink("""
        type: kafka
        kafka: {bootstrapServers: ["k:9092"], topic: t, producerProperties: {batch.size: "1048576"}}
        """));
    assertThat(((KafkaSink) atTheLimit.sink()).config().producerProperties())
        .containsEntry("batch.size", "1048576");
    atTheLimit.sink().close();
  }

  @Test
  void everyAllowedProducerPropertyIsASettingOfTheBundledKafkaClients() {
    assertThat(org.apache.kafka.clients.producer.ProducerConfig.configNames())
        .containsAll(SinkTranslation.KAFKA_PRODUCER_PROPERTIES);
  }
}

package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.kafka.KafkaSinkConfig.Deletes;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** The message key, value and headers of each record, without a broker. */
class MessageShapeTest {

  private static KafkaSink sink(Deletes deletes) {
    return new KafkaSink("k", KafkaSinkConfig.builder().bootstrapServers("127.0.0.1:1")
        .topic("inv").deletes(deletes).build());
  }

  @Test
  void messageKeyIsClusterTargetGroupKindNamespaceNameWithEmptyCoreGroup() {
    assertThat(KafkaSink.messageKey(InventoryRecords.configMap("cm-7", 1)))
        .isEqualTo("prod-eu-1/platform/cms//ConfigMap/load/cm-7");
  }

  @Test
  void messageKeyOfAClusterScopedObjectHasAnEmptyNamespaceAndOfAGroupedKindItsGroup() {
    Record ns = InventoryRecords.record(InventoryRecords.NAMESPACE, null, "load", 1, "");
    Record deploy = InventoryRecords.record(InventoryRecords.DEPLOYMENT, "load", "web", 1, "");
    assertThat(KafkaSink.messageKey(ns)).isEqualTo("prod-eu-1/platform/cms//Namespace//load");
    assertThat(KafkaSink.messageKey(deploy))
        .isEqualTo("prod-eu-1/platform/cms/apps/Deployment/load/web");
  }

  @Test
  void messageKeyDoesNotDependOnTheApiVersion() {
    Record v1 = InventoryRecords.record(
        new io.kollect.extract.GroupVersionKind("apps", "v1", "Deployment"), "load", "web", 1, "");
    Record v2 = InventoryRecords.record(
        new io.kollect.extract.GroupVersionKind("apps", "v2", "Deployment"), "load", "web", 1, "");
    assertThat(KafkaSink.messageKey(v1)).isEqualTo(KafkaSink.messageKey(v2));
  }

  @Test
  void upsertValueIsTheRecordJsonWithOpContentHashAndSequenceHeaders() {
    Record r = InventoryRecords.configMap("cm-7", 3).withSequence(42);
    List<ProducerRecord<byte[], byte[]>> messages = sink(Deletes.TOMBSTONE).messages(r);
    assertThat(messages).hasSize(1);
    ProducerRecord<byte[], byte[]> m = messages.get(0);
    assertThat(new String(m.key(), StandardCharsets.UTF_8))
        .isEqualTo("prod-eu-1/platform/cms//ConfigMap/load/cm-7");
    assertThat(Records.fromJson(new String(m.value(), StandardCharsets.UTF_8))).isEqualTo(r);
    assertThat(headers(m)).containsExactly(Map.entry("op", "UPSERT"),
        Map.entry("contentHash", r.contentHash()), Map.entry("sequence", "42"));
  }

  @Test
  void deleteWithTombstoneIsOneNullValueUnderTheSameKey() {
    Record delete = InventoryRecords.configMap("cm-7", 3).tombstone(InventoryRecords.T0)
        .withSequence(43);
    List<ProducerRecord<byte[], byte[]>> messages = sink(Deletes.TOMBSTONE).messages(delete);
    assertThat(messages).hasSize(1);
    assertThat(messages.get(0).value()).isNull();
    assertThat(new String(messages.get(0).key(), StandardCharsets.UTF_8))
        .isEqualTo(InventoryRecords.key("cm-7"));
    assertThat(headers(messages.get(0))).containsExactly(Map.entry("op", "DELETE"),
        Map.entry("sequence", "43"));
  }

  @Test
  void deleteWithRecordIsTheDeleteRecordJson() {
    Record delete = InventoryRecords.configMap("cm-7", 3).tombstone(InventoryRecords.T0)
        .withSequence(43);
    List<ProducerRecord<byte[], byte[]>> messages = sink(Deletes.RECORD).messages(delete);
    assertThat(messages).hasSize(1);
    assertThat(Records.fromJson(new String(messages.get(0).value(), StandardCharsets.UTF_8)))
        .isEqualTo(delete);
  }

  @Test
  void deleteWithBothIsTheDeleteRecordThenATombstone() {
    Record delete = InventoryRecords.configMap("cm-7", 3).tombstone(InventoryRecords.T0)
        .withSequence(43);
    List<ProducerRecord<byte[], byte[]>> messages = sink(Deletes.BOTH).messages(delete);
    assertThat(messages).hasSize(2);
    assertThat(Records.fromJson(new String(messages.get(0).value(), StandardCharsets.UTF_8)))
        .isEqualTo(delete);
    assertThat(messages.get(1).value()).isNull();
    assertThat(messages).allSatisfy(m -> assertThat(new String(m.key(), StandardCharsets.UTF_8))
        .isEqualTo(InventoryRecords.key("cm-7")));
  }

  @Test
  void defaultOptionsLingerFiveMillisecondsWithoutHeartbeat() {
    assertThat(KafkaSink.defaultOptions().linger()).hasMillis(5);
    assertThat(KafkaSink.defaultOptions().heartbeatInterval()).isZero();
  }

  @Test
  void producerPropertiesThatWeakenDeliveryAreRefused() {
    assertThatThrownBy(() -> KafkaSinkConfig.builder().bootstrapServers("b:9092").topic("t")
        .producerProperty("acks", "1").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks");
    assertThatThrownBy(() -> KafkaSinkConfig.builder().bootstrapServers("b:9092").topic("t")
        .producerProperty("max.in.flight.requests.per.connection", "10").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("order");
  }

  @Test
  void producerIsIdempotentWithAcksAllAndBoundedWaits() throws Exception {
    KafkaSinkConfig config = KafkaSinkConfig.builder().bootstrapServers("b:9092").topic("t")
        .deliveryTimeout(java.time.Duration.ofSeconds(7)).build();
    Map<String, Object> p = ClientProperties.producer(config, Credentials.read(config), "c");
    assertThat(p).containsEntry("enable.idempotence", true).containsEntry("acks", "all")
        .containsEntry("linger.ms", 5).containsEntry("max.in.flight.requests.per.connection", 5)
        .containsEntry("delivery.timeout.ms", 7000).containsEntry("max.block.ms", 7000L);
  }

  @Test
  void saslAndTlsBecomeJaasAndPemSettingsAndThePasswordIsNeverPrinted() throws Exception {
    KafkaSinkConfig config = KafkaSinkConfig.builder().bootstrapServers("b:9093").topic("t")
        .tls(new KafkaSinkConfig.Tls("-----BEGIN CERTIFICATE-----ca", null, null))
        .sasl(new KafkaSinkConfig.Sasl(KafkaSinkConfig.SaslMechanism.SCRAM_SHA_512, "kollect",
            "s\"cret"))
        .build();
    Map<String, Object> p = ClientProperties.producer(config, Credentials.read(config), "c");
    assertThat(p).containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("ssl.truststore.type", "PEM")
        .containsEntry("ssl.truststore.certificates", "-----BEGIN CERTIFICATE-----ca");
    assertThat((String) p.get("sasl.jaas.config")).isEqualTo(
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"kollect\""
            + " password=\"s\\\"cret\";");
    assertThat(config.toString()).doesNotContain("cret");
    assertThat(Credentials.read(config).toString()).doesNotContain("cret").doesNotContain("ca");
  }

  private static Map<String, String> headers(ProducerRecord<byte[], byte[]> m) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Header h : m.headers()) {
      out.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
    }
    return out;
  }
}

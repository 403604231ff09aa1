package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kollect.export.kafka.TopicCheck;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkStatus;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.status.ResourceStatuses;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A kafka sink's topic check in its KollectSink status, and its metrics. */
class KafkaSinkStatusTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final OperatorMetrics.Delivery DELIVERING = new OperatorMetrics().delivery("x");

  private static final KollectSink SINK = Serialization.unmarshal("""
      apiVersion: kollect.io/v1alpha1
      kind: KollectSink
      metadata: {name: fleet, namespace: platform, generation: 3}
      spec:
        type: kafka
        kafka: {bootstrapServers: ["kafka:9092"], topic: inv}
      """, KollectSink.class);

  private static Map<String, Condition> conditions(TopicCheck check) {
    KollectSinkStatus status = ResourceStatuses.sink(SINK, null, DELIVERING, List.of(), check, 1,
        NOW);
    Map<String, Condition> out = new java.util.HashMap<>();
    status.conditions().forEach(c -> out.put(c.getType(), c));
    return out;
  }

  @Test
  void aTopicThatIsNotCompactedIsAWarningConditionAndTheSinkStaysReady() {
    var c = conditions(new TopicCheck(TopicCheck.Status.WARNING, "TopicNotCompacted",
        "topic inv on kafka:9092 has cleanup.policy=delete, not compact"));
    assertThat(c.get("Ready").getStatus()).isEqualTo("True");
    assertThat(c.get("Warning").getStatus()).isEqualTo("True");
    assertThat(c.get("Warning").getReason()).isEqualTo("TopicNotCompacted");
    assertThat(c.get("Warning").getMessage()).contains("cleanup.policy=delete");
  }

  @Test
  void aMissingOrUncheckableTopicIsReadyFalseWithTheChecksReasonAndMessage() {
    for (String reason : List.of("TopicMissing", "TopicCheckFailed")) {
      var c = conditions(new TopicCheck(TopicCheck.Status.ERROR, reason, "topic inv: " + reason));
      assertThat(c.get("Ready").getStatus()).isEqualTo("False");
      assertThat(c.get("Ready").getReason()).isEqualTo(reason);
      assertThat(c.get("Ready").getMessage()).isEqualTo("topic inv: " + reason);
      assertThat(c.get("Degraded").getStatus()).isEqualTo("True");
      assertThat(c).doesNotContainKey("Warning");
    }
  }

  @Test
  void aReadyOrNotYetCheckedTopicAddsNothingToTheUsualConditions() {
    for (TopicCheck.Status s : List.of(TopicCheck.Status.READY, TopicCheck.Status.UNKNOWN)) {
      var c = conditions(new TopicCheck(s, "TopicReady", "fine"));
      assertThat(c.get("Ready").getStatus()).isEqualTo("True");
      assertThat(c.get("Ready").getReason()).isEqualTo("Configured");
      assertThat(c).containsOnlyKeys("Ready", "Degraded");
    }
  }

  @Test
  void theLagAndThreeProducerMetricsArePublishedPerSink() {
    OperatorMetrics metrics = new OperatorMetrics();
    metrics.kafkaSink("platform/fleet", 7, Map.of(
        "producer-metrics:record-send-rate{client-id=kollect-platform/fleet}", 1250.5,
        "producer-metrics:request-latency-avg{client-id=kollect-platform/fleet}", 3.25,
        "producer-metrics:record-error-total{client-id=kollect-platform/fleet}", 2.0,
        "producer-metrics:batch-size-avg{client-id=kollect-platform/fleet}", 99.0));
    String scrape = metrics.scrape();
    assertThat(scrape)
        .contains("kollect_export_kafka_lag{sink=\"platform/fleet\"} 7.0")
        .contains("kollect_kafka_producer_record_send_rate{sink=\"platform/fleet\"} 1250.5")
        .contains("kollect_kafka_producer_request_latency_avg_ms{sink=\"platform/fleet\"} 3.25")
        .contains("kollect_kafka_producer_record_errors{sink=\"platform/fleet\"} 2.0")
        .doesNotContain("batch_size");

    metrics.kafkaSink("platform/fleet", 0, Map.of(
        "producer-metrics:record-send-rate{client-id=kollect-platform/fleet}", 10.0));
    assertThat(metrics.scrape())
        .contains("kollect_export_kafka_lag{sink=\"platform/fleet\"} 0.0")
        .contains("kollect_kafka_producer_record_send_rate{sink=\"platform/fleet\"} 10.0");
  }

  @Test
  void theMetersOfARemovedKafkaSinkAreDroppedAndRegisteredAfreshWhenOneOfThatNameComesBack() {
    OperatorMetrics metrics = new OperatorMetrics();
    Map<String, Double> producer = Map.of(
        "producer-metrics:record-send-rate{client-id=kollect-platform/fleet}", 5.0,
        "producer-metrics:request-latency-avg{client-id=kollect-platform/fleet}", 1.5,
        "producer-metrics:record-error-total{client-id=kollect-platform/fleet}", 0.0);
    metrics.kafkaSink("platform/fleet", 3, producer);
    metrics.kafkaSink("platform/fleet-eu", 4, Map.of(
        "producer-metrics:record-send-rate{client-id=kollect-platform/fleet-eu}", 6.0));

    metrics.kafkaSinkRemoved("platform/fleet");
    assertThat(metrics.scrape())
        .doesNotContain("sink=\"platform/fleet\"")
        .contains("kollect_export_kafka_lag{sink=\"platform/fleet-eu\"} 4.0")
        .contains("kollect_kafka_producer_record_send_rate{sink=\"platform/fleet-eu\"} 6.0");

    metrics.kafkaSink("platform/fleet", 1, producer);
    assertThat(metrics.scrape())
        .contains("kollect_export_kafka_lag{sink=\"platform/fleet\"} 1.0")
        .contains("kollect_kafka_producer_record_send_rate{sink=\"platform/fleet\"} 5.0");
  }

  /**
   * Through {@link KafkaSinkChecks}, as the operator's sink-health loop publishes: a kafka sink
   * that is removed, or replaced by a sink of another type, loses its meters at the next publish.
   */
  @Test
  void aKafkaSinkRemovedOrTurnedIntoAnotherTypeLosesItsLagGaugeAtTheNextPublish() {
    OperatorMetrics metrics = new OperatorMetrics();
    try (KafkaSinkChecks checks = new KafkaSinkChecks(name -> { }, java.time.Clock.systemUTC())) {
      for (String name : List.of("platform/a", "platform/b", "platform/c")) {
        // nothing listens on port 1: the check fails after a second, in the background
        checks.put(name, new io.kollect.export.kafka.KafkaSink(name,
            io.kollect.export.kafka.KafkaSinkConfig.builder().bootstrapServers("127.0.0.1:1")
                .topic("inv").deliveryTimeout(java.time.Duration.ofSeconds(1)).build()));
      }
      checks.publish(metrics);
      assertThat(metrics.scrape())
          .contains("kollect_export_kafka_lag{sink=\"platform/a\"} 0.0")
          .contains("kollect_export_kafka_lag{sink=\"platform/b\"} 0.0")
          .contains("kollect_export_kafka_lag{sink=\"platform/c\"} 0.0");

      checks.remove("platform/a");
      checks.put("platform/b", new io.kollect.export.StdoutSink("platform/b"));
      checks.publish(metrics);
      assertThat(metrics.scrape())
          .doesNotContain("sink=\"platform/a\"")
          .doesNotContain("sink=\"platform/b\"")
          .contains("kollect_export_kafka_lag{sink=\"platform/c\"} 0.0");
    }
  }
}

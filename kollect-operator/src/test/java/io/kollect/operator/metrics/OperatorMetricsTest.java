package io.kollect.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.core.Condition;
import io.kollect.core.TargetId;
import io.kollect.core.TargetStatus;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import io.kollect.operator.inventory.InventoryHealth;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {

  private static TargetStatus status(Map<String, Integer> counts) {
    return new TargetStatus(new TargetId("ns", "t"), 1,
        List.of(new Condition("Ready", "True", "Reconciled", "ok", Instant.EPOCH)), counts, List.of(), null);
  }

  @Test
  void watchEventsAreCountedPerTypeAndKindAndCachedObjectsFollowTheLastCount() throws Exception {
    OperatorMetrics metrics = new OperatorMetrics();
    ResourceType cm = new ResourceType("", "v1", "ConfigMap");
    ResourceType deploy = new ResourceType("apps", "v1", "Deployment");
    for (int i = 0; i < 3; i++) {
      metrics.event(cm, ResourceEvent.Kind.ADDED);
    }
    metrics.event(new ResourceType("", "v1", "ConfigMap"), ResourceEvent.Kind.UPDATED);
    metrics.event(deploy, ResourceEvent.Kind.ADDED);
    metrics.cachedObjects(cm, 3);
    metrics.cachedObjects(new ResourceType("", "v1", "ConfigMap"), 2);
    metrics.cachedObjects(deploy, 1);
    // events of one type from several threads at once all count
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] = new Thread(() -> {
        for (int i = 0; i < 1000; i++) {
          metrics.event(deploy, ResourceEvent.Kind.DELETED);
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }

    String scrape = metrics.scrape();
    assertThat(scrape)
        .contains("kollect_informer_events_total{kind=\"ADDED\",resource=\"v1/ConfigMap\"} 3.0")
        .contains("kollect_informer_events_total{kind=\"UPDATED\",resource=\"v1/ConfigMap\"} 1.0")
        .contains("kollect_informer_events_total{kind=\"ADDED\",resource=\"apps/v1/Deployment\"} 1.0")
        .contains("kollect_informer_events_total{kind=\"DELETED\",resource=\"apps/v1/Deployment\"} 4000.0")
        .contains("kollect_informer_cached_objects{resource=\"v1/ConfigMap\"} 2.0")
        .contains("kollect_informer_cached_objects{resource=\"apps/v1/Deployment\"} 1.0")
        // a kind never seen has no series
        .doesNotContain("kind=\"DELETED\",resource=\"v1/ConfigMap\"");
  }

  @Test
  void aResourceTypeWhoseObjectsAreAllGoneDropsToZero() {
    OperatorMetrics metrics = new OperatorMetrics();
    metrics.target(status(Map.of("v1/ConfigMap", 3, "apps/v1/Deployment", 2)));
    metrics.target(status(Map.of("apps/v1/Deployment", 1)));

    String scrape = metrics.scrape();
    assertThat(scrape).contains("kollect_target_objects{resource=\"v1/ConfigMap\",target=\"ns/t\"} 0.0");
    assertThat(scrape).contains("kollect_target_objects{resource=\"apps/v1/Deployment\",target=\"ns/t\"} 1.0");
  }

  @Test
  void objectsFailingExtractionAreCountedPerTargetAndTheCountClearsWhenTheyAreFixed() {
    OperatorMetrics metrics = new OperatorMetrics();
    TargetStatus failing = new TargetStatus(new TargetId("ns", "t"), 1, List.of(),
        Map.of("v1/ConfigMap", 1), List.of(), null, 2, List.of(
            new io.kollect.core.ExtractionError("v1/ConfigMap", "ns", "a", "bad"),
            new io.kollect.core.ExtractionError("v1/ConfigMap", "ns", "b", "bad")));
    metrics.target(failing);
    assertThat(metrics.scrape()).contains("kollect_target_extraction_errors{target=\"ns/t\"} 2.0");
    metrics.target(status(Map.of("v1/ConfigMap", 3)));
    assertThat(metrics.scrape()).contains("kollect_target_extraction_errors{target=\"ns/t\"} 0.0");
  }

  @Test
  void anOpenCircuitAndHighCardinalityArePublishedPerTargetAndClear() {
    OperatorMetrics metrics = new OperatorMetrics();
    List<io.kollect.core.Condition> guarded = List.of(
        new io.kollect.core.Condition("CircuitOpen", "True", "ConsecutiveFailures", "m",
            Instant.EPOCH),
        new io.kollect.core.Condition("HighCardinality", "True", "ObjectsCapped", "m",
            Instant.EPOCH));
    metrics.target(new TargetStatus(new TargetId("ns", "t"), 1, guarded, Map.of(), List.of(),
        null));
    assertThat(metrics.scrape()).contains("kollect_target_circuit_open{target=\"ns/t\"} 1.0")
        .contains("kollect_target_high_cardinality{target=\"ns/t\"} 1.0");

    metrics.target(status(Map.of("v1/ConfigMap", 3)));
    assertThat(metrics.scrape()).contains("kollect_target_circuit_open{target=\"ns/t\"} 0.0")
        .contains("kollect_target_high_cardinality{target=\"ns/t\"} 0.0");
  }

  @Test
  void inventoryPendingFailuresAndRejectionsArePublishedPerTarget() {
    OperatorMetrics metrics = new OperatorMetrics();
    metrics.inventory(new TargetId("ns", "t"), new InventoryHealth(5, 2, 3, Instant.EPOCH, "x", null,
        List.of(new InventoryHealth.RejectedRecord("k", "ConfigMap ns/big", 2_000_000, "too big"))));
    String scrape = metrics.scrape();
    assertThat(scrape).contains("kollect_inventory_pending_records{target=\"ns/t\"} 2.0");
    assertThat(scrape).contains("kollect_inventory_consecutive_failures{target=\"ns/t\"} 3.0");
    assertThat(scrape).contains("kollect_inventory_rejected_records{target=\"ns/t\"} 1.0");

    metrics.targetRemoved(new TargetId("ns", "t"));
    assertThat(metrics.scrape()).doesNotContain("target=\"ns/t\"");
  }

  @Test
  void perTargetSinkDeliveriesAndWatchRestartsByReasonArePublished() {
    OperatorMetrics metrics = new OperatorMetrics();
    metrics.deliveries(new TargetId("ns", "t"), java.util.Map.of("ns/hook",
        new io.kollect.export.DeliveryStatus(null, 4, 2, Instant.EPOCH, "HTTP 503", List.of())));
    metrics.watchRestarted(new io.kollect.informers.ResourceType("", "v1", "ConfigMap"), "silent");
    String scrape = metrics.scrape();
    assertThat(scrape).contains("kollect_target_sink_pending_records{sink=\"ns/hook\",target=\"ns/t\"} 4.0");
    assertThat(scrape).contains("kollect_target_sink_consecutive_failures{sink=\"ns/hook\",target=\"ns/t\"} 2.0");
    assertThat(scrape).containsPattern("kollect_watch_restarts_total\\{reason=\"silent\",resource=\"[^\"]*ConfigMap\"\\} 1.0");
  }

  @Test
  void aRemovedSinksExportMetersGoWhileAnotherSinksStayAndASinkOfThatNameStartsAfresh() {
    OperatorMetrics metrics = new OperatorMetrics();
    for (String sink : List.of("team/gone", "team/kept")) {
      metrics.sent(sink, 5);
      metrics.failed(sink, 2, false);
      metrics.queueDepth(sink, 3);
      metrics.lastSuccess(sink, Instant.ofEpochSecond(1_700_000_000));
    }

    metrics.sinkRemoved("team/gone");

    String scrape = metrics.scrape();
    assertThat(scrape).doesNotContain("sink=\"team/gone\"");
    assertThat(scrape).contains("kollect_export_records_sent_total{sink=\"team/kept\"} 5.0")
        .contains("kollect_export_queue_depth{sink=\"team/kept\"} 3.0");
    assertThat(metrics.delivery("team/gone").lastSuccess()).isNull();
    metrics.queueDepth("team/gone", 1);
    assertThat(metrics.scrape()).contains("kollect_export_queue_depth{sink=\"team/gone\"} 1.0");
  }
}

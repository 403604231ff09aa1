package io.kollect.operator.metrics;

import io.kollect.export.ExportMetrics;
import io.kollect.informers.InformerMetrics;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import io.kollect.operator.inventory.InventoryHealth;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Binds the exporter's and the informer registry's reports to Micrometer meters, exposed in the
 * Prometheus text format. Meter names are documented in {@code docs/operations.md}.
 */
public final class OperatorMetrics implements ExportMetrics, InformerMetrics {

  private final PrometheusMeterRegistry registry;
  private final AtomicLong informers = new AtomicLong();
  private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();
  private final Map<String, Delivery> deliveries = new ConcurrentHashMap<>();

  /**
   * How deliveries to one sink went lately, for its status.
   *
   * @param lastSuccess when a batch was last accepted, or {@code null}
   * @param lastFailure when a batch last failed, or {@code null}
   * @param failingSince the first failure after the last success, or {@code null}
   * @param failedRecords records in failed batches since the last success
   */
  public record Delivery(Instant lastSuccess, Instant lastFailure, Instant failingSince, long failedRecords) {
    /** Failing now: the last attempt failed. */
    public boolean failing() {
      return lastFailure != null && (lastSuccess == null || lastFailure.isAfter(lastSuccess));
    }
  }

  /** The delivery state of a sink; never {@code null}. */
  public Delivery delivery(String sink) {
    return deliveries.getOrDefault(sink, new Delivery(null, null, null, 0));
  }

  /** A registry with JVM and process metrics bound. */
  public OperatorMetrics() {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    Gauge.builder("kollect_informers", informers, AtomicLong::get)
        .description("Running shared informers")
        .register(registry);
  }

  /** The underlying registry, for hosts that add meters of their own. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The current values in the Prometheus text exposition format. */
  public String scrape() {
    return registry.scrape();
  }

  private Counter counter(String name, String description, String... tags) {
    return Counter.builder(name).description(description).tags(tags).register(registry);
  }

  private AtomicLong gauge(String name, String description, String... tags) {
    String key = name + "|" + String.join(",", tags);
    return gauges.computeIfAbsent(key, k -> {
      AtomicLong value = new AtomicLong();
      Gauge.builder(name, value, AtomicLong::get).description(description).tags(tags).register(registry);
      return value;
    });
  }

  /**
   * kafka-clients producer metrics published per kafka sink: name in the client, meter name. Gauges
   * mirroring the client's values, so the client's cumulative {@code record-error-total} is named
   * without {@code _total}, which Prometheus keeps for counters.
   */
  private static final Map<String, String> KAFKA_PRODUCER_METRICS = Map.of(
      "producer-metrics:record-send-rate", "kollect_kafka_producer_record_send_rate",
      "producer-metrics:request-latency-avg", "kollect_kafka_producer_request_latency_avg_ms",
      "producer-metrics:record-error-total", "kollect_kafka_producer_record_errors");
  /** Gauges of fractional values (producer rates), as the bits of a double. */
  private final Map<String, AtomicLong> doubleGauges = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * A kafka sink's lag (messages handed to the producer and not yet acknowledged by the brokers)
   * and a few of its producer's own metrics ({@link
   * io.kollect.export.kafka.KafkaSink#producerMetrics()}), tagged by sink.
   */
  public void kafkaSink(String sink, long lag, Map<String, Double> producer) {
    gauge("kollect_export_kafka_lag",
        "Messages handed to a kafka sink's producer and not yet acknowledged", "sink", sink)
        .set(lag);
    producer.forEach((key, value) -> {
      // keys are group:name{tags}; the producer-wide group carries only the client-id tag
      int brace = key.indexOf('{');
      String meter = KAFKA_PRODUCER_METRICS.get(brace < 0 ? key : key.substring(0, brace));
      if (meter != null) {
        doubleGauges.computeIfAbsent(meter + "|" + sink, k -> {
          AtomicLong bits = new AtomicLong(Double.doubleToLongBits(Double.NaN));
          Gauge.builder(meter, bits, b -> Double.longBitsToDouble(b.get()))
              .description("kafka-clients producer metric " + key.substring(0,
                  brace < 0 ? key.length() : brace) + " of a kafka sink")
              .tags("sink", sink).register(registry);
          return bits;
        }).set(Double.doubleToLongBits(value));
      }
    });
  }

  /**
   * Drops the meters of a kafka sink that is gone (its KollectSink deleted, turned into another
   * type or invalid): a gauge left behind would go on showing its last lag and send rate.
   */
  public void kafkaSinkRemoved(String sink) {
    for (var meter : registry.getMeters()) {
      String name = meter.getId().getName();
      if ((name.equals("kollect_export_kafka_lag") || name.startsWith("kollect_kafka_producer_"))
          && sink.equals(meter.getId().getTag("sink"))) {
        registry.remove(meter);
      }
    }
    // forget the values too, so that a sink of the same name later registers its gauges afresh
    gauges.remove("kollect_export_kafka_lag|sink," + sink);
    doubleGauges.keySet().removeIf(k -> k.endsWith("|" + sink));
  }

  /**
   * Drops every {@code kollect_export_*} and kafka producer meter of a sink that is gone (its
   * KollectSink deleted), as kube-state-metrics drops the series of a deleted object: a counter
   * or gauge left behind would show a sink that no longer exists. A sink of that name created
   * later starts its counters from zero (a counter reset, which Prometheus' rate() handles).
   */
  public void sinkRemoved(String sink) {
    for (var meter : registry.getMeters()) {
      String name = meter.getId().getName();
      if ((name.startsWith("kollect_export_") || name.startsWith("kollect_kafka_producer_"))
          && sink.equals(meter.getId().getTag("sink"))) {
        registry.remove(meter);
      }
    }
    gauges.keySet().removeIf(k -> k.startsWith("kollect_export_") && k.endsWith("|sink," + sink));
    doubleGauges.keySet().removeIf(k -> k.endsWith("|" + sink));
    deliveries.remove(sink);
  }

  @Override
  public void sent(String sink, int records) {
    counter("kollect_export_records_sent", "Records delivered to a sink", "sink", sink)
        .increment(records);
  }

  @Override
  public void failed(String sink, int records, boolean permanent) {
    Instant now = Instant.now();
    deliveries.compute(sink, (k, d) -> d == null
        ? new Delivery(null, now, now, records)
        : new Delivery(d.lastSuccess(), now, d.failing() ? d.failingSince() : now,
            d.failedRecords() + records));
    counter("kollect_export_records_failed", "Records in batches a sink did not accept",
        "sink", sink, "permanent", Boolean.toString(permanent)).increment(records);
  }

  @Override
  public void retried(String sink, int records) {
    counter("kollect_export_records_retried", "Records in retried batches", "sink", sink)
        .increment(records);
  }

  @Override
  public void dropped(String sink, int records) {
    counter("kollect_export_records_dropped", "Records dropped after a permanent rejection",
        "sink", sink).increment(records);
  }

  @Override
  public void queueDepth(String sink, int depth) {
    gauge("kollect_export_queue_depth", "Coalesced records waiting for a sink", "sink", sink)
        .set(depth);
  }

  @Override
  public void lastSuccess(String sink, Instant when) {
    deliveries.compute(sink, (k, d) -> new Delivery(when, d == null ? null : d.lastFailure(), null, 0));
    gauge("kollect_export_last_success_timestamp_seconds",
        "When a sink last accepted a batch (Unix seconds)", "sink", sink)
        .set(when.getEpochSecond());
  }

  @Override
  public void informers(int delta) {
    informers.addAndGet(delta);
  }

  /*
   * The two informer meters updated on every watch event, held per type once registered: looking
   * a meter up through its builder (its name, tags and id built anew, then found in the registry)
   * for each of a first inventory's 50,000 events took 0.7 % of the operator's CPU, now 0.1 %
   * (docs/benchmarks.md). Informer meters are never removed, so a held meter stays the
   * registry's.
   */
  private final Map<ResourceType, AtomicLong> cachedObjectGauges = new ConcurrentHashMap<>();
  private final Map<ResourceType, AtomicReferenceArray<Counter>> eventCounters =
      new ConcurrentHashMap<>();

  @Override
  public void cachedObjects(ResourceType type, long count) {
    AtomicLong gauge = cachedObjectGauges.get(type);
    if (gauge == null) {
      gauge = cachedObjectGauges.computeIfAbsent(type, t -> gauge(
          "kollect_informer_cached_objects", "Objects held in an informer cache",
          "resource", t.toString()));
    }
    gauge.set(count);
  }

  @Override
  public void event(ResourceType type, ResourceEvent.Kind kind) {
    AtomicReferenceArray<Counter> byKind = eventCounters.get(type);
    if (byKind == null) {
      byKind = eventCounters.computeIfAbsent(type,
          t -> new AtomicReferenceArray<>(ResourceEvent.Kind.values().length));
    }
    Counter events = byKind.get(kind.ordinal());
    if (events == null) {
      // registered on the kind's first event, as before: no zero series for a kind never seen;
      // two threads racing here get the same meter from the registry
      events = counter("kollect_informer_events", "Watch events received",
          "resource", type.toString(), "kind", kind.name());
      byKind.set(kind.ordinal(), events);
    }
    events.increment();
  }

  @Override
  public void listWatchError(ResourceType type) {
    counter("kollect_informer_list_watch_errors", "List/watch failures", "resource",
        type.toString()).increment();
  }

  @Override
  public void watchRestart(ResourceType type) {
    counter("kollect_informer_watch_restarts", "Watches restarted", "resource", type.toString())
        .increment();
  }

  /** Resource types each target has reported counts for, so a vanished type is set to 0. */
  private final Map<String, java.util.Set<String>> targetResources = new ConcurrentHashMap<>();

  /**
   * Publishes a target's readiness and object counts ({@code kollect_target_*}). A resource type
   * the target no longer has objects of drops to 0: a gauge is never left at its last value.
   */
  public void target(io.kollect.core.TargetStatus status) {
    String target = status.id().toString();
    gauge("kollect_target_ready", "1 when the target's Ready condition is True", "target", target)
        .set(status.ready() ? 1 : 0);
    gauge("kollect_target_extraction_errors",
        "Objects in a target's scope that failed extraction and are left out", "target", target)
        .set(status.extractionErrorCount());
    gauge("kollect_target_circuit_open",
        "1 while the target's circuit is open (its reconciles keep failing, it is skipped)",
        "target", target).set(conditionTrue(status, io.kollect.core.Condition.CIRCUIT_OPEN));
    gauge("kollect_target_high_cardinality",
        "1 while the target holds more objects than --warn-objects-per-target or leaves some out "
            + "by limits.maxObjects", "target", target)
        .set(conditionTrue(status, io.kollect.core.Condition.HIGH_CARDINALITY));
    java.util.Set<String> seen = targetResources.computeIfAbsent(target,
        k -> ConcurrentHashMap.newKeySet());
    seen.addAll(status.objectCounts().keySet());
    for (String resource : seen) {
      gauge("kollect_target_objects", "Exported objects of a target per resource type",
          "target", target, "resource", resource)
          .set(status.objectCounts().getOrDefault(resource, 0));
    }
  }

  private static int conditionTrue(io.kollect.core.TargetStatus status, String type) {
    io.kollect.core.Condition c = status.condition(type);
    return c != null && "True".equals(c.status()) ? 1 : 0;
  }

  /**
   * A watch was replaced, by reason ({@code kollect_watch_restarts_total}): e.g. silent past the
   * liveness window, closed by the server, HTTP 410 Gone.
   */
  @Override
  public void watchRestarted(ResourceType type, String reason) {
    counter("kollect_watch_restarts", "Watches replaced, by reason", "resource", type.toString(),
        "reason", reason == null ? "unknown" : reason).increment();
  }

  /** Publishes a target's deliveries per sink ({@code kollect_target_sink_*}), by sink name. */
  public void deliveries(io.kollect.core.TargetId id,
      Map<String, io.kollect.export.DeliveryStatus> deliveries) {
    String target = id.toString();
    deliveries.forEach((sink, d) -> {
      gauge("kollect_target_sink_pending_records", "Records of a target waiting for a sink",
          "target", target, "sink", sink).set(d.pending());
      gauge("kollect_target_sink_consecutive_failures",
          "Failed delivery attempts of a target to a sink since the last success",
          "target", target, "sink", sink).set(d.consecutiveFailures());
      gauge("kollect_target_sink_rejected_records",
          "Records of a target a sink rejected for good", "target", target, "sink", sink)
          .set(d.rejected().size());
    });
  }

  /** Publishes how a target's inventory object writes go ({@code kollect_inventory_*}). */
  public void inventory(io.kollect.core.TargetId id, InventoryHealth health) {
    String target = id.toString();
    gauge("kollect_inventory_records", "Records in a target's KollectInventory objects",
        "target", target).set(health.records());
    gauge("kollect_inventory_pending_records",
        "Records of a target changed but not yet written to its KollectInventory objects",
        "target", target).set(health.pending());
    gauge("kollect_inventory_consecutive_failures",
        "Failed KollectInventory write attempts of a target since its last success",
        "target", target).set(health.consecutiveFailures());
    gauge("kollect_inventory_rejected_records",
        "Records of a target left out of its KollectInventory objects because they cannot fit",
        "target", target).set(health.rejected().size());
  }

  /** Drops the meters of a removed target. */
  public void targetRemoved(io.kollect.core.TargetId id) {
    String target = id.toString();
    targetResources.remove(target);
    for (var meter : registry.getMeters()) {
      String name = meter.getId().getName();
      if ((name.startsWith("kollect_target_") || name.startsWith("kollect_inventory_"))
          && target.equals(meter.getId().getTag("target"))) {
        registry.remove(meter);
      }
    }
    gauges.keySet().removeIf(k -> (k.startsWith("kollect_target_") || k.startsWith("kollect_inventory_"))
        && (k.contains("target," + target + ",") || k.endsWith("target," + target)));
  }

  /**
   * Meters of a cluster the engine reads: {@code kollect_cluster_watches{cluster}} (watches open
   * on it) and {@code kollect_cluster_ready{cluster}} (1 connected, 0 not), read from its health
   * at each scrape.
   */
  public void cluster(String cluster,
      java.util.function.Supplier<java.util.Optional<io.kollect.core.ClusterHealth>> health) {
    Gauge.builder("kollect_cluster_watches", health,
            h -> h.get().map(x -> (double) x.openWatches()).orElse(0.0))
        .description("Watches open on a cluster").tags("cluster", cluster).strongReference(true)
        .register(registry);
    Gauge.builder("kollect_cluster_ready", health,
            h -> h.get().map(x -> x.ready() ? 1.0 : 0.0).orElse(0.0))
        .description("1 when the connection to a cluster is healthy").tags("cluster", cluster)
        .strongReference(true)
        .register(registry);
  }

  /** Drops the meters of a cluster no target reads any more. */
  public void clusterRemoved(String cluster) {
    for (var meter : registry.getMeters()) {
      if (meter.getId().getName().startsWith("kollect_cluster_")
          && cluster.equals(meter.getId().getTag("cluster"))) {
        registry.remove(meter);
      }
    }
  }

  /** Records the leadership state of this instance (1 leader, 0 not). */
  public void leader(boolean isLeader) {
    gauge("kollect_leader", "1 when this instance is the leader").set(isLeader ? 1 : 0);
  }
}

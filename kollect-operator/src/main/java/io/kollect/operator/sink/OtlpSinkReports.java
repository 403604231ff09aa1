package io.kollect.operator.sink;

import io.kollect.export.Sink;
import io.kollect.export.otlp.OtlpSink;
import io.kollect.export.otlp.PartialSuccess;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The otlp sinks of KollectSinks, for their status and metrics: OTLP partial successes (a
 * receiver accepted a request but dropped some of its log records, without saying which) are
 * acknowledged, never retried, so they are reported here instead. Two counters per sink, tagged
 * {@code sink}: {@code kollect_export_otlp_rejected_log_records} and {@code
 * kollect_export_otlp_partial_successes}. They count across rebuilds of the sink
 * (a changed KollectSink), as a Prometheus counter must; the operator's metrics drop them with
 * the sink's other {@code kollect_export_*} meters when the KollectSink is deleted.
 */
final class OtlpSinkReports {

  static final String REJECTED = "kollect_export_otlp_rejected_log_records";
  static final String PARTIAL = "kollect_export_otlp_partial_successes";

  /** One sink name's counts: of the sinks it replaced, and its current sink. */
  private static final class Counts {
    private long rejectedBefore;
    private long partialBefore;
    private OtlpSink current;

    synchronized long rejected() {
      return rejectedBefore + (current == null ? 0 : current.rejectedLogRecords());
    }

    synchronized long partial() {
      return partialBefore + (current == null ? 0 : current.partialSuccesses());
    }

    synchronized void replace(OtlpSink sink) {
      if (current != null) {
        rejectedBefore += current.rejectedLogRecords();
        partialBefore += current.partialSuccesses();
      }
      current = sink;
    }

    synchronized OtlpSink current() {
      return current;
    }
  }

  private final MeterRegistry registry;
  private final Map<String, Counts> sinks = new ConcurrentHashMap<>();

  /** Reports into {@code registry}; {@code null}: status only. */
  OtlpSinkReports(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The engine sink {@code name} is now {@code sink}; other sink types are forgotten. */
  void put(String name, Sink sink) {
    if (!(sink instanceof OtlpSink otlp)) {
      remove(name);
      return;
    }
    Counts counts = sinks.computeIfAbsent(name, n -> new Counts());
    counts.replace(otlp);
    if (registry != null) {
      // registering again is a no-op while the meter exists; after a sink's meters were removed
      // (deleted and created again) it registers afresh, bound to the new counts
      FunctionCounter.builder(REJECTED, counts, Counts::rejected)
          .description("Log records an OTLP receiver dropped in partial successes")
          .tags("sink", name).register(registry);
      FunctionCounter.builder(PARTIAL, counts, Counts::partial)
          .description("OTLP answers that were partial successes")
          .tags("sink", name).register(registry);
    }
  }

  /** The sink {@code name} is no longer an otlp sink (deleted, invalid, another type). */
  void remove(String name) {
    if (sinks.remove(name) != null && registry != null) {
      registry.find(REJECTED).tag("sink", name).meters().forEach(registry::remove);
      registry.find(PARTIAL).tag("sink", name).meters().forEach(registry::remove);
    }
  }

  /** The last partial success of the otlp sink {@code name}; {@code null} when none, or not otlp. */
  PartialSuccess lastPartialSuccess(String name) {
    Counts counts = sinks.get(name);
    OtlpSink sink = counts == null ? null : counts.current();
    return sink == null ? null : sink.lastPartialSuccess().orElse(null);
  }
}

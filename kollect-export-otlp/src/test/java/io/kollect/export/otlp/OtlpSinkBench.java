package io.kollect.export.otlp;

import io.kollect.export.Exporter;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.testing.SequencedRecordReceiver;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Throughput of the otlp sink (OTLP/HTTP and OTLP/gRPC into the loopback {@link OtlpReceiver})
 * next to the http sink (into kollect-testing's loopback receiver), the same Deployment-sized
 * records over 8 targets through the exporter, in one run. Not a test: run with {@code ./mvnw -o
 * -q -B -ntp -pl kollect-export-otlp -am -Pbench test-compile} ({@code -Dbench.args="<records>"};
 * {@code -am} also runs kollect-export's own benchmark, whose profile has the same id). The OTLP
 * receivers decode every request into protobuf objects and keep them, so the whole-process figure
 * says little about the sinks; compare the sending side.
 *
 * <p>"Per core" divides by the CPU time of the sending side only: the caller's thread, the
 * exporter's delivery threads and the clients' I/O threads (OkHttp for the OTLP exporters, the JDK
 * HttpClient for the http sink); the receivers run on the same cores and are excluded from that
 * figure but not from the wall-clock rate.
 */
public final class OtlpSinkBench {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private OtlpSinkBench() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    SinkOptions options = SinkOptions.defaults().withMaxBatchSize(500)
        .withLinger(Duration.ofMillis(5)).withHeartbeatInterval(Duration.ZERO);
    try (OtlpReceiver http = OtlpReceiver.start(OtlpSinkConfig.Protocol.HTTP_PROTOBUF);
        OtlpReceiver grpc = OtlpReceiver.start(OtlpSinkConfig.Protocol.GRPC);
        SequencedRecordReceiver json = new SequencedRecordReceiver()) {
      Supplier<Sink> otlpHttp = () -> new OtlpSink("otlp-http", OtlpSinkConfig.builder()
          .endpoint(http.endpoint()).build());
      Supplier<Sink> otlpGrpc = () -> new OtlpSink("otlp-grpc", OtlpSinkConfig.builder()
          .endpoint(grpc.endpoint()).protocol(OtlpSinkConfig.Protocol.GRPC).build());
      Supplier<Sink> httpSink = () -> new HttpSink("http", HttpSinkConfig.of(json.uri()));
      // warm-up of every path (JIT, connections), then the measured runs
      for (Supplier<Sink> s : List.of(otlpHttp, otlpGrpc, httpSink)) {
        throughput(s, options, 10_000, false);
      }
      for (Supplier<Sink> s : List.of(otlpHttp, otlpGrpc, httpSink)) {
        throughput(s, options, records, true);
      }
      long logRecords = http.received().stream().mapToLong(r -> r.request().getResourceLogs(0)
          .getScopeLogs(0).getLogRecordsCount()).sum();
      System.out.printf(Locale.ROOT, "otlp http receiver decoded %d log records in %d requests%n",
          logRecords, http.received().size());
    }
  }

  /** {@code n} new records over 8 targets, converged at once; until every one is acknowledged. */
  private static void throughput(Supplier<Sink> factory, SinkOptions options, int n,
      boolean print) {
    int targets = 8;
    Map<String, List<Record>> byTarget = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String target = "bench/t" + (i % targets);
      byTarget.computeIfAbsent(target, t -> new ArrayList<>()).add(benchRecord(target, i));
    }
    Sink sink = factory.get();
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, options);
      Map<Long, Long> cpuBefore = senderCpu();
      long processBefore = processCpu();
      long start = System.nanoTime();
      byTarget.forEach((target, recs) -> ex.converge(target, Set.of(sink.name()), recs));
      if (!ex.awaitIdle(Duration.ofMinutes(5))) {
        throw new IllegalStateException(sink.name() + ": not idle within 5 minutes");
      }
      long wall = System.nanoTime() - start;
      long cpu = delta(cpuBefore, senderCpu());
      long process = processCpu() - processBefore;
      if (print) {
        System.out.printf(Locale.ROOT, "%-9s %d records in %.2f s = %.0f records/s; sending side"
            + " %.2f CPU-s = %.0f records/s per core; whole process (incl. receiver) %.2f CPU-s"
            + " = %.0f records/s per core%n", sink.name(), n, wall / 1e9, n / (wall / 1e9),
            cpu / 1e9, n / (cpu / 1e9), process / 1e9, n / (process / 1e9));
      }
    }
  }

  /** A Deployment-sized record. */
  private static Record benchRecord(String target, int i) {
    Record r = Records.deployment();
    return new Record(Op.UPSERT, r.cluster(), target, r.profile(), r.resource(),
        "ns-" + (i % 50), "app-" + i, "uid-" + i, "1", r.observedAt(), "h-" + i + "-" + target,
        r.fields(), Map.of("app", "app-" + i, "team", "team-" + (i % 7)),
        Map.of("kollect.io/owner", "team-" + (i % 7)));
  }

  private static Map<Long, Long> senderCpu() {
    Map<Long, Long> out = new HashMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && sendingSide(info.getThreadName())) {
        long cpu = THREADS.getThreadCpuTime(info.getThreadId());
        if (cpu >= 0) {
          out.put(info.getThreadId(), cpu);
        }
      }
    }
    return out;
  }

  private static boolean sendingSide(String name) {
    return name.equals("main") || name.startsWith("kollect-export") || name.startsWith("OkHttp")
        || name.startsWith("HttpClient");
  }

  /** CPU used between the snapshots; threads started meanwhile count from zero. */
  private static long delta(Map<Long, Long> before, Map<Long, Long> after) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return sum;
  }

  private static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}

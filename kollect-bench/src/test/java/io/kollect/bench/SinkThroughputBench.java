package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kollect.export.Exporter;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.export.WebhookSigning;
import io.kollect.export.otlp.OtlpReceiver;
import io.kollect.export.otlp.OtlpSink;
import io.kollect.export.otlp.OtlpSinkConfig;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Records/s per core of the otlp sink (http/protobuf and grpc) beside the http sink (records,
 * CloudEvents batched, CloudEvents batched and signed, CloudEvents binary), side by side in one
 * run: the same Deployment-sized records over 8 targets through the exporter into each sink, each
 * sink into a loopback receiver that decodes every request (kollect-export-otlp's {@link
 * OtlpReceiver} for OTLP, a JDK HTTP server parsing the JSON for http). Not part of CI: {@code
 * ./mvnw -o -q -B -ntp -pl kollect-bench -am -Psink-bench test-compile} ({@code
 * -Dsink-bench.args="<records>"}); docs/benchmarks.md, "OTLP and CloudEvents sinks".
 *
 * <p>"Per core" divides by the CPU time of the sending side only (the caller, the exporter's
 * delivery threads and the clients' I/O threads: OkHttp for both OTLP protocols, the JDK
 * HttpClient for http); the receivers share the cores and count in the wall-clock rate only.
 */
public final class SinkThroughputBench {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1",
      "Deployment");

  private SinkThroughputBench() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    SinkOptions options = SinkOptions.defaults().withMaxBatchSize(500)
        .withLinger(Duration.ofMillis(5)).withHeartbeatInterval(Duration.ZERO);
    byte[] key = new byte[24];
    new java.security.SecureRandom().nextBytes(key);
    String whsec = "whsec_" + Base64.getEncoder().encodeToString(key);
    HttpServer json = jsonReceiver();
    URI jsonUri = URI.create("http://127.0.0.1:" + json.getAddress().getPort() + "/");
    try (OtlpReceiver http = OtlpReceiver.start(OtlpSinkConfig.Protocol.HTTP_PROTOBUF);
        OtlpReceiver grpc = OtlpReceiver.start(OtlpSinkConfig.Protocol.GRPC)) {
      Map<String, Supplier<Sink>> sinks = new LinkedHashMap<>();
      sinks.put("otlp http/protobuf", () -> new OtlpSink("otlp-http", OtlpSinkConfig.builder()
          .endpoint(http.endpoint()).build()));
      sinks.put("otlp grpc", () -> new OtlpSink("otlp-grpc", OtlpSinkConfig.builder()
          .endpoint(grpc.endpoint()).protocol(OtlpSinkConfig.Protocol.GRPC).build()));
      sinks.put("http records", () -> new HttpSink("http", HttpSinkConfig.of(jsonUri)));
      sinks.put("http cloudevents", () -> new HttpSink("http-ce", HttpSinkConfig.of(jsonUri)
          .withFormat(HttpSinkConfig.Format.CLOUDEVENTS_BATCH)));
      sinks.put("http cloudevents signed", () -> new HttpSink("http-ce-signed",
          HttpSinkConfig.of(jsonUri).withFormat(HttpSinkConfig.Format.CLOUDEVENTS_BATCH)
              .withSigning(WebhookSigning.keys(whsec))));
      sinks.put("http cloudevents-binary", () -> new HttpSink("http-ce-binary",
          HttpSinkConfig.of(jsonUri).withFormat(HttpSinkConfig.Format.CLOUDEVENTS_BINARY)));
      // warm-up of every path (JIT, connections), then the measured runs, one after another
      for (Supplier<Sink> s : sinks.values()) {
        throughput(s, options, 10_000);
      }
      System.out.println("| sink | records | wall s | records/s | sending CPU s | records/s per "
          + "core (sending side) |");
      System.out.println("|---|---|---|---|---|---|");
      for (Map.Entry<String, Supplier<Sink>> s : sinks.entrySet()) {
        long[] r = throughput(s.getValue(), options, records);
        System.out.printf(Locale.ROOT, "| %s | %d | %.2f | %.0f | %.2f | %.0f |%n", s.getKey(),
            records, r[0] / 1e9, records / (r[0] / 1e9), r[1] / 1e9, records / (r[1] / 1e9));
      }
    } finally {
      json.stop(0);
    }
  }

  /** A receiver that reads and parses every JSON body, answering 200. */
  private static HttpServer jsonReceiver() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
        0), 50);
    server.createContext("/", ex -> {
      try (ex; InputStream in = ex.getRequestBody()) {
        JsonNode ignored = JSON.readTree(in);
        ex.sendResponseHeaders(ignored == null ? 400 : 200, -1);
      }
    });
    server.setExecutor(Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "bench-json-receiver");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    return server;
  }

  /**
   * {@code n} new records over 8 targets, converged at once, until every one is acknowledged:
   * wall-clock and sending-side CPU nanoseconds.
   */
  private static long[] throughput(Supplier<Sink> factory, SinkOptions options, int n) {
    int targets = 8;
    Map<String, List<Record>> byTarget = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String target = "bench/t" + (i % targets);
      byTarget.computeIfAbsent(target, t -> new ArrayList<>()).add(deployment(target, i));
    }
    Sink sink = factory.get();
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, options);
      Map<Long, Long> cpuBefore = senderCpu();
      long start = System.nanoTime();
      byTarget.forEach((target, recs) -> ex.converge(target, Set.of(sink.name()), recs));
      if (!ex.awaitIdle(Duration.ofMinutes(5))) {
        throw new IllegalStateException(sink.name() + ": not idle within 5 minutes");
      }
      return new long[] {System.nanoTime() - start, delta(cpuBefore, senderCpu())};
    }
  }

  /** A Deployment-sized record: six fields of every JSON type, two labels, an annotation. */
  private static Record deployment(String target, int i) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    try {
      fields.put("replicas", JSON.readTree("3"));
      fields.put("image", JSON.readTree("\"nginx:1.27\""));
      fields.put("paused", JSON.readTree("false"));
      fields.put("cpu", JSON.readTree("0.5"));
      fields.put("ports", JSON.readTree("[80, 443]"));
      fields.put("strategy", JSON.readTree("{\"type\":\"RollingUpdate\",\"maxSurge\":null}"));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new Record(Op.UPSERT, "prod-eu-1", target, "workloads", DEPLOYMENT, "ns-" + (i % 50),
        "app-" + i, "uid-" + i, "1", Instant.parse("2026-01-01T00:00:00Z"), "h-" + i + "-" + target,
        fields, Map.of("app", "app-" + i, "team", "team-" + (i % 7)),
        Map.of("kollect.io/owner", "team-" + (i % 7)), (long) i + 1);
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

  /** The caller, the exporter's threads and the clients' I/O threads; never a receiver's. */
  private static boolean sendingSide(String name) {
    // the OTLP exporters send over OkHttp for both protocols; grpc-* threads are the receiver's
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
}

package io.kollect.export.postgres;

import io.kollect.export.Exporter;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.export.SinkOptions;
import io.kollect.extract.Record;
import io.kollect.testing.SequencedRecordReceiver;
import io.kollect.testing.TestPostgresServer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Throughput (records/s, and records per CPU-second of the sending side) and change→commit
 * latency of the postgres sink into a local PostgreSQL, next to the http sink into a loopback
 * receiver, in the same run; the database's CPU is reported beside it (both share the machine's
 * cores). Not a test: run with {@code ./mvnw -o -q -B -ntp -pl kollect-export-postgres -am
 * -Pbench test-compile} (arguments: {@code -Dbench.args="<records> <latency samples>"}; {@code
 * -am} also runs the bench profiles of the modules it builds).
 *
 * <p>"Sending side" is the caller's thread (converge) and the exporter's delivery threads, which
 * also run the JDBC driver (it is synchronous), plus the JDK HttpClient's threads.
 */
public final class PostgresSinkBench {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private PostgresSinkBench() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int samples = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    SinkOptions options = PostgresSink.defaultOptions().withMaxBatchSize(500);
    try (TestPostgresServer server = TestPostgresServer.start();
        SequencedRecordReceiver receiver = new SequencedRecordReceiver()) {
      Supplier<Sink> postgres = () -> new PostgresSink("postgres", Fixtures.config(server, "bench")
          .maintenanceInterval(Duration.ofSeconds(30)).build());
      Supplier<Sink> postgresHistory = () -> new PostgresSink("postgres", Fixtures.config(server,
          "bench_history").maintenanceInterval(Duration.ofSeconds(30))
          .history(PostgresSinkConfig.History.keptFor(Duration.ofDays(1))).build());
      Supplier<Sink> http = () -> new HttpSink("http", HttpSinkConfig.of(receiver.uri()));
      // warm-up of both paths (JIT, connections, schema), then the measured runs
      throughput("postgres", postgres, options, 20_000, server, 0);
      throughput("http", http, options, 20_000, null, 0);
      throughput("postgres", postgres, options, records, server, 1);
      throughput("postgres+history", postgresHistory, options, records, server, 1);
      throughput("http", http, options, records, null, 1);
      latency("postgres", postgres.get(), options, samples);
      latency("http", http.get(), options, samples);
    }
  }

  /**
   * {@code n} records over 8 targets, converged at once, until every one is acknowledged; the
   * content differs with {@code version}, so a second run updates every row.
   */
  private static void throughput(String label, Supplier<Sink> factory, SinkOptions options,
      int n, TestPostgresServer server, int version) {
    int targets = 8;
    Map<String, List<Record>> byTarget = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String target = "bench/t" + (i % targets);
      byTarget.computeIfAbsent(target, t -> new ArrayList<>()).add(benchRecord(target, i,
          version));
    }
    Sink sink = factory.get();
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, options);
      Map<Long, Long> cpuBefore = senderCpu();
      Duration dbBefore = server == null ? Duration.ZERO : server.cpuTime();
      long start = System.nanoTime();
      byTarget.forEach((target, recs) -> ex.converge(target, Set.of(sink.name()), recs));
      if (!ex.awaitIdle(Duration.ofMinutes(10))) {
        throw new IllegalStateException(label + ": not idle within 10 minutes");
      }
      long wall = System.nanoTime() - start;
      long cpu = delta(cpuBefore, senderCpu());
      Duration db = server == null ? Duration.ZERO : server.cpuTime().minus(dbBefore);
      if (version > 0) {
        System.out.printf(Locale.ROOT, "%-16s throughput: %d records in %.2f s = %.0f records/s;"
            + " sending side %.2f CPU-s = %.0f records/s per core; database %.2f CPU-s%n",
            label, n, wall / 1e9, n / (wall / 1e9), cpu / 1e9, n / (cpu / 1e9),
            db.toMillis() / 1e3);
      }
    } finally {
      sink.close();
    }
  }

  /** One changed record at a time, at idle: converge call to the sink's return (the commit). */
  private static void latency(String label, Sink inner, SinkOptions options, int samples)
      throws InterruptedException {
    BlockingQueue<Long> acked = new LinkedBlockingQueue<>();
    Sink timed = new Sink() {
      @Override
      public String name() {
        return inner.name();
      }

      @Override
      public void write(List<Record> batch) throws SinkException {
        inner.write(batch);
        acked.add(System.nanoTime());
      }

      @Override
      public boolean concurrentWrites() {
        return inner.concurrentWrites();
      }

      @Override
      public void close() {
        inner.close();
      }
    };
    String target = "bench/latency";
    List<Record> set = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      set.add(benchRecord(target, i, 0));
    }
    long[] nanos = new long[samples];
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(timed, options);
      ex.converge(target, Set.of(inner.name()), set);
      ex.awaitIdle(Duration.ofSeconds(30));
      acked.clear();
      for (int s = 0; s < samples + 50; s++) {
        int i = s % set.size();
        set.set(i, benchRecord(target, i, s + 1));
        long start = System.nanoTime();
        ex.converge(target, Set.of(inner.name()), set);
        Long done = acked.poll(30, TimeUnit.SECONDS);
        if (done == null) {
          throw new IllegalStateException(label + ": no ack within 30 s");
        }
        if (s >= 50) { // the first 50 warm up
          nanos[s - 50] = done - start;
        }
        Thread.sleep(10); // idle between changes: latency at idle, not under load
      }
    } finally {
      timed.close();
    }
    Arrays.sort(nanos);
    System.out.printf(Locale.ROOT, "%-16s change->commit latency (linger %d ms, %d samples): p50"
        + " %.2f ms, p99 %.2f ms, max %.2f ms%n", label, options.linger().toMillis(), samples,
        nanos[samples / 2] / 1e6, nanos[(int) (samples * 0.99)] / 1e6,
        nanos[samples - 1] / 1e6);
  }

  /** A Deployment-sized record (about 600 bytes of JSON). */
  private static Record benchRecord(String target, int i, int version) {
    Record r = Fixtures.upsert("bench", Fixtures.DEPLOYMENT, "ns-" + (i % 50), "app-" + i,
        "{\"replicas\":3,\"images\":[\"registry.example.com/team/app-" + i + ":1." + version
            + "\",\"envoyproxy/envoy:v1.31.2\"],\"strategy\":\"RollingUpdate\","
            + "\"resources\":\"cpu 250m memory 256Mi\",\"serviceAccount\":\"app-" + i + "\"}",
        Map.of("app.kubernetes.io/name", "app-" + i, "team", "team-" + (i % 7)), 0,
        Instant.now());
    // as extraction makes them: no sequence (the exporter numbers them), the target set
    return new Record(r.op(), r.cluster(), target, r.profile(), r.resource(), r.namespace(),
        r.name(), r.uid(), r.resourceVersion(), r.observedAt(), r.contentHash(), r.fields(),
        r.labels(), r.annotations());
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
    return name.equals("main") || name.startsWith("kollect-export")
        || name.startsWith("HttpClient");
  }

  private static long delta(Map<Long, Long> before, Map<Long, Long> after) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return sum;
  }
}

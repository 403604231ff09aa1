package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kollect.export.Exporter;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.export.SinkOptions;
import io.kollect.export.kafka.KafkaBroker;
import io.kollect.export.kafka.KafkaSink;
import io.kollect.export.kafka.KafkaSinkConfig;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.export.postgres.PostgresSink;
import io.kollect.export.postgres.PostgresSinkConfig;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.testing.SequencedRecordReceiver;
import io.kollect.testing.TestPostgresServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The sinks that keep an inventory elsewhere, side by side in one run with the same records: the
 * postgres sink (history off and on) into a local PostgreSQL ({@link TestPostgresServer}), the
 * kafka sink into an in-process KRaft broker (kollect-export-kafka's test {@link KafkaBroker}) and
 * the http sink into a loopback receiver. Per sink: records/s, records per CPU-second of the
 * sending side and of the server beside it (the database's processes from {@code /proc}, the
 * in-process broker's threads), then change→commit (or ack) at idle, one change at a time; for
 * postgres also the rows and the WAL bytes the database wrote per change during that phase.
 *
 * <p>Not a test: run with {@code ./mvnw -o -q -B -ntp -pl kollect-bench -am
 * -Pinventory-sinks-bench test-compile -Dinventory-sinks-bench.args="<records> <latency samples>"}.
 * Every sink runs with its shipped defaults, except a batch of at most 500 records for all and
 * the http sink's linger (5 ms, as the others', instead of 1 s).
 */
public final class InventorySinksBench {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /**
   * How long a backend's table counters may take to reach pg_stat_user_tables: PostgreSQL 15
   * flushes them at most every second while busy and 10 s after it went idle.
   */
  private static final Duration STATISTICS_FLUSH = Duration.ofSeconds(11);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");

  private InventorySinksBench() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int samples = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    System.out.printf(Locale.ROOT, "load average before: %s", java.nio.file.Files.readString(
        java.nio.file.Path.of("/proc/loadavg")));
    try (TestPostgresServer db = TestPostgresServer.start();
        KafkaBroker broker = KafkaBroker.launch();
        SequencedRecordReceiver receiver = new SequencedRecordReceiver()) {
      KafkaSinkConfig kafka = KafkaSinkConfig.builder().bootstrapServers(broker.bootstrapServers())
          .topic("bench").createTopic(new CreateTopic(6, 1)).build();
      List<Candidate> candidates = List.of(
          new Candidate("postgres", () -> new PostgresSink("postgres", postgres(db, "bench", false)),
              PostgresSink.defaultOptions(), db),
          new Candidate("postgres+history", () -> new PostgresSink("postgres",
              postgres(db, "bench_history", true)), PostgresSink.defaultOptions(), db),
          new Candidate("kafka", () -> new KafkaSink("kafka", kafka), KafkaSink.defaultOptions(),
              null),
          // http's shipped linger is 1 s; at the 5 ms of the others, as in the earlier run
          new Candidate("http", () -> new HttpSink("http", HttpSinkConfig.of(receiver.uri())),
              SinkOptions.defaults().withLinger(Duration.ofMillis(5)), null));
      // warm-up of every path (JIT, connections, schema, topic), then the measured runs
      for (Candidate c : candidates) {
        throughput(c, 20_000, 0);
      }
      for (Candidate c : candidates) {
        throughput(c, records, 1);
      }
      for (Candidate c : candidates) {
        latency(c, samples, c.label().startsWith("postgres")
            ? (c.label().endsWith("history") ? "bench_history" : "bench") : null);
      }
    }
    System.out.printf(Locale.ROOT, "load average after: %s", java.nio.file.Files.readString(
        java.nio.file.Path.of("/proc/loadavg")));
  }

  /** A sink to measure, with its options; {@code db} when its server's CPU is a database's. */
  private record Candidate(String label, Supplier<Sink> sink, SinkOptions shipped,
      TestPostgresServer db) {
    SinkOptions options() {
      return shipped.withMaxBatchSize(500);
    }
  }

  private static PostgresSinkConfig postgres(TestPostgresServer db, String schema, boolean history) {
    PostgresSinkConfig.Builder b = PostgresSinkConfig.builder().url(db.jdbcUrl())
        .credentials(db.superuser(), db.superuserPassword()).schema(schema);
    if (history) {
      b.history(PostgresSinkConfig.History.keptFor(Duration.ofDays(30)));
    }
    return b.build();
  }

  /**
   * {@code n} records over 8 targets, converged at once, until every one is acknowledged; the
   * content differs with {@code version}, so a second run updates every row (or key).
   */
  private static void throughput(Candidate c, int n, int version) {
    int targets = 8;
    Map<String, List<Record>> byTarget = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String target = "bench/t" + (i % targets);
      byTarget.computeIfAbsent(target, t -> new ArrayList<>()).add(benchRecord(target, i, version));
    }
    Sink sink = c.sink().get();
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, c.options());
      Map<Long, ThreadCpu> cpuBefore = threadCpu();
      Duration dbBefore = c.db() == null ? Duration.ZERO : c.db().cpuTime();
      long start = System.nanoTime();
      byTarget.forEach((target, recs) -> ex.converge(target, Set.of(sink.name()), recs));
      if (!ex.awaitIdle(Duration.ofMinutes(10))) {
        throw new IllegalStateException(c.label() + ": not idle within 10 minutes");
      }
      long wall = System.nanoTime() - start;
      Map<Long, ThreadCpu> cpuAfter = threadCpu();
      long sending = delta(cpuBefore, cpuAfter, InventorySinksBench::sendingSide);
      long server = c.db() != null ? c.db().cpuTime().minus(dbBefore).toNanos()
          : delta(cpuBefore, cpuAfter, name -> !sendingSide(name));
      if (version > 0) {
        System.out.printf(Locale.ROOT, "%-16s throughput: %d records in %.2f s = %.0f records/s;"
            + " sending side %.2f CPU-s = %.0f records/s per core; %s %.2f CPU-s%n", c.label(), n,
            wall / 1e9, n / (wall / 1e9), sending / 1e9, n / (sending / 1e9),
            c.db() != null ? "database" : "rest of the JVM (broker or receiver)", server / 1e9);
      }
    } finally {
      sink.close();
    }
  }

  /**
   * One changed record at a time, at idle: converge call to the sink's return (the commit or ack).
   * For postgres ({@code schema} given) also the rows and WAL bytes written over those changes.
   */
  private static void latency(Candidate c, int samples, String schema) throws Exception {
    BlockingQueue<Long> acked = new LinkedBlockingQueue<>();
    Sink inner = c.sink().get();
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
    PostgresInventoryBench.DatabaseWrites before = null;
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(timed, c.options());
      ex.converge(target, Set.of(inner.name()), set);
      ex.awaitIdle(Duration.ofSeconds(30));
      acked.clear();
      for (int s = 0; s < samples + 50; s++) {
        if (s == 50 && schema != null) {
          Thread.sleep(STATISTICS_FLUSH.toMillis());
          before = PostgresInventoryBench.DatabaseWrites.read(c.db(), schema);
        }
        int i = s % set.size();
        set.set(i, benchRecord(target, i, s + 1));
        long start = System.nanoTime();
        ex.converge(target, Set.of(inner.name()), set);
        Long done = acked.poll(30, TimeUnit.SECONDS);
        if (done == null) {
          throw new IllegalStateException(c.label() + ": no ack within 30 s");
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
        + " %.2f ms, p99 %.2f ms, max %.2f ms%n", c.label(), c.options().linger().toMillis(),
        samples, nanos[samples / 2] / 1e6, nanos[(int) (samples * 0.99)] / 1e6,
        nanos[samples - 1] / 1e6);
    if (schema != null) {
      Thread.sleep(STATISTICS_FLUSH.toMillis());
      PostgresInventoryBench.DatabaseWrites d =
          PostgresInventoryBench.DatabaseWrites.read(c.db(), schema).minus(before);
      double n = samples;
      System.out.printf(Locale.ROOT, "%-16s per change, one change per transaction: %.0f WAL"
          + " bytes; rows written %.2f (inserted %.2f, updated %.2f); object_state +%.0f bytes,"
          + " changes +%.0f bytes (table and indexes on disk)%n", c.label(), d.walBytes() / n,
          (d.rowsInserted() + d.rowsUpdated() + d.rowsDeleted()) / n, d.rowsInserted() / n,
          d.rowsUpdated() / n, d.objectStateBytes() / n, d.changesBytes() / n);
    }
  }

  /** A Deployment-sized record (about 600 bytes of JSON), as extraction makes it (no sequence). */
  private static Record benchRecord(String target, int i, int version) {
    String fieldsJson = "{\"replicas\":3,\"images\":[\"registry.example.com/team/app-" + i + ":1."
        + version + "\",\"envoyproxy/envoy:v1.31.2\"],\"strategy\":\"RollingUpdate\","
        + "\"resources\":\"cpu 250m memory 256Mi\",\"serviceAccount\":\"app-" + i + "\"}";
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    try {
      JSON.readTree(fieldsJson).fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    Map<String, String> labels = Map.of("app.kubernetes.io/name", "app-" + i, "team",
        "team-" + (i % 7));
    return new Record(Op.UPSERT, "bench", target, "bench", DEPLOYMENT, "ns-" + (i % 50),
        "app-" + i, "uid-app-" + i, "rv-" + version, Instant.now(),
        "hash-" + fieldsJson.hashCode() + "-" + labels.hashCode(), fields, labels, Map.of());
  }

  /** CPU time of one live thread, with its name. */
  private record ThreadCpu(String name, long nanos) {}

  private static Map<Long, ThreadCpu> threadCpu() {
    Map<Long, ThreadCpu> out = new HashMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null) {
        long cpu = THREADS.getThreadCpuTime(info.getThreadId());
        if (cpu >= 0) {
          out.put(info.getThreadId(), new ThreadCpu(info.getThreadName(), cpu));
        }
      }
    }
    return out;
  }

  /** The caller, the exporter's threads and the clients' I/O threads. */
  private static boolean sendingSide(String name) {
    return name.equals("main") || name.startsWith("kollect-export")
        || name.startsWith("HttpClient") || name.startsWith("kafka-producer-network-thread")
        || name.startsWith("HikariPool");
  }

  /** CPU the threads alive at the end and named as {@code which} says used since {@code before}. */
  private static long delta(Map<Long, ThreadCpu> before, Map<Long, ThreadCpu> after,
      Predicate<String> which) {
    long sum = 0;
    for (Map.Entry<Long, ThreadCpu> e : after.entrySet()) {
      if (which.test(e.getValue().name())) {
        ThreadCpu b = before.get(e.getKey());
        sum += e.getValue().nanos() - (b == null ? 0 : b.nanos());
      }
    }
    return sum;
  }
}

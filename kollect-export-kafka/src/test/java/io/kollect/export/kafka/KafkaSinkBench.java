package io.kollect.export.kafka;

import io.kollect.export.Exporter;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.export.SinkOptions;
import io.kollect.export.kafka.KafkaSinkConfig.CreateTopic;
import io.kollect.extract.Record;
import io.kollect.testing.SequencedRecordReceiver;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
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

/**
 * Throughput (records/s, and records per CPU-second of the sending side) and change→ack latency
 * of the kafka sink into an in-process broker, next to the http sink into a loopback receiver, in
 * the same run. Not a test: run with {@code ./mvnw -o -q -B -ntp -pl kollect-export-kafka -Pbench
 * test-compile} (arguments: {@code -Dbench.args="<records> <latency samples>"}).
 *
 * <p>"Per core" divides by the CPU time of the sending side only: the caller's thread (converge),
 * the exporter's delivery threads and the client's I/O threads (kafka producer network thread,
 * JDK HttpClient threads). The in-process broker and the receiver run on the same 2 cores and
 * are excluded from that figure but not from the wall-clock rate.
 */
public final class KafkaSinkBench {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private KafkaSinkBench() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int samples = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    SinkOptions options = KafkaSink.defaultOptions().withMaxBatchSize(500);
    try (KafkaBroker broker = KafkaBroker.launch();
        SequencedRecordReceiver receiver = new SequencedRecordReceiver()) {
      KafkaSinkConfig kafka = KafkaSinkConfig.builder().bootstrapServers(broker.bootstrapServers())
          .topic("bench").createTopic(new CreateTopic(6, 1)).build();
      // warm-up of both paths (JIT, connections), then the measured runs
      throughput("kafka", () -> new KafkaSink("kafka", kafka), options, 20_000, false);
      throughput("http", () -> new HttpSink("http", HttpSinkConfig.of(receiver.uri())), options,
          20_000, false);
      throughput("kafka", () -> new KafkaSink("kafka", kafka), options, records, true);
      throughput("http", () -> new HttpSink("http", HttpSinkConfig.of(receiver.uri())), options,
          records, true);
      latency("kafka", new KafkaSink("kafka-lat", kafka), options, samples);
      latency("http", new HttpSink("http-lat", HttpSinkConfig.of(receiver.uri())), options,
          samples);
    }
  }

  private interface SinkFactory {
    Sink create();
  }

  /** {@code n} new records over 8 targets, converged at once; until every one is acknowledged. */
  private static void throughput(String label, SinkFactory factory, SinkOptions options, int n,
      boolean print) {
    int targets = 8;
    Map<String, List<Record>> byTarget = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String target = "bench/t" + (i % targets);
      byTarget.computeIfAbsent(target, t -> new ArrayList<>()).add(benchRecord(target, i));
    }
    Sink sink = factory.create();
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, options);
      Map<Long, Long> cpuBefore = senderCpu();
      long cpuProcessBefore = processCpu();
      long start = System.nanoTime();
      byTarget.forEach((target, recs) -> ex.converge(target, Set.of(sink.name()), recs));
      if (!ex.awaitIdle(Duration.ofMinutes(5))) {
        throw new IllegalStateException(label + ": not idle within 5 minutes");
      }
      long wall = System.nanoTime() - start;
      long cpu = delta(cpuBefore, senderCpu());
      long cpuProcess = processCpu() - cpuProcessBefore;
      if (print) {
        System.out.printf(Locale.ROOT, "%-5s throughput: %d records in %.2f s = %.0f records/s;"
            + " sending side %.2f CPU-s = %.0f records/s per core; whole process (incl."
            + " broker/receiver) %.2f CPU-s = %.0f records/s per core%n", label, n, wall / 1e9,
            n / (wall / 1e9), cpu / 1e9, n / (cpu / 1e9), cpuProcess / 1e9,
            n / (cpuProcess / 1e9));
      }
    }
  }

  /** One changed record at a time, at idle: converge call to the sink's return (= the ack). */
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
      set.add(benchRecord(target, i));
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
        if (s >= 50) {  // the first 50 warm up
          nanos[s - 50] = done - start;
        }
        Thread.sleep(10);  // idle between changes: latency at idle, not under load
      }
    }
    Arrays.sort(nanos);
    System.out.printf(Locale.ROOT, "%-5s change->ack latency (linger %d ms, %d samples): p50 %.2f"
        + " ms, p99 %.2f ms, max %.2f ms%n", label, options.linger().toMillis(), samples,
        nanos[samples / 2] / 1e6, nanos[(int) (samples * 0.99)] / 1e6,
        nanos[samples - 1] / 1e6);
  }

  private static Record benchRecord(String target, int i) {
    return benchRecord(target, i, 0);
  }

  /** A Deployment-sized record (about 600 bytes of JSON). */
  private static Record benchRecord(String target, int i, int version) {
    Record r = InventoryRecords.record(InventoryRecords.DEPLOYMENT, "ns-" + (i % 50), "app-" + i,
        version, "image: registry.example.com/team/app-" + i + ":1." + version
            + "; replicas: 3; strategy: RollingUpdate; resources: cpu 250m memory 256Mi");
    return new Record(r.op(), r.cluster(), target, r.profile(), r.resource(), r.namespace(),
        r.name(), r.uid(), r.resourceVersion(), r.observedAt(), r.contentHash() + "-" + target,
        r.fields(), r.labels(), r.annotations());
  }

  /** CPU time per live thread of the sending side. */
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
        || name.startsWith("kafka-producer-network-thread") || name.startsWith("HttpClient");
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

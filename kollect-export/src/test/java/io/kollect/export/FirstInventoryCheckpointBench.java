package io.kollect.export;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The runner behind the "first inventory" checkpoint row of docs/benchmarks.md: what the file
 * checkpoint costs while an exporter's first inventory fills it, the store compacting from the
 * exporter's own state.
 *
 * <p>It drives a store as {@code CheckpointBook} does, without a cluster or sinks: {@code load}
 * of an empty checkpoint per (target, sink), then {@value #KEYS} ConfigMap-like entries (those of
 * {@link CheckpointBench}) acknowledged in batches of the exporter's default batch size ({@value
 * #BATCH}), two sinks in turn, each acknowledged batch entered into an acknowledged map keyed as
 * the exporter keys it, and a checkpoint write ({@code apply} of the keys acknowledged since the
 * last write) after every {@code n} batches. {@code n = 1} is the most writes the first inventory
 * can cause (one per batch); {@code n = 5} is what the exporter's 1 s checkpoint interval gives at
 * the ~2,500 records per second of the measured 20 s first inventory. Each write offers the store
 * the acknowledged map as {@code CheckpointBook} offers it. The store before compaction from the
 * caller's state is not measured here (docs/benchmarks.md says how its figures are reproduced).
 *
 * <p>Reported per run: CPU time of the process (the writes, their serialisation, the collector
 * and the JIT, and the few map operations that stand for the exporter's acknowledgements), bytes allocated by
 * the writing thread, bytes read and written through system calls
 * ({@code rchar}/{@code wchar} of {@code /proc/self/io}: the checkpoint files, nothing else runs),
 * and wall time (including {@code fsync}s, so loose on a shared disk). Each write frequency runs
 * {@code bench.rounds} times (default 3) after one warm-up; the median is printed.
 *
 * <p>Run (the container's collector and heap):
 * {@code JAVA_TOOL_OPTIONS="-XX:+UseSerialGC -Xmx512m -Dbench.rounds=5" ./mvnw -o -q -B -ntp -pl kollect-export -am
 * test-compile -Pbench -Dbench.main=io.kollect.export.FirstInventoryCheckpointBench -Djmh.args=}
 */
public final class FirstInventoryCheckpointBench {

  static final int KEYS = 50_000;
  static final int BATCH = 500;
  static final List<String> SINKS = List.of("http", "stdout");
  static final String TARGET = "bench/t";

  private FirstInventoryCheckpointBench() {}

  /** What one first inventory cost. */
  record Cost(double cpuSeconds, long allocated, long read, long written, double wallSeconds) {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.rounds", 3);
    System.out.printf("File checkpoint during a first inventory: %,d keys, batches of %d, sinks %s,"
        + " %d rounds (median); JVM %s%n%n", KEYS, BATCH, SINKS, rounds,
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    System.out.println("| batches per write | CPU s | allocated MB | read MB | written MB "
        + "| wall s |");
    System.out.println("|---:|---:|---:|---:|---:|---:|");
    for (int perWrite : new int[] {1, 5}) {
      run(perWrite);
      List<Cost> costs = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        costs.add(run(perWrite));
      }
      print(perWrite, median(costs));
    }
  }

  private static void print(int perWrite, Cost c) {
    System.out.printf("| %d | %.2f | %,.1f | %,.1f | %,.1f | %.2f |%n", perWrite,
        c.cpuSeconds(), c.allocated() / 1e6, c.read() / 1e6, c.written() / 1e6, c.wallSeconds());
  }

  private static Cost median(List<Cost> costs) {
    List<Cost> sorted = new ArrayList<>(costs);
    sorted.sort(Comparator.comparingDouble(Cost::cpuSeconds));
    return sorted.get(sorted.size() / 2);
  }

  /** One first inventory into a fresh directory; checks that the checkpoint loads back whole. */
  static Cost run(int batchesPerWrite) throws IOException {
    Path dir = Files.createTempDirectory("kollect-first-inventory");
    try {
      List<List<ExportedEntry>> batches = new ArrayList<>();
      List<List<ExportKey>> keys = new ArrayList<>();
      Instant start = Instant.parse("2026-11-28T22:00:00.123456Z");
      for (int b = 0; b * BATCH < KEYS; b++) {
        List<ExportedEntry> batch = new ArrayList<>(BATCH);
        // one send time per batch, with the microseconds the system clock gives on Linux
        Instant sentAt = start.plusNanos(b * 187_654_000L);
        for (int i = b * BATCH; i < Math.min(KEYS, (b + 1) * BATCH); i++) {
          batch.add(ExportedEntry.sent(CheckpointBench.record(i, 1)
              .withSequence(1_767_225_600_000_000L + i), sentAt));
        }
        batches.add(batch);
        // the exporter's keys exist before anything is checkpointed: not part of the cost
        keys.add(batch.stream().map(e -> ExportKey.parse(e.key())).toList());
      }
      System.gc();
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long alloc0 = threads.getCurrentThreadAllocatedBytes();
      long[] io0 = io();
      long wall0 = System.nanoTime();

      FileCheckpointStore store = new FileCheckpointStore(dir);
      Map<String, Map<ExportKey, ExportedEntry>> acknowledged = new HashMap<>();
      Map<String, Set<ExportKey>> unsaved = new HashMap<>();
      for (String sink : SINKS) {
        if (!store.load(TARGET, sink).isEmpty()) {
          throw new IllegalStateException("not a first inventory");
        }
        acknowledged.put(sink, new ConcurrentHashMap<>());
        unsaved.put(sink, new HashSet<>());
      }
      for (int b = 0; b < batches.size(); b++) {
        for (String sink : SINKS) {
          for (int i = 0; i < batches.get(b).size(); i++) {
            ExportKey key = keys.get(b).get(i);
            acknowledged.get(sink).put(key, batches.get(b).get(i));
            unsaved.get(sink).add(key);
          }
          if ((b + 1) % batchesPerWrite == 0 || b == batches.size() - 1) {
            Map<String, ExportedEntry> changed = new HashMap<>();
            for (ExportKey key : unsaved.get(sink)) {
              changed.put(key.toString(), acknowledged.get(sink).get(key));
            }
            unsaved.put(sink, new HashSet<>());
            Map<ExportKey, ExportedEntry> state = acknowledged.get(sink);
            store.apply(TARGET, sink, changed, Set.of(), () -> CheckpointBook.textView(state));
          }
        }
      }

      long[] io1 = io();
      Cost cost = new Cost((os.getProcessCpuTime() - cpu0) / 1e9,
          threads.getCurrentThreadAllocatedBytes() - alloc0, io1[0] - io0[0], io1[1] - io0[1],
          (System.nanoTime() - wall0) / 1e9);
      for (String sink : SINKS) {
        Map<String, ExportedEntry> expected = CheckpointBook.texts(acknowledged.get(sink));
        if (!new FileCheckpointStore(dir).load(TARGET, sink).equals(expected)) {
          throw new IllegalStateException("the checkpoint of sink " + sink
              + " does not load back the acknowledged state");
        }
      }
      return cost;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** {@code rchar} and {@code wchar} of this process: bytes through read and write calls. */
  private static long[] io() throws IOException {
    long[] out = new long[2];
    for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
      if (line.startsWith("rchar:")) {
        out[0] = Long.parseLong(line.substring(6).strip());
      } else if (line.startsWith("wchar:")) {
        out[1] = Long.parseLong(line.substring(6).strip());
      }
    }
    return out;
  }
}

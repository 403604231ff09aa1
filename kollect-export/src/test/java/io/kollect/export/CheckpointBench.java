package io.kollect.export;

import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.openjdk.jol.info.GraphLayout;

/**
 * The runner behind the checkpoint and export-memory rows of docs/benchmarks.md:
 *
 * <ol>
 *   <li>File checkpoint bytes written per change at 20 changes/s, one write per 1 s interval, 5k
 *       and 50k keys: the whole-file rewrite of format 2 (what {@code save} does) beside format
 *       3's delta log with compaction, in one run. Time is simulated (one write is one interval)
 *       so the figure does not depend on the machine; the time per write is reported as well.
 *   <li>Export state per key and sink at 50k keys, measured with JOL after a converge was
 *       delivered and acknowledged: everything the exporter holds for the (target, sink), minus
 *       what it shares with the records (which belong to the caller).
 * </ol>
 *
 * <p>Run: {@code ./mvnw -o -q -B -ntp -pl kollect-export -am test-compile -Pbench
 * -Dbench.main=io.kollect.export.CheckpointBench -Djmh.args=}
 */
public final class CheckpointBench {

  static final GroupVersionKind CONFIG_MAP = new GroupVersionKind("", "v1", "ConfigMap");
  static final int CHANGES_PER_SECOND = 20;

  private CheckpointBench() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("bench.seconds", 6_000);
    System.out.println("File checkpoint, " + CHANGES_PER_SECOND + " changes/s, " + seconds
        + " one-second intervals simulated\n");
    System.out.println("| keys | store | bytes written / change | ms / write |");
    System.out.println("|---|---|---|---|");
    for (int keys : new int[] {5_000, 50_000}) {
      fileStore(keys, seconds);
    }
    System.out.println();
    exportMemory(50_000);
  }

  static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A record of the benchmark shape: a ConfigMap in one of 20 namespaces. */
  static Record record(int i, int version) {
    return new Record(Op.UPSERT, "local", "bench/t", "bench", CONFIG_MAP, "ns-" + (i % 20),
        "cm-" + i, UUID.nameUUIDFromBytes(("uid" + i).getBytes(StandardCharsets.UTF_8)).toString(),
        Integer.toString(1000 + version), Instant.parse("2026-11-24T04:00:00Z"),
        sha256("cm-" + i + "@" + version), Map.of(), Map.of("app", "bench"), Map.of());
  }

  static ExportedEntry entry(int i, int version) {
    return ExportedEntry.of(record(i, version).withSequence(1_767_225_600_000_000L + i))
        .withLastSentAt(Instant.parse("2026-11-24T04:00:00Z").plusSeconds(version));
  }

  static void fileStore(int keys, int seconds) throws IOException {
    Map<String, ExportedEntry> state = new TreeMap<>();
    for (int i = 0; i < keys; i++) {
      ExportedEntry e = entry(i, 1);
      state.put(e.key(), e);
    }
    Path dir = Files.createTempDirectory("kollect-checkpoint-bench");
    try {
      // format 2: the whole state rewritten once per interval
      FileCheckpointStore whole = new FileCheckpointStore(dir.resolve("whole"));
      whole.save("bench/t", "s", state);
      int rewrites = Math.min(seconds, 30);
      long b0 = whole.bytesWritten();
      long t0 = System.nanoTime();
      Random random = new Random(1);
      for (int s = 0; s < rewrites; s++) {
        for (int c = 0; c < CHANGES_PER_SECOND; c++) {
          ExportedEntry e = entry(random.nextInt(keys), 1000 + s);
          state.put(e.key(), e);
        }
        whole.save("bench/t", "s", state);
      }
      double wholeMs = (System.nanoTime() - t0) / 1e6 / rewrites;
      double wholeBytes = (whole.bytesWritten() - b0) / (double) (rewrites * CHANGES_PER_SECOND);

      // format 3: one delta line per interval, compacted when the log outgrows the snapshot
      FileCheckpointStore log = new FileCheckpointStore(dir.resolve("log"));
      log.save("bench/t", "s", state);
      long b1 = log.bytesWritten();
      long t1 = System.nanoTime();
      for (int s = 0; s < seconds; s++) {
        Map<String, ExportedEntry> changed = new HashMap<>();
        while (changed.size() < CHANGES_PER_SECOND) {
          ExportedEntry e = entry(random.nextInt(keys), 5000 + s);
          changed.put(e.key(), e);
        }
        state.putAll(changed);
        log.apply("bench/t", "s", changed, Set.of());
      }
      double logMs = (System.nanoTime() - t1) / 1e6 / seconds;
      double logBytes = (log.bytesWritten() - b1) / (double) (seconds * CHANGES_PER_SECOND);
      if (!new FileCheckpointStore(dir.resolve("log")).load("bench/t", "s").equals(state)) {
        throw new IllegalStateException("the delta log does not load back the state");
      }
      System.out.printf("| %,d | format 2 (whole rewrite) | %,.0f | %.2f |%n", keys, wholeBytes,
          wholeMs);
      System.out.printf("| %,d | format 3 (delta log + compaction) | %,.0f | %.2f |%n", keys,
          logBytes, logMs);
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** A sink that accepts everything at once. */
  static final class Accepting implements Sink {
    @Override
    public String name() {
      return "s";
    }

    @Override
    public void write(List<Record> batch) {}
  }

  static void exportMemory(int keys) {
    List<Record> records = new ArrayList<>(keys);
    for (int i = 0; i < keys; i++) {
      records.add(record(i, 1));
    }
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(new Accepting(), SinkOptions.defaults().withLinger(Duration.ZERO)
          .withHeartbeatInterval(Duration.ofMinutes(10)));
      ex.converge("bench/t", Set.of("s"), records);
      if (!ex.awaitIdle(Duration.ofMinutes(2))) {
        throw new IllegalStateException("not delivered");
      }
      ex.checkpointTick(); // the steady state: acknowledged keys handed to the (no-op) store
      TargetState ts = ex.targetState("bench/t");
      GraphLayout shared = GraphLayout.parseInstance(records.toArray());
      GraphLayout perSink;
      GraphLayout target;
      int overlay;
      synchronized (ts) {
        SinkState st = ts.bySink.get("s");
        overlay = st.overlaySize();
        target = GraphLayout.parseInstance(ts.current).subtract(shared);
        // what one more sink costs: its state minus the records and the target's map (whose key
        // strings the sink's maps share)
        perSink = GraphLayout.parseInstance(st).subtract(shared)
            .subtract(GraphLayout.parseInstance(ts.current));
      }
      System.out.printf("Export state at %,d keys, one sink (JOL, records excluded):%n", keys);
      System.out.printf("| part | bytes / key |%n|---|---|%n");
      System.out.printf("| per (target, sink): enqueued + acknowledged + send times (keys shared "
          + "with the target's map) | %.0f |%n",
          perSink.totalSize() / (double) keys);
      System.out.printf("| per target: current map (TargetState.current, with the key strings) "
          + "| %.0f |%n",
          target.totalSize() / (double) keys);
      System.out.printf("(keys whose enqueued state differs from the acknowledged one: %,d)%n",
          overlay);
      System.out.println();
      System.out.println(perSink.toFootprint().lines().limit(20)
          .reduce("", (a, b) -> a + b + "\n"));
    }
  }
}

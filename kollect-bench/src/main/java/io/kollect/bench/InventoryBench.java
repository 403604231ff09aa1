package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * P5, P6 and P1 share one flow per inventory size, on one API server (objects are added between
 * sizes, never re-created):
 *
 * <ol>
 *   <li>grow the fixture to the size; time a paginated LIST of it three times (median);
 *   <li>run A (timed): start the operator, wait until every object's record reached the http
 *       receiver and stdout (and the file sink when enabled), sampling RSS from /proc only, so
 *       nothing perturbs the timing; then steady RSS and live heap after a forced full GC;
 *   <li>optionally, still in run A, changes at a fixed rate: CPU from /proc and change→record
 *       latency per channel (beside the runner's raw watch when enabled);
 *   <li>optionally run B: the same inventory again with a forced full GC every few seconds, for
 *       the peak live heap during the first inventory (kept out of run A's timing).
 * </ol>
 */
final class InventoryBench {

  /** What to run. */
  record Plan(String scenario, List<Integer> sizes, boolean liveHeapRun, double changesPerSecond,
      Duration changeDuration, boolean fileSink, boolean rawWatch, Duration inventoryTimeout,
      Duration steadyWait, int createParallelism, boolean jfr, int baselineRounds) {}

  private static final Duration SAMPLE_EVERY = Duration.ofSeconds(1);
  private static final Duration LIVE_SAMPLE_EVERY = Duration.ofSeconds(3);

  private final Plan plan;
  private final BenchCluster cluster;
  private final OperatorLauncher launcher;
  /** Another build of the operator timed beside {@link #launcher} on the same objects, or null. */
  private final OperatorLauncher baseline;
  private final RecordReceiver receiver;
  private final Path workDir;

  InventoryBench(Plan plan, BenchCluster cluster, OperatorLauncher launcher, RecordReceiver receiver,
      Path workDir) {
    this(plan, cluster, launcher, null, receiver, workDir);
  }

  /**
   * With a {@code baseline}: each size's timed run (run A) is taken with the baseline build and
   * with this one, on the same objects and API server, so the two compare within one run, for
   * {@link Plan#baselineRounds} rounds in alternating order (see {@link #baselineFirst}).
   */
  InventoryBench(Plan plan, BenchCluster cluster, OperatorLauncher launcher,
      OperatorLauncher baseline, RecordReceiver receiver, Path workDir) {
    this.plan = plan;
    this.cluster = cluster;
    this.launcher = launcher;
    this.baseline = baseline;
    this.receiver = receiver;
    this.workDir = workDir;
  }

  List<Map<String, Object>> run() throws Exception {
    Path filePath = workDir.resolve("file-sink").resolve("records.jsonl");
    List<String> sinks = new ArrayList<>(List.of("bench-http"));
    cluster.apply(Fixture.profileYaml());
    cluster.apply(Fixture.httpSinkYaml("bench-http", receiver.url()));
    if (plan.fileSink()) {
      Files.createDirectories(filePath.getParent());
      cluster.apply(Fixture.fileSinkYaml("bench-file", filePath.toString()));
      sinks.add("bench-file");
    }
    Map<String, Object> calibration = calibrate();
    cluster.apply(Fixture.targetYaml("bench", sinks, null));
    List<Map<String, Object>> results = new ArrayList<>();
    for (int size : plan.sizes()) {
      Map<String, Object> r = runSize(size, filePath);
      r.put("calibration", calibration);
      results.add(r);
    }
    return results;
  }

  /**
   * The start-up constant: the operator's start to the record of a one-object target (JVM start,
   * CR watches, one informer's list). Subtracted from a full inventory it leaves the part that
   * grows with the objects, which is what the LIST is compared with.
   */
  private Map<String, Object> calibrate() throws Exception {
    String target = Fixture.targetYaml("calibration", List.of("bench-http"), Fixture.CALIBRATION_NAMESPACE);
    cluster.apply(target);
    Channel http = new Channel("http", Fixture.CALIBRATION_NAME, 1);
    Channel stdout = new Channel("stdout", Fixture.CALIBRATION_NAME, 1);
    receiver.deliverTo(http);
    Map<String, Object> out = new LinkedHashMap<>();
    try (OperatorChild op = launcher.start(plan.scenario() + "-calibration", cluster.kubeconfig(),
        (line, now) -> stdoutLine(stdout, line, now))) {
      boolean complete = awaitAll(op, List.of(http, stdout));
      out.put("complete", complete);
      if (complete) {
        out.put("startupSeconds", (Math.max(http.completeNanos(), stdout.completeNanos()) - op.startNanos()) / 1e9);
      }
    } finally {
      cluster.delete(target);
    }
    System.err.printf("  calibration (one-object target): %s%n", out);
    return out;
  }

  private Map<String, Object> runSize(int size, Path filePath) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("objects", size);
    System.err.printf("== %s: %d ConfigMaps%n", plan.scenario(), size);
    out.put("createSeconds", cluster.growTo(size, plan.createParallelism()));

    double[] lists = new double[3];
    PlainApi.ListResult listed = null;
    Map<String, Double> listCpuBefore = ProcessCpu.now();
    for (int i = 0; i < lists.length; i++) {
      long t = System.nanoTime();
      listed = cluster.api().listAll("/api/v1/configmaps", 500);
      lists[i] = (System.nanoTime() - t) / 1e9;
    }
    // what serving (and decoding) one LIST costs each process: the budget a first inventory shares
    out.put("listCpuSecondsByProcess",
        ProcessCpu.perRepeat(ProcessCpu.between(listCpuBefore, ProcessCpu.now()), lists.length));
    out.put("listSeconds", lists);
    out.put("listMedianSeconds", Stats.median(lists));
    out.put("listItems", listed.items());
    out.put("listPages", listed.pages());
    System.err.printf("  paginated LIST (limit 500): %.2f s median of %s, %d items%n",
        Stats.median(lists), java.util.Arrays.toString(lists), listed.items());

    Channel watch = null;
    if (plan.rawWatch()) {
      watch = new Channel("watch", Integer.MAX_VALUE);
      Channel w = watch;
      cluster.api().watch("/api/v1/configmaps", listed.resourceVersion(), ev -> {
        long now = System.nanoTime();
        JsonNode o = ev.path("object");
        w.seen(o.path("metadata").path("namespace").asText(), o.path("metadata").path("name").asText(),
            o.path("data").path("stamp").asText(""), now);
      });
    }

    if (baseline == null) {
      out.put("run", timedRun(launcher, "", size, filePath, watch));
    } else {
      baselineRounds(out, size, filePath, watch);
    }
    if (plan.liveHeapRun()) {
      out.put("liveHeapRun", liveHeapRun(size));
    }
    return out;
  }

  /**
   * Each round's timed runs of both builds, in alternating order ({@link #baselineFirst}); the
   * first round's runs are the size's {@code run} and {@code baselineRun}.
   */
  private void baselineRounds(Map<String, Object> out, int size, Path filePath, Channel watch)
      throws Exception {
    System.err.printf("  baseline build: %s, JVM options %s%n", baseline.jar(), baseline.jvmOptions());
    List<Map<String, Object>> rounds = new ArrayList<>();
    for (int round = 0; round < Math.max(1, plan.baselineRounds()); round++) {
      String suffix = round == 0 ? "" : "-r" + (round + 1);
      boolean baselineFirst = baselineFirst(round);
      Map<String, Object> baselineRun;
      Map<String, Object> thisRun;
      if (baselineFirst) {
        baselineRun = timedRun(baseline, "-baseline" + suffix, size, filePath, watch);
        thisRun = timedRun(launcher, suffix, size, filePath, watch);
      } else {
        thisRun = timedRun(launcher, suffix, size, filePath, watch);
        baselineRun = timedRun(baseline, "-baseline" + suffix, size, filePath, watch);
      }
      if (round == 0) {
        out.put("baselineRun", baselineRun);
        out.put("run", thisRun);
      }
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("baselineFirst", baselineFirst);
      r.put("baselineSeconds", baselineRun.get("inventorySeconds"));
      r.put("seconds", thisRun.get("inventorySeconds"));
      putChangeFigures(r, "", thisRun);
      putChangeFigures(r, "baseline", baselineRun);
      rounds.add(r);
      System.err.printf("  round %d: %s%n", round + 1, r);
    }
    out.put("rounds", rounds);
  }

  /**
   * Puts a timed run's change-phase figures (P6) into its round, named with {@code prefix} ({@code
   * ""} for this build, {@code "baseline"} for the other), so that the tail and the CPU per change
   * of two builds can be set side by side round by round; a run without a change phase adds none.
   */
  static void putChangeFigures(Map<String, Object> round, String prefix, Map<String, Object> run) {
    if (!(run.get("changes") instanceof Map<?, ?> changes)) {
      return;
    }
    round.put(figureKey(prefix, "cpuMsPerChange"), changes.get("cpuMsPerChange"));
    if (changes.get("latency") instanceof Map<?, ?> latency
        && latency.get("http") instanceof Map<?, ?> http) {
      round.put(figureKey(prefix, "httpP99Ms"), http.get("p99Ms"));
      round.put(figureKey(prefix, "httpAboveFloorP99Ms"), http.get("aboveFloorP99Ms"));
    }
  }

  static String figureKey(String prefix, String figure) {
    return prefix.isEmpty() ? figure
        : prefix + Character.toUpperCase(figure.charAt(0)) + figure.substring(1);
  }

  /**
   * Whether the baseline runs first in round {@code round} (from 0): round 0 runs it first, round 1
   * runs this build first, and so on, so two rounds run B, T, T, B. Timed runs of one size get
   * faster over the minutes after its objects were created (the same jar four times in a row at
   * 50k: 14.2, 13.8, 13.7, 11.7 s), so a fixed order credits whichever build runs second; this
   * order cancels a steady drift over each two rounds.
   */
  static boolean baselineFirst(int round) {
    return round % 2 == 0;
  }

  /** Run A: inventory timed, then steady state, then (optionally) changes. */
  private Map<String, Object> timedRun(OperatorLauncher launcher, String runSuffix, int size,
      Path filePath, Channel watch) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    Channel http = new Channel("http", size);
    Channel stdout = new Channel("stdout", size);
    Channel file = plan.fileSink() ? new Channel("file", size) : null;
    receiver.deliverTo(http);
    Files.deleteIfExists(filePath);
    List<Channel> channels = new ArrayList<>(List.of(http, stdout));
    if (file != null) {
      channels.add(file);
    }
    String runName = plan.scenario() + "-" + size + "-timed" + runSuffix;
    Path recording = launcher.runDir(runName).resolve("operator.jfr");
    List<String> runJvm = plan.jfr()
        // gc=high turns on the per-allocation events (InNewTLAB/OutsideTLAB) that profile leaves off
        ? List.of("-XX:StartFlightRecording=settings=profile,gc=high,dumponexit=true,filename=" + recording)
        : List.of();
    java.time.Instant[] changeWindow = new java.time.Instant[2];
    java.time.Instant[] inventoryWindow = {java.time.Instant.now(), null};
    Map<String, Double> cpuBefore = ProcessCpu.now();
    try (OperatorChild op = launcher.start(runName, cluster.kubeconfig(),
            (line, now) -> stdoutLine(stdout, line, now), runJvm);
        FileTail tail = file == null ? null : FileTail.start(filePath, file)) {
      MemorySampler sampler = MemorySampler.start(op, SAMPLE_EVERY, false);
      boolean complete = awaitAll(op, channels);
      inventoryWindow[1] = java.time.Instant.now();
      // the operator's CPU is read while it still runs: once exited it is no descendant
      out.put("inventoryCpuSecondsByProcess", ProcessCpu.between(cpuBefore, ProcessCpu.now()));
      Map<String, Object> limits = op.limitStats();
      if (!limits.isEmpty()) {
        out.put("inventoryLimits", limits);
      }
      sampler.stop();
      out.putAll(inventoryFigures(op, channels, complete, sampler));
      System.err.printf("  inventory: %s%n", out);
      if (complete && op.isAlive()) {
        waitQuietly(plan.steadyWait());
        ProcFiles.Memory m = op.memory();
        out.put("steadyRssBytes", m.rssBytes());
        out.put("peakRssBytes", m.peakRssBytes());
        long live = op.liveHeapAfterFullGc();
        out.put("steadyLiveHeapBytes", live);
        out.put("liveHeapBytesPerObject", live / (double) size);
        System.err.printf("  steady: RSS %d MiB, live heap %d MiB (%.0f B/object)%n",
            m.rssBytes() >> 20, live >> 20, live / (double) size);
        Path histogram = launcher.runDir(runName).resolve("class-histogram.txt");
        op.writeClassHistogram(histogram);
        out.put("classHistogram", histogram.toString());
        System.err.printf("  class histogram (live objects): %s%n", histogram);
        if (plan.changesPerSecond() > 0 && !plan.changeDuration().isZero()) {
          List<Channel> measured = new ArrayList<>(channels);
          if (watch != null) {
            measured.add(0, watch);
          }
          changeWindow[0] = java.time.Instant.now();
          out.put("changes", changes(op, size, measured));
          changeWindow[1] = java.time.Instant.now();
        }
      }
      out.put("diedOfOom", op.diedOfOom());
      out.put("exitCode", op.exitCode());
    }
    if (plan.jfr() && inventoryWindow[1] != null && Files.exists(recording)) {
      out.put("firstInventoryCpu", CpuProfile.during(recording, inventoryWindow[0], inventoryWindow[1]));
      System.err.printf("  where the first inventory's CPU went: %s%n", out.get("firstInventoryCpu"));
    }
    if (plan.jfr() && changeWindow[1] != null && Files.exists(recording)) {
      out.put("allocations", LargestAllocations.during(recording, changeWindow[0], changeWindow[1]));
      System.err.printf("  largest allocations while changing: %s%n", out.get("allocations"));
    }
    return out;
  }

  private static void stdoutLine(Channel stdout, String line, long now) {
    if (line.startsWith("{")) {
      try {
        stdout.record(PlainApi.JSON.readTree(line), now);
      } catch (IOException e) {
        // not a record line
      }
    }
  }

  private boolean awaitAll(OperatorChild op, List<Channel> channels) throws InterruptedException {
    long deadline = System.nanoTime() + plan.inventoryTimeout().toNanos();
    long lastReport = System.nanoTime();
    for (Channel c : channels) {
      while (!c.awaitComplete(Math.min(deadline, System.nanoTime() + 10_000_000_000L), () -> !op.isAlive())) {
        if (!op.isAlive() || System.nanoTime() >= deadline) {
          return false;
        }
        if (System.nanoTime() - lastReport > 9_000_000_000L) {
          lastReport = System.nanoTime();
          System.err.printf("  ... %.0f s: %s%n", (System.nanoTime() - op.startNanos()) / 1e9,
              channels.stream().map(x -> x.name() + " " + x.distinct()).toList());
        }
      }
    }
    return true;
  }

  private Map<String, Object> inventoryFigures(OperatorChild op, List<Channel> channels, boolean complete,
      MemorySampler sampler) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("complete", complete);
    long last = 0;
    for (Channel c : channels) {
      out.put(c.name() + "Delivered", c.distinct());
      if (c.firstNanos() != 0) {
        out.put(c.name() + "FirstRecordSeconds", (c.firstNanos() - op.startNanos()) / 1e9);
      }
      if (c.completeNanos() != 0) {
        out.put(c.name() + "InventorySeconds", (c.completeNanos() - op.startNanos()) / 1e9);
        last = Math.max(last, c.completeNanos());
      }
    }
    if (complete) {
      out.put("inventorySeconds", (last - op.startNanos()) / 1e9);
    }
    out.put("peakRssBytes", sampler.peakRss());
    out.put("alive", op.isAlive());
    return out;
  }

  /** Changes at the plan's rate for its duration; CPU per change and latency per channel. */
  private Map<String, Object> changes(OperatorChild op, int size, List<Channel> channels) throws Exception {
    Set<Long> stamps = ConcurrentHashMap.newKeySet();
    channels.forEach(c -> c.measure(stamps));
    List<String> paths = BenchCluster.pathsOf(size);
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    long periodNanos = (long) (1e9 / plan.changesPerSecond());
    int total = (int) Math.round(plan.changesPerSecond() * plan.changeDuration().toNanos() / 1e9);
    System.err.printf("  changes: %d at %.0f/s over %s%n", total, plan.changesPerSecond(), plan.changeDuration());
    long cpu0 = op.cpuTicks();
    long written0 = op.storageWriteBytes();
    long t0 = System.nanoTime();
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    try {
      ticker.scheduleAtFixedRate(() -> {
        if (sent.get() >= total) {
          return;
        }
        String path = paths.get(ThreadLocalRandom.current().nextInt(paths.size()));
        long stamp = System.nanoTime();
        stamps.add(stamp);
        sent.incrementAndGet();
        cluster.api().mergePatchAsync(path, Fixture.stampPatch(stamp)).whenComplete((r, e) -> {
          if (e != null || r.statusCode() != 200) {
            failed.incrementAndGet();
          }
        });
      }, 0, periodNanos, TimeUnit.NANOSECONDS);
      while (sent.get() < total) {
        Thread.sleep(100);
      }
    } finally {
      ticker.shutdownNow();
    }
    long windowNanos = System.nanoTime() - t0;
    // Drain: until every channel saw every change (or 15 s), so the CPU covers all their work.
    long drainDeadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (System.nanoTime() < drainDeadline && op.isAlive()
        && channels.stream().anyMatch(c -> c.changesSeen() < total - failed.get())) {
      Thread.sleep(50);
    }
    long elapsed = System.nanoTime() - t0;
    double cpuSeconds = (op.cpuTicks() - cpu0) / (double) ClockTicks.PER_SECOND;
    long written = op.storageWriteBytes() - written0;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sent", total);
    out.put("failed", failed.get());
    out.put("windowSeconds", windowNanos / 1e9);
    out.put("cpuSeconds", cpuSeconds);
    out.put("cpuMsPerChange", cpuSeconds * 1000 / total);
    out.put("cores", cpuSeconds / (elapsed / 1e9));
    // The file checkpoint (--checkpoint-dir) is all the operator writes to storage here.
    out.put("storageBytesWritten", written);
    out.put("storageBytesPerChange", written / (double) total);
    Map<String, Object> latency = new LinkedHashMap<>();
    for (Channel c : channels) {
      Stats s = Stats.of(c.latenciesMs());
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("seen", c.changesSeen());
      l.put("p50Ms", s.p50());
      l.put("p99Ms", s.p99());
      l.put("maxMs", s.max());
      Channel floor = channels.get(0);
      if (floor.name().equals("watch") && c != floor) {
        // Kollect's own share of each change's latency: after the API server's watch delivered it.
        Stats above = Stats.of(c.msAfter(floor));
        l.put("aboveFloorP50Ms", above.p50());
        l.put("aboveFloorP99Ms", above.p99());
        l.put("aboveFloorMaxMs", above.max());
        Map<String, List<Double>> stages = c.stagesAfter(floor);
        Stats toExtracted = Stats.of(stages.get("watchToExtracted"));
        Stats toDelivered = Stats.of(stages.get("extractedToDelivered"));
        l.put("watchToExtractedP50Ms", toExtracted.p50());
        l.put("watchToExtractedP99Ms", toExtracted.p99());
        l.put("extractedToDeliveredP50Ms", toDelivered.p50());
        l.put("extractedToDeliveredP99Ms", toDelivered.p99());
      }
      latency.put(c.name(), l);
    }
    out.put("latency", latency);
    System.err.printf("  changes: %s%n", out);
    return out;
  }

  /** Run B: the same first inventory with a forced full GC every few seconds (peak live heap). */
  private Map<String, Object> liveHeapRun(int size) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    Channel http = new Channel("http", size);
    Channel stdout = new Channel("stdout", size);
    receiver.deliverTo(http);
    try (OperatorChild op = launcher.start(plan.scenario() + "-" + size + "-liveheap", cluster.kubeconfig(),
        (line, now) -> stdoutLine(stdout, line, now))) {
      MemorySampler sampler = MemorySampler.start(op, LIVE_SAMPLE_EVERY, true);
      boolean complete = awaitAll(op, List.of(http, stdout));
      sampler.stop();
      out.put("complete", complete);
      out.put("httpDelivered", http.distinct());
      out.put("peakLiveHeapBytes", sampler.peakLive());
      out.put("liveSamples", sampler.liveSamples());
      out.put("peakRssBytes", sampler.peakRss());
      if (complete && op.isAlive()) {
        waitQuietly(plan.steadyWait());
        long after = op.liveHeapAfterFullGc();
        out.put("liveHeapAfterBytes", after);
        out.put("peakOverAfter", sampler.peakLive() / (double) after);
      }
      out.put("diedOfOom", op.diedOfOom());
      out.put("exitCode", op.exitCode());
      System.err.printf("  live-heap run: %s%n", out);
    }
    return out;
  }

  private static void waitQuietly(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis());
  }

  /** /proc/<pid>/clock ticks: sysconf(_SC_CLK_TCK) is 100 on every Linux the JDK supports. */
  static final class ClockTicks {
    static final int PER_SECOND = 100;

    private ClockTicks() {}
  }

  /** Samples RSS (and, when asked, live heap after a forced full GC) on a daemon thread. */
  static final class MemorySampler {
    private final AtomicLong peakRss = new AtomicLong();
    private final AtomicLong peakLive = new AtomicLong(-1);
    private final List<Long> live = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;
    private Thread thread;

    static MemorySampler start(OperatorChild op, Duration every, boolean liveHeap) {
      MemorySampler s = new MemorySampler();
      s.thread = new Thread(() -> {
        while (!s.stopped && op.isAlive()) {
          try {
            s.peakRss.accumulateAndGet(op.memory().peakRssBytes(), Math::max);
            if (liveHeap) {
              long l = op.liveHeapAfterFullGc();
              if (l > 0) {
                s.live.add(l);
                s.peakLive.accumulateAndGet(l, Math::max);
              }
            }
            Thread.sleep(every.toMillis());
          } catch (IOException e) {
            return; // the process is gone
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "memory-sampler");
      s.thread.setDaemon(true);
      s.thread.start();
      return s;
    }

    void stop() throws InterruptedException {
      stopped = true;
      thread.interrupt();
      thread.join(30_000);
    }

    long peakRss() {
      return peakRss.get();
    }

    long peakLive() {
      return peakLive.get();
    }

    List<Long> liveSamples() {
      return List.copyOf(live);
    }
  }

  /** Follows a file sink's JSONL file as it grows (polling every 2 ms: that is its resolution). */
  static final class FileTail implements AutoCloseable {
    private volatile boolean closed;
    private Thread thread;

    static FileTail start(Path file, Channel channel) {
      FileTail t = new FileTail();
      t.thread = new Thread(() -> {
        long pos = 0;
        StringBuilder partial = new StringBuilder();
        byte[] buf = new byte[1 << 16];
        while (!t.closed) {
          try {
            if (Files.exists(file)) {
              try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                if (f.length() < pos) {
                  pos = 0; // rotated
                }
                f.seek(pos);
                int n;
                while ((n = f.read(buf)) > 0) {
                  pos += n;
                  long now = System.nanoTime();
                  partial.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                  int nl;
                  while ((nl = partial.indexOf("\n")) >= 0) {
                    String line = partial.substring(0, nl);
                    partial.delete(0, nl + 1);
                    stdoutLine(channel, line, now);
                  }
                }
              }
            }
            Thread.sleep(2);
          } catch (IOException e) {
            // the sink is rotating the file; next poll
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "file-tail");
      t.thread.setDaemon(true);
      t.thread.start();
      return t;
    }

    @Override
    public void close() throws InterruptedException {
      closed = true;
      thread.interrupt();
      thread.join(5000);
    }
  }
}

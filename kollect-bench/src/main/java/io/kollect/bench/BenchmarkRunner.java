package io.kollect.bench;

import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Operator-at-scale benchmarks (P1, P2, P5, P6, P7, P8 of docs/benchmarks.md), run against the packaged operator as a black box (see
 * docs/benchmarks.md, "Operator at scale"). Each scenario prints a markdown table on stdout
 * (progress goes to stderr) and writes its full results as JSON under {@code kollect-bench/target/}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    subcommands = {BenchmarkRunner.P1.class, BenchmarkRunner.P2.class, BenchmarkRunner.P5.class,
        BenchmarkRunner.P6.class, BenchmarkRunner.P7.class, BenchmarkRunner.P8.class, BenchmarkRunner.Postgres.class},
    description = "Operator-at-scale benchmarks: p1 (latency per sink vs watch), p2 (API requests vs "
        + "targets), p5 (full inventory vs LIST, memory), p6 (CPU per change and latency at 5k vs 50k), p7 (cost per added KollectCluster), "
        + "p8 (1 vs S shards by object and by cluster over N KollectClusters), "
        + "postgres (first inventory into an empty table vs LIST, change→committed row vs watch, rows and bytes per change).")
public final class BenchmarkRunner {

  private BenchmarkRunner() {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new BenchmarkRunner()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
  }

  /** Options every scenario has. */
  static final class Common {
    @Option(names = "--repo", defaultValue = ".", description = "Repository root (default: current directory).")
    Path repo;

    @Option(names = "--jar", description = "Packaged operator (default: <repo>/kollect-operator/target/kollect.jar).")
    Path jar;

    @Option(names = "--jvm", defaultValue = "shipped",
        description = "shipped: JAVA_TOOL_OPTIONS of deploy/manager/deployment.yaml plus its container limits "
            + "(-XX:MaxRAM=512m -XX:ActiveProcessorCount=1); "
            + "defaults: the JVM's own defaults (default: ${DEFAULT-VALUE}).")
    OperatorLauncher.Jvm jvm;

    @Option(names = "--jvm-option", paramLabel = "OPTION",
        description = "Extra JVM option for the operator (repeatable), e.g. -XX:StartFlightRecording=...")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = "--operator-arg", paramLabel = "ARG",
        description = "Extra argument to `kollect run` (repeatable), e.g. --kube-api-qps=100.")
    List<String> operatorArgs = new ArrayList<>();

    @Option(names = "--out", description = "JSON results file (default: <repo>/kollect-bench/target/bench-<scenario>-<time>.json).")
    Path out;

    @Option(names = "--enforce-limits",
        description = "Hold each operator run to the Deployment's container limits (CPU quota, memory limit) "
            + "with a control group of its own, as a container runtime would; needs root and cgroup v1 "
            + "(default: the limits are only told to the JVM).")
    boolean enforceLimits;

    @Option(names = "--owner-references", arity = "0..1", paramLabel = "OBJECTS",
        fallbackValue = "" + Fixture.OBJECTS_PER_OWNER,
        description = "Give every fixture ConfigMap one owner reference, as a ReplicaSet's Pods carry, "
            + "OBJECTS objects of a namespace to an owner (alone: ${FALLBACK-VALUE}; 1: an owner each, "
            + "as a Job's Pod has), to see what owner references cost the cache (default: none).")
    int objectsPerOwner;

    Path jar() {
      return jar != null ? jar : repo.resolve("kollect-operator/target/kollect.jar");
    }

    Path workDir(String scenario) {
      return repo.resolve("kollect-bench/target/work").resolve(scenario + "-" + System.currentTimeMillis());
    }
  }

  /** Options of the inventory-based scenarios (P1, P5, P6). */
  static final class InventoryOptions {
    @Option(names = "--inventory-timeout", defaultValue = "15m", converter = GoDuration.class,
        description = "Give up on a full inventory after this long (default: ${DEFAULT-VALUE}).")
    Duration inventoryTimeout;

    @Option(names = "--steady-wait", defaultValue = "10s", converter = GoDuration.class,
        description = "Wait after the inventory before steady RSS and live heap are read (default: ${DEFAULT-VALUE}).")
    Duration steadyWait;

    @Option(names = "--create-parallelism", defaultValue = "32",
        description = "Create requests in flight while filling the cluster (default: ${DEFAULT-VALUE}).")
    int createParallelism;
  }

  /** Another build's timed runs beside this one's (P5, P6). */
  static final class BaselineOptions {
    @Option(names = "--baseline-jar", paramLabel = "JAR",
        description = "Another packaged operator (e.g. main's) whose timed runs are taken beside this one's, "
            + "on the same objects (default: none).")
    Path baselineJar;

    @Option(names = "--baseline-jvm-option", paramLabel = "OPTION",
        description = "Extra JVM option for the baseline run only (repeatable; later options win, so "
            + "e.g. -XX:+UseG1GC compares a collector with --baseline-jar set to the same jar).")
    List<String> baselineJvmOptions = new ArrayList<>();

    @Option(names = "--rounds", defaultValue = "2",
        description = "With --baseline-jar: timed runs per build and size, the order alternating "
            + "(baseline first, then this build first, ...), since runs get faster over the minutes "
            + "after the objects were created (default: ${DEFAULT-VALUE}).")
    int rounds;

    /** The baseline's launcher, {@code l}'s settings with the baseline's jar and extra options. */
    OperatorLauncher launcher(OperatorLauncher l) {
      return baselineJar == null ? null
          : new OperatorLauncher(baselineJar.toAbsolutePath(), concat(l.jvmOptions(), baselineJvmOptions),
              l.workDir(), l.extraRunArgs(), l.enforced());
    }
  }

  abstract static class Scenario implements Callable<Integer> {
    @Mixin Common common;

    abstract String name();

    abstract List<Map<String, Object>> results(BenchCluster cluster, OperatorLauncher launcher,
        RecordReceiver receiver, Path workDir) throws Exception;

    abstract String table(List<Map<String, Object>> results);

    @Override
    public Integer call() throws Exception {
      Path repo = common.repo.toAbsolutePath().normalize();
      common.repo = repo;
      if (!Files.isRegularFile(common.jar())) {
        System.err.println("packaged operator not found at " + common.jar()
            + ": build it with ./mvnw -o -q -B -ntp -DskipTests -pl kollect-operator -am package");
        return 2;
      }
      Path workDir = common.workDir(name());
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("scenario", name());
      report.put("startedAt", Instant.now().toString());
      report.put("loadAverageBefore", Files.readString(Path.of("/proc/loadavg")).trim());
      report.put("jar", common.jar().toString());
      report.put("objectsPerOwner", common.objectsPerOwner);
      OperatorLauncher launcher = OperatorLauncher.of(repo, common.jar(), workDir, new OperatorLauncher.Settings(
          common.jvm, common.jvmOptions, common.operatorArgs, common.enforceLimits));
      report.put("limitsEnforced", launcher.enforced());
      report.put("operatorJvmOptions", launcher.jvmOptions());
      System.err.println("operator JVM options: " + launcher.jvmOptions());
      List<Map<String, Object>> results;
      try (BenchCluster cluster = BenchCluster.start(repo, workDir);
          RecordReceiver receiver = new RecordReceiver()) {
        cluster.objectsPerOwner(common.objectsPerOwner);
        results = results(cluster, launcher, receiver, workDir);
      }
      report.put("loadAverageAfter", Files.readString(Path.of("/proc/loadavg")).trim());
      report.put("finishedAt", Instant.now().toString());
      report.put("results", results);
      String table = table(results);
      report.put("table", table);
      Path out = common.out != null ? common.out
          : repo.resolve("kollect-bench/target/bench-" + name() + "-" + System.currentTimeMillis() + ".json");
      Files.createDirectories(out.toAbsolutePath().getParent());
      PlainApi.JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), report);
      System.out.println("### " + name() + " (load average before: " + report.get("loadAverageBefore")
          + "; after: " + report.get("loadAverageAfter") + "; operator JVM: "
          + (launcher.jvmOptions().isEmpty() ? "defaults" : String.join(" ", launcher.jvmOptions()))
          + ")\n");
      System.out.println(table);
      System.out.println("JSON: " + out);
      return 0;
    }
  }

  @Command(name = "p5", mixinStandardHelpOptions = true,
      description = "Time to full inventory vs a paginated LIST, RSS and live heap, at each size.")
  static final class P5 extends Scenario {
    @Option(names = "--objects", split = ",", defaultValue = "5000,20000,50000,150000",
        description = "Inventory sizes, ascending (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--live-heap-run", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Second run per size with a forced full GC every 3 s for the peak live heap (default: ${DEFAULT-VALUE}).")
    boolean liveHeapRun;

    @Mixin BaselineOptions baseline;

    @Mixin InventoryOptions inventory;

    @Override
    String name() {
      return "p5";
    }

    @Override
    List<Map<String, Object>> results(BenchCluster c, OperatorLauncher l, RecordReceiver r, Path w) throws Exception {
      return new InventoryBench(new InventoryBench.Plan("p5", sizes, liveHeapRun, 0, Duration.ZERO, false, false,
          inventory.inventoryTimeout, inventory.steadyWait, inventory.createParallelism, false,
          baseline.rounds), c, l, baseline.launcher(l), r, w).run();
    }

    @Override
    String table(List<Map<String, Object>> results) {
      return Tables.inventory(results);
    }
  }

  @Command(name = "p6", mixinStandardHelpOptions = true,
      description = "CPU per change and change→record latency under a steady change rate, at each size.")
  static final class P6 extends Scenario {
    @Option(names = "--objects", split = ",", defaultValue = "5000,50000",
        description = "Inventory sizes, ascending (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--rate", defaultValue = "20", description = "Changes per second (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", defaultValue = "60s", converter = GoDuration.class,
        description = "How long to change objects (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--jfr", description = "Record the operator with JFR (settings=profile, gc=high) and report the "
        + "largest single allocations while changing and where the first inventory's CPU went (with "
            + "--duration 0s: the first inventory only); this costs CPU, so do not quote CPU from such a run.")
    boolean jfr;

    @Mixin BaselineOptions baseline;

    @Mixin InventoryOptions inventory;

    @Override
    String name() {
      return "p6";
    }

    @Override
    List<Map<String, Object>> results(BenchCluster c, OperatorLauncher l, RecordReceiver r, Path w) throws Exception {
      // The runner's raw watch is the floor: the API server's own delivery of each change. With a
      // baseline, each build's timed run changes the same objects for the same duration in turn.
      return new InventoryBench(new InventoryBench.Plan("p6", sizes, false, rate, duration, false, true,
          inventory.inventoryTimeout, inventory.steadyWait, inventory.createParallelism, jfr,
          baseline.rounds), c, l, baseline.launcher(l), r, w).run();
    }

    @Override
    String table(List<Map<String, Object>> results) {
      return Tables.inventory(results) + "\n" + Tables.changes(results, List.of("watch", "http", "stdout"))
          + (jfr ? "\n" + Tables.allocations(results) : "");
    }
  }

  @Command(name = "p1", mixinStandardHelpOptions = true,
      description = "Change→record latency per sink (http, stdout, file) beside the runner's raw watch.")
  static final class P1 extends Scenario {
    @Option(names = "--objects", defaultValue = "1000", description = "Inventory size (default: ${DEFAULT-VALUE}).")
    int objects;

    @Option(names = "--rate", defaultValue = "10", description = "Changes per second (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", defaultValue = "30s", converter = GoDuration.class,
        description = "How long to change objects (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Mixin InventoryOptions inventory;

    @Override
    String name() {
      return "p1";
    }

    @Override
    List<Map<String, Object>> results(BenchCluster c, OperatorLauncher l, RecordReceiver r, Path w) throws Exception {
      return new InventoryBench(new InventoryBench.Plan("p1", List.of(objects), false, rate, duration, true, true,
          inventory.inventoryTimeout, inventory.steadyWait, inventory.createParallelism, false, 0), c, l, r, w)
          .run();
    }

    @Override
    String table(List<Map<String, Object>> results) {
      return Tables.changes(results, List.of("watch", "http", "stdout", "file"));
    }
  }

  @Command(name = "p2", mixinStandardHelpOptions = true,
      description = "API requests and time to every status against the number of targets.")
  static final class P2 extends Scenario {
    @Option(names = "--targets", split = ",", defaultValue = "1,100,1000",
        description = "Target counts (default: ${DEFAULT-VALUE}).")
    List<Integer> counts;

    @Option(names = "--objects", defaultValue = "1000",
        description = "ConfigMaps over the 20 namespaces (default: ${DEFAULT-VALUE}).")
    int objects;

    @Option(names = "--steady", defaultValue = "60s", converter = GoDuration.class,
        description = "Steady window after every status is written (default: ${DEFAULT-VALUE}).")
    Duration steady;

    @Option(names = "--status-timeout", defaultValue = "10m", converter = GoDuration.class,
        description = "Give up waiting for every status after this long (default: ${DEFAULT-VALUE}).")
    Duration statusTimeout;

    @Override
    String name() {
      return "p2";
    }

    @Override
    List<Map<String, Object>> results(BenchCluster c, OperatorLauncher l, RecordReceiver r, Path w) throws Exception {
      return new TargetsBench(new TargetsBench.Plan(counts, objects, steady, statusTimeout), c, l, r).run();
    }

    @Override
    String table(List<Map<String, Object>> results) {
      return Tables.targets(results);
    }
  }

  @Command(name = "p7", mixinStandardHelpOptions = true,
      description = "Threads, live heap, open watches and API requests per added KollectCluster "
          + "(N clusters pointing at 2 API servers under different names, 2 watched types).")
  static final class P7 extends Scenario {
    @Option(names = "--clusters", split = ",", defaultValue = "1,10,50",
        description = "KollectCluster counts, ascending (default: ${DEFAULT-VALUE}).")
    List<Integer> counts;

    @Option(names = "--objects", defaultValue = "20",
        description = "ConfigMaps and as many Services on each remote API server (default: ${DEFAULT-VALUE}).")
    int objects;

    @Option(names = "--idle-wait", defaultValue = "15s", converter = GoDuration.class,
        description = "Wait after the inventory before threads, heap and watches are read (default: ${DEFAULT-VALUE}).")
    Duration idleWait;

    @Option(names = "--steady", defaultValue = "30s", converter = GoDuration.class,
        description = "Window for the idle API requests (default: ${DEFAULT-VALUE}).")
    Duration steady;

    @Option(names = "--inventory-timeout", defaultValue = "5m", converter = GoDuration.class,
        description = "Give up on a full inventory after this long (default: ${DEFAULT-VALUE}).")
    Duration inventoryTimeout;

    @Override
    String name() {
      return "p7";
    }

    @Override
    List<Map<String, Object>> results(BenchCluster c, OperatorLauncher l, RecordReceiver r, Path w) throws Exception {
      return new ClustersBench(new ClustersBench.Plan(counts, objects, idleWait, steady, inventoryTimeout), c, l)
          .run();
    }

    @Override
    String table(List<Map<String, Object>> results) {
      return Tables.clusters(results);
    }
  }

  @Command(name = "p8", mixinStandardHelpOptions = true,
      description = "Watches per remote API server and CPU per shard: 1 operator, then S shards "
          + "split by object and by cluster, over N KollectClusters on 2 API servers.")
  static final class P8 extends Scenario {
    @Option(names = "--clusters", defaultValue = "50",
        description = "KollectClusters (default: ${DEFAULT-VALUE}).")
    int clusters;

    @Option(names = "--shards", split = ",", defaultValue = "1,4",
        description = "Shard counts; 1 runs unsharded (default: ${DEFAULT-VALUE}).")
    List<Integer> shards;

    @Option(names = "--objects", defaultValue = "20",
        description = "ConfigMaps and as many Services on each remote API server (default: ${DEFAULT-VALUE}).")
    int objects;

    @Option(names = "--idle-wait", defaultValue = "15s", converter = GoDuration.class,
        description = "Wait after the inventory before watches are read, and the idle CPU window (default: ${DEFAULT-VALUE}).")
    Duration idleWait;

    @Option(names = "--inventory-timeout", defaultValue = "5m", converter = GoDuration.class,
        description = "Give up on a full inventory after this long (default: ${DEFAULT-VALUE}).")
    Duration inventoryTimeout;

    @Override
    String name() {
      return "p8";
    }

    @Override
    List<Map<String, Object>> results(BenchCluster c, OperatorLauncher l, RecordReceiver r, Path w) throws Exception {
      return new ShardsBench(new ShardsBench.Plan(clusters, shards, objects, idleWait, inventoryTimeout), c, l)
          .run();
    }

    @Override
    String table(List<Map<String, Object>> results) {
      return Tables.shards(results);
    }
  }

  @Command(name = "postgres", mixinStandardHelpOptions = true,
      description = "The postgres sink: first inventory into an empty table vs a paginated LIST, then "
          + "change→committed row beside the raw watch, http and stdout, with rows and WAL bytes per change.")
  static final class Postgres extends Scenario {
    @Option(names = "--objects", defaultValue = "50000", description = "Inventory size (default: ${DEFAULT-VALUE}).")
    int objects;

    @Option(names = "--rate", defaultValue = "20", description = "Changes per second (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", defaultValue = "60s", converter = GoDuration.class,
        description = "How long to change objects (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--history", description = "Turn the sink's history (table changes) on.")
    boolean history;

    @Mixin InventoryOptions inventory;

    @Override
    String name() {
      return "postgres";
    }

    @Override
    List<Map<String, Object>> results(BenchCluster c, OperatorLauncher l, RecordReceiver r, Path w) throws Exception {
      return new PostgresInventoryBench(new PostgresInventoryBench.Plan(objects, rate, duration, history,
          inventory.inventoryTimeout, inventory.createParallelism), c, l, r).run();
    }

    @Override
    String table(List<Map<String, Object>> results) {
      return PostgresInventoryBench.table(results);
    }
  }

  /** Go-style durations as the operator's flags take them: 500ms, 30s, 1m30s, 10h. */
  static final class GoDuration implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return GoDurations.parse(value);
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return List.copyOf(out);
  }
}

package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * P8 (sharding a hub): the same fleet as P7 (N KollectClusters pointing alternately at two remote
 * API servers under different names, 2 watched types, one target selecting all of them) read by
 * 1 operator, then by S shards ({@code --total-shards S --shard i}) split by object and split by
 * cluster ({@code --shard-by}), every shard a packaged operator process of its own. Measured from
 * outside: every record on the shards' stdout (each object from one shard), the watches each
 * remote API server holds open on the two types ({@code apiserver_longrunning_gauge}, less what
 * it held before), and each shard's CPU ({@code /proc/<pid>/stat}) from start to the last record
 * and over an idle window.
 */
final class ShardsBench {

  record Plan(int clusters, List<Integer> shardCounts, int objectsPerType, Duration idleWait,
      Duration inventoryTimeout) {}

  private final Plan plan;
  private final BenchCluster home;
  private final OperatorLauncher launcher;

  ShardsBench(Plan plan, BenchCluster home, OperatorLauncher launcher) {
    this.plan = plan;
    this.home = home;
    this.launcher = launcher;
  }

  List<Map<String, Object>> run() throws Exception {
    try (RemoteFleet fleet = RemoteFleet.start(home, 2, plan.objectsPerType())) {
      home.apply(ClustersBench.profileYaml());
      home.apply(ClustersBench.targetYaml());
      ClustersBench.replaceClusters(home, plan.clusters());
      List<Map<String, Object>> out = new ArrayList<>();
      for (int shards : plan.shardCounts()) {
        for (String rule : shards == 1 ? List.of("none") : List.of("object", "cluster")) {
          out.add(runShards(shards, rule, fleet.apis()));
        }
      }
      return out;
    }
  }

  private Map<String, Object> runShards(int shards, String rule, List<PlainApi> remotes)
      throws Exception {
    System.err.printf("== p8: %d shards (%s) over %d KollectClusters on 2 API servers%n", shards,
        rule, plan.clusters());
    long expected = (long) plan.clusters() * 2 * plan.objectsPerType();
    Set<String> seen = ConcurrentHashMap.newKeySet();
    AtomicLong lines = new AtomicLong();
    long[] watchesBefore = watchesPerServer(remotes);
    List<OperatorChild> children = new ArrayList<>();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("shards", shards);
    out.put("rule", rule);
    out.put("clusters", plan.clusters());
    out.put("records", expected);
    try {
      for (int i = 0; i < shards; i++) {
        List<String> args = shards == 1 ? List.of() : List.of("--total-shards",
            Integer.toString(shards), "--shard", Integer.toString(i), "--shard-by", rule);
        children.add(launcher.start("p8-" + rule + "-" + shards + "-" + i, home.kubeconfig(),
            (line, now) -> record(line, seen, lines), List.of(), args));
      }
      long start = children.get(0).startNanos();
      long deadline = start + plan.inventoryTimeout().toNanos();
      while (seen.size() < expected && System.nanoTime() < deadline
          && children.stream().allMatch(OperatorChild::isAlive)) {
        Thread.sleep(100);
      }
      out.put("recordsSeen", seen.size());
      out.put("recordLines", lines.get());
      if (seen.size() >= expected) {
        out.put("inventorySeconds", (System.nanoTime() - start) / 1e9);
      }
      out.put("startupCpuSecondsPerShard", cpuSeconds(children, null));
      Thread.sleep(plan.idleWait().toMillis());
      long[] watches = watchesPerServer(remotes);
      List<Long> perServer = new ArrayList<>();
      for (int i = 0; i < watches.length; i++) {
        perServer.add(watches[i] - watchesBefore[i]);
      }
      out.put("openWatchesPerRemoteServer", perServer);
      List<Double> idleStart = cpuSeconds(children, null);
      Thread.sleep(plan.idleWait().toMillis());
      out.put("idleCpuSecondsPerShard", cpuSeconds(children, idleStart));
      out.put("idleWindowSeconds", plan.idleWait().toSeconds());
      out.put("alive", children.stream().allMatch(OperatorChild::isAlive));
      System.err.printf("  %s%n", out);
    } finally {
      for (OperatorChild c : children) {
        c.close();
      }
    }
    return out;
  }

  private static void record(String line, Set<String> seen, AtomicLong lines) {
    if (!line.startsWith("{")) {
      return;
    }
    try {
      JsonNode r = PlainApi.JSON.readTree(line);
      lines.incrementAndGet();
      seen.add(r.path("cluster").asText() + "|" + r.path("resource").path("kind").asText() + "|"
          + r.path("name").asText());
    } catch (IOException e) {
      // not a record
    }
  }

  /** CPU seconds each child used so far, less {@code since} when given. */
  private static List<Double> cpuSeconds(List<OperatorChild> children, List<Double> since)
      throws IOException {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < children.size(); i++) {
      double s = children.get(i).cpuTicks()
          / (double) InventoryBench.ClockTicks.PER_SECOND;
      out.add(since == null ? s : s - since.get(i));
    }
    return out;
  }

  private static long[] watchesPerServer(List<PlainApi> remotes) throws Exception {
    long[] out = new long[remotes.size()];
    for (int i = 0; i < remotes.size(); i++) {
      out[i] = ClustersBench.watchGauge(remotes.get(i).getText("/metrics"));
    }
    return out;
  }
}

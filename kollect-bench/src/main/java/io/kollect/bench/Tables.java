package io.kollect.bench;

import static io.kollect.bench.MarkdownTable.mib;
import static io.kollect.bench.MarkdownTable.num;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The markdown table of each scenario, from its JSON-shaped results. */
final class Tables {

  private Tables() {}

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static List<String> each(List<Map<String, Object>> results, Function<Map<String, Object>, String> f) {
    return results.stream().map(f).toList();
  }

  private static String k(Object objects) {
    int n = ((Number) objects).intValue();
    return n % 1000 == 0 ? n / 1000 + "k objects" : n + " objects";
  }

  static String inventory(List<Map<String, Object>> results) {
    MarkdownTable t = new MarkdownTable(each(results, r -> k(r.get("objects"))));
    t.row("paginated LIST, limit 500, median of 3 (s)", "", "",
        each(results, r -> num(r.get("listMedianSeconds"), "%.2f")));
    t.row("operator start → every record at http receiver and stdout (s)", "", "",
        each(results, r -> map(r.get("run")).containsKey("inventorySeconds")
            ? num(map(r.get("run")).get("inventorySeconds"), "%.1f") : "not complete"));
    t.row("full inventory / LIST", "≤ 1.5×", "5.8× at 20k, 3.1× at 50k (default JVM)",
        each(results, r -> map(r.get("run")).get("inventorySeconds") instanceof Number s
            ? String.format("%.1f×", s.doubleValue() / ((Number) r.get("listMedianSeconds")).doubleValue()) : "–"));
    t.row("start-up constant: start → record of a one-object target (s)", "", "",
        each(results, r -> num(map(r.get("calibration")).get("startupSeconds"), "%.1f")));
    t.row("(full inventory − start-up constant) / LIST", "≤ 1.5×", "",
        each(results, r -> {
          Map<String, Object> run = map(r.get("run"));
          if (run.get("inventorySeconds") instanceof Number s
              && map(r.get("calibration")).get("startupSeconds") instanceof Number c) {
            return String.format("%.1f×", (s.doubleValue() - c.doubleValue())
                / ((Number) r.get("listMedianSeconds")).doubleValue());
          }
          return "–";
        }));
    t.row("start → first record (s)", "", "",
        each(results, r -> num(map(r.get("run")).get("httpFirstRecordSeconds"), "%.1f")));
    t.row("first → last record / LIST (start-up constant left out)", "", "",
        each(results, r -> {
          Map<String, Object> run = map(r.get("run"));
          if (run.get("inventorySeconds") instanceof Number s && run.get("httpFirstRecordSeconds") instanceof Number f) {
            return String.format("%.1f×", (s.doubleValue() - f.doubleValue())
                / ((Number) r.get("listMedianSeconds")).doubleValue());
          }
          return "–";
        }));
    cpuRows(t, results);
    t.row("records delivered, http / stdout", "all", "none at 50k (OOM)",
        each(results, r -> map(r.get("run")).get("httpDelivered") + " / " + map(r.get("run")).get("stdoutDelivered")));
    t.row("died (OutOfMemoryError / exit code)", "no", "OOM at 50k (shipped JVM)",
        each(results, r -> {
          Map<String, Object> run = map(r.get("run"));
          return Boolean.TRUE.equals(run.get("diedOfOom")) ? "OOM, exit " + run.get("exitCode")
              : Boolean.TRUE.equals(run.get("alive")) ? "no" : "exit " + run.get("exitCode");
        }));
    t.row("peak RSS (VmHWM)", "≤ 512 MiB", "1 GiB", each(results, r -> mib(map(r.get("run")).get("peakRssBytes"))));
    t.row("steady RSS after the inventory", "", "", each(results, r -> mib(map(r.get("run")).get("steadyRssBytes"))));
    t.row("live heap after full GC, steady", "", "209 MiB at 50k (default JVM)",
        each(results, r -> mib(map(r.get("run")).get("steadyLiveHeapBytes"))));
    t.row("live heap per object (whole process / objects)", "≤ 1.5 KiB", "4.3 KiB",
        each(results, r -> map(r.get("run")).get("liveHeapBytesPerObject") instanceof Number b
            ? String.format("%.2f KiB", b.doubleValue() / 1024) : "–"));
    t.row("live heap per added object (vs the previous size)", "", "", liveHeapPerAddedObject(results));
    if (results.stream().anyMatch(r -> r.containsKey("baselineRun"))) {
      baselineRows(t, results);
    }
    if (results.stream().anyMatch(r -> r.containsKey("liveHeapRun"))) {
      t.row("peak live heap during first inventory (run B, forced GC every 3 s)", "", "",
          each(results, r -> mib(map(r.get("liveHeapRun")).get("peakLiveHeapBytes"))));
      t.row("peak live / live after (run B)", "≤ 1.5×", "1.27× (default JVM)",
          each(results, r -> num(map(r.get("liveHeapRun")).get("peakOverAfter"), "%.2f×")));
    }
    return t.render();
  }

  /** Where the CPU went, by process: one LIST, the first inventory, and the quota it waited for. */
  private static void cpuRows(MarkdownTable t, List<Map<String, Object>> results) {
    t.row("CPU s of one paginated LIST, by process (runner: the plain client decoding it)", "", "",
        each(results, r -> byProcess(r.get("listCpuSecondsByProcess"))));
    t.row("CPU s from operator start to every record, by process", "", "",
        each(results, r -> byProcess(map(r.get("run")).get("inventoryCpuSecondsByProcess"))));
    if (results.stream().anyMatch(r -> map(r.get("run")).containsKey("inventoryLimits"))) {
      t.row("container limits enforced: waited for CPU quota (s) / cgroup memory peak", "", "",
          each(results, r -> {
            Map<String, Object> l = map(map(r.get("run")).get("inventoryLimits"));
            return num(l.get("throttledSeconds"), "%.1f") + " / " + mib(l.get("memoryMaxUsageBytes"));
          }));
    }
  }

  /** {@code process seconds, ...} of a map by process, "–" when there is none. */
  private static String byProcess(Object cpu) {
    return cpu instanceof Map<?, ?> m
        ? m.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
            .collect(java.util.stream.Collectors.joining(", "))
        : "–";
  }

  /** Live heap per object added since the previous size (the fixed cost left out), per size. */
  private static List<String> liveHeapPerAddedObject(List<Map<String, Object>> results) {
    List<String> marginal = new java.util.ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      Object now = map(results.get(i).get("run")).get("steadyLiveHeapBytes");
      Object before = i == 0 ? null : map(results.get(i - 1).get("run")).get("steadyLiveHeapBytes");
      if (now instanceof Number n && before instanceof Number b && n.longValue() > 0 && b.longValue() > 0) {
        int objects = ((Number) results.get(i).get("objects")).intValue()
            - ((Number) results.get(i - 1).get("objects")).intValue();
        marginal.add(String.format("%.2f KiB", (n.doubleValue() - b.doubleValue()) / objects / 1024));
      } else {
        marginal.add("–");
      }
    }
    return marginal;
  }

  /** The baseline build's timed run (its first round, on the same objects), row for row, and the ratios. */
  private static void baselineRows(MarkdownTable t, List<Map<String, Object>> results) {
    t.row("baseline build: start → every record (s)", "", "",
        each(results, r -> map(r.get("baselineRun")).containsKey("inventorySeconds")
            ? num(map(r.get("baselineRun")).get("inventorySeconds"), "%.1f") : "not complete"));
    t.row("this build / baseline: start → every record", "", "",
        each(results, r -> ratio(map(r.get("run")).get("inventorySeconds"),
            map(r.get("baselineRun")).get("inventorySeconds"))));
    if (results.stream().anyMatch(r -> r.get("rounds") instanceof List<?> l && l.size() > 1)) {
      t.row("rounds, in the order run: baseline (B) and this build (T), start → every record (s)", "", "",
          each(results, r -> rounds(r.get("rounds"))));
      t.row("this build / baseline, geometric mean over the rounds", "", "",
          each(results, r -> num(meanRatio(r.get("rounds")), "%.2f×")));
    }
    t.row("baseline build: records delivered, http / stdout", "", "",
        each(results, r -> map(r.get("baselineRun")).get("httpDelivered") + " / "
            + map(r.get("baselineRun")).get("stdoutDelivered")));
    t.row("baseline build: peak RSS (VmHWM)", "", "",
        each(results, r -> mib(map(r.get("baselineRun")).get("peakRssBytes"))));
    t.row("baseline build: live heap per object", "", "",
        each(results, r -> map(r.get("baselineRun")).get("liveHeapBytesPerObject") instanceof Number b
            ? String.format("%.2f KiB", b.doubleValue() / 1024) : "–"));
    t.row("this build / baseline: live heap after full GC", "", "",
        each(results, r -> ratio(map(r.get("run")).get("steadyLiveHeapBytes"),
            map(r.get("baselineRun")).get("steadyLiveHeapBytes"))));
  }

  private static String rounds(Object rounds) {
    return rounds(rounds, "seconds", "%.2f");
  }

  /** Each round's {@code figure} for both builds, in the order they ran. */
  private static String rounds(Object rounds, String figure, String format) {
    String baselineFigure = InventoryBench.figureKey("baseline", figure);
    List<String> out = new java.util.ArrayList<>();
    if (rounds instanceof List<?> list) {
      for (Object o : list) {
        Map<String, Object> r = map(o);
        String b = "B " + num(r.get(baselineFigure), format);
        String a = "T " + num(r.get(figure), format);
        out.add(Boolean.TRUE.equals(r.get("baselineFirst")) ? b + ", " + a : a + ", " + b);
      }
    }
    return String.join("; ", out);
  }

  /**
   * This build's time over the baseline's, averaged geometrically over the rounds that both
   * completed (a ratio's mean: 0.8× and 1.25× average to 1×); null when none did.
   */
  static Double meanRatio(Object rounds) {
    return meanRatio(rounds, "seconds");
  }

  /**
   * {@link #meanRatio(Object)} of any figure a round holds for both builds: {@code figure} for
   * this build and its {@link InventoryBench#figureKey baseline} name for the other.
   */
  static Double meanRatio(Object rounds, String figure) {
    String baselineFigure = InventoryBench.figureKey("baseline", figure);
    double logSum = 0;
    int n = 0;
    if (rounds instanceof List<?> list) {
      for (Object o : list) {
        Map<String, Object> r = map(o);
        if (r.get(figure) instanceof Number a && r.get(baselineFigure) instanceof Number b
            && a.doubleValue() > 0 && b.doubleValue() > 0) {
          logSum += Math.log(a.doubleValue() / b.doubleValue());
          n++;
        }
      }
    }
    return n == 0 ? null : Math.exp(logSum / n);
  }

  private static String ratio(Object a, Object b) {
    return a instanceof Number x && b instanceof Number y && y.doubleValue() > 0
        ? String.format("%.2f×", x.doubleValue() / y.doubleValue()) : "–";
  }

  static String changes(List<Map<String, Object>> results, List<String> channels) {
    MarkdownTable t = new MarkdownTable(each(results, r -> k(r.get("objects"))));
    t.row("changes sent (failed)", "", "", each(results, r -> {
      Map<String, Object> c = map(map(r.get("run")).get("changes"));
      return c.isEmpty() ? "–" : c.get("sent") + " (" + c.get("failed") + ")";
    }));
    t.row("operator CPU per change (ms)", "50k ≤ 1.5× 5k", "", each(results,
        r -> num(map(map(r.get("run")).get("changes")).get("cpuMsPerChange"), "%.1f")));
    t.row("operator cores while changing", "", "1.15 cores at 50k", each(results,
        r -> num(map(map(r.get("run")).get("changes")).get("cores"), "%.2f")));
    t.row("checkpoint bytes written per change (file store, /proc write_bytes)", "≤ 16 KiB", "", each(results,
        r -> map(map(r.get("run")).get("changes")).get("storageBytesPerChange") instanceof Number b
            ? String.format("%.1f KiB", b.doubleValue() / 1024) : "–"));
    for (String ch : channels) {
      String goal = switch (ch) {
        case "stdout" -> "p99 ≤ 25 ms";
        case "http" -> "p99 ≤ 100 ms at 50k";
        case "watch" -> "(floor)";
        default -> "";
      };
      String today = switch (ch) {
        case "http" -> "p99 580 ms at 50k";
        case "stdout" -> "fixed 100 ms linger";
        default -> "";
      };
      t.row(ch + ": change → record p50 / p99 (ms)", goal, today, each(results, r -> {
        Map<String, Object> l = map(map(map(map(r.get("run")).get("changes")).get("latency")).get(ch));
        return l.isEmpty() ? "–" : num(l.get("p50Ms"), "%.1f") + " / " + num(l.get("p99Ms"), "%.1f")
            + " (" + l.get("seen") + " seen)";
      }));
      if (!ch.equals("watch") && channels.contains("watch")) {
        t.row(ch + ": after the watch floor, per change, p50 / p99 / max (ms)", ch.equals("http") ? "p99 ≤ 50 ms at 50k" : "", "", each(results, r -> {
          Map<String, Object> lat = map(map(map(r.get("run")).get("changes")).get("latency"));
          Map<String, Object> l = map(lat.get(ch));
          if (!(l.get("aboveFloorP99Ms") instanceof Number)) {
            return "–";
          }
          return num(l.get("aboveFloorP50Ms"), "%.1f") + " / " + num(l.get("aboveFloorP99Ms"), "%.1f")
              + " / " + num(l.get("aboveFloorMaxMs"), "%.1f");
        }));
        t.row(ch + ": of which watch → extracted (observedAt), p50 / p99 (ms)", "", "", each(results, r -> {
          Map<String, Object> l = map(map(map(map(r.get("run")).get("changes")).get("latency")).get(ch));
          return l.get("watchToExtractedP99Ms") instanceof Number
              ? num(l.get("watchToExtractedP50Ms"), "%.1f") + " / " + num(l.get("watchToExtractedP99Ms"), "%.1f") : "–";
        }));
        t.row(ch + ": of which extracted → received, p50 / p99 (ms)", "", "", each(results, r -> {
          Map<String, Object> l = map(map(map(map(r.get("run")).get("changes")).get("latency")).get(ch));
          return l.get("extractedToDeliveredP99Ms") instanceof Number
              ? num(l.get("extractedToDeliveredP50Ms"), "%.1f") + " / " + num(l.get("extractedToDeliveredP99Ms"), "%.1f") : "–";
        }));
      }
    }
    if (results.stream().anyMatch(r -> map(r.get("baselineRun")).get("changes") != null)) {
      baselineChangeRows(t, results);
    }
    if (results.size() == 2) {
      Object a = map(map(results.get(0).get("run")).get("changes")).get("cpuMsPerChange");
      Object b = map(map(results.get(1).get("run")).get("changes")).get("cpuMsPerChange");
      if (a instanceof Number x && b instanceof Number y) {
        t.row("CPU per change, " + k(results.get(1).get("objects")) + " / " + k(results.get(0).get("objects")),
            "≤ 1.5×", "", List.of("", String.format("%.2f×", y.doubleValue() / x.doubleValue())));
      }
    }
    return t.render();
  }

  /** The baseline build's change phase beside this build's, round by round (P6 with a baseline). */
  private static void baselineChangeRows(MarkdownTable t, List<Map<String, Object>> results) {
    t.row("baseline build: operator CPU per change (ms)", "", "", each(results,
        r -> num(map(map(r.get("baselineRun")).get("changes")).get("cpuMsPerChange"), "%.1f")));
    t.row("baseline build: http change → record p50 / p99 (ms)", "", "", each(results, r -> {
      Map<String, Object> l = map(map(map(map(r.get("baselineRun")).get("changes")).get("latency"))
          .get("http"));
      return l.isEmpty() ? "–" : num(l.get("p50Ms"), "%.1f") + " / " + num(l.get("p99Ms"), "%.1f");
    }));
    t.row("baseline build: http after the watch floor, p99 (ms)", "", "", each(results,
        r -> num(map(map(map(map(r.get("baselineRun")).get("changes")).get("latency")).get("http"))
            .get("aboveFloorP99Ms"), "%.1f")));
    if (results.stream().anyMatch(r -> r.get("rounds") instanceof List<?> l && l.size() > 1)) {
      t.row("rounds, in the order run: operator CPU per change, baseline (B) and this build (T) (ms)",
          "", "", each(results, r -> rounds(r.get("rounds"), "cpuMsPerChange", "%.2f")));
      t.row("rounds: http after the watch floor, p99 (ms)", "", "",
          each(results, r -> rounds(r.get("rounds"), "httpAboveFloorP99Ms", "%.1f")));
    }
    t.row("this build / baseline, CPU per change, geometric mean over the rounds", "", "",
        each(results, r -> num(meanRatio(r.get("rounds"), "cpuMsPerChange"), "%.2f×")));
    t.row("this build / baseline, http p99 after the floor, geometric mean over the rounds", "", "",
        each(results, r -> num(meanRatio(r.get("rounds"), "httpAboveFloorP99Ms"), "%.2f×")));
  }

  static String allocations(List<Map<String, Object>> results) {
    MarkdownTable t = new MarkdownTable(each(results, r -> k(r.get("objects"))));
    t.row("largest single allocation while changing (JFR)", "< 1 MiB", "",
        each(results, r -> map(map(r.get("run")).get("allocations")).get("largestBytes") instanceof Number b
            ? String.format("%,d B", b.longValue()) : "–"));
    t.row("… allocated at", "", "", each(results, r -> {
      Object top = map(map(r.get("run")).get("allocations")).get("topSites");
      if (top instanceof List<?> l && !l.isEmpty() && map(l.get(0)).get("at") instanceof List<?> at) {
        // the first frame of Kollect's own code names the site best
        return "`" + at.stream().map(String::valueOf).filter(f -> f.startsWith("io.kollect")).findFirst()
            .orElse(at.isEmpty() ? "?" : String.valueOf(at.get(0))) + "`";
      }
      return "–";
    }));
    return t.render();
  }

  static String targets(List<Map<String, Object>> results) {
    MarkdownTable t = new MarkdownTable(each(results, r -> r.get("targets") + " targets"));
    t.row("API requests at startup (until every status written)", "≤ 1 status write per target + constant",
        "3054 at 1000", each(results, r -> String.valueOf(r.get("startupRequests"))));
    for (String verb : List.of("LIST", "WATCH", "GET", "PATCH", "UPDATE", "POST", "DELETECOLLECTION", "DELETE")) {
      t.row("… of which " + verb, "", verb.equals("DELETECOLLECTION") ? "1 per target" : "", each(results, r -> {
        long sum = map(r.get("startupByVerbResource")).entrySet().stream()
            .filter(e -> e.getKey().startsWith(verb + " ")).mapToLong(e -> ((Number) e.getValue()).longValue()).sum();
        return Long.toString(sum);
      }));
    }
    t.row("time until every target's status is written (s)", "≤ 60", "153 at 1000",
        each(results, r -> num(r.get("allStatusesSeconds"), "%.1f")));
    t.row("time until every target is Ready=True (s)", "", "",
        each(results, r -> num(r.get("allReadySeconds"), "%.1f")));
    t.row("API requests in the steady window", "", "",
        each(results, r -> r.get("steadyRequests") + " in " + r.get("steadyWindowSeconds") + " s"));
    t.row("background: the API server's own, without the operator", "", "",
        each(results, r -> r.get("backgroundRequests") + " in " + r.get("backgroundWindowSeconds") + " s"));
    return t.render();
  }

  /** P7: figures per cluster count, then per added cluster against the first count. */
  /** P8: one column per run (1 operator; S shards by object; S shards by cluster). */
  static String shards(List<Map<String, Object>> results) {
    MarkdownTable t = new MarkdownTable(each(results, r -> "none".equals(r.get("rule"))
        ? "1 operator" : r.get("shards") + " shards by " + r.get("rule")));
    t.row("KollectClusters", "", "", each(results, r -> String.valueOf(r.get("clusters"))));
    t.row("records seen / expected (record lines)", "", "", each(results, r -> r.get("recordsSeen")
        + " / " + r.get("records") + " (" + r.get("recordLines") + ")"));
    t.row("first shard start → every record (s)", "", "",
        each(results, r -> num(r.get("inventorySeconds"), "%.1f")));
    t.row("open watches per remote API server", "by cluster: 2 per cluster it serves", "",
        each(results, r -> String.valueOf(r.get("openWatchesPerRemoteServer"))));
    t.row("CPU s per shard, start → last record", "", "",
        each(results, r -> seconds(r.get("startupCpuSecondsPerShard"))));
    t.row("CPU s per shard, idle window", "", "",
        each(results, r -> seconds(r.get("idleCpuSecondsPerShard")) + " in "
            + r.get("idleWindowSeconds") + " s"));
    return t.render();
  }

  private static String seconds(Object list) {
    if (!(list instanceof List<?> l)) {
      return "";
    }
    return l.stream().map(v -> String.format(java.util.Locale.ROOT, "%.1f",
        ((Number) v).doubleValue())).collect(java.util.stream.Collectors.joining(" / "));
  }

  static String clusters(List<Map<String, Object>> results) {
    MarkdownTable t = new MarkdownTable(each(results, r -> r.get("clusters") + " clusters"));
    t.row("records (2 types × fixture × clusters)", "", "", each(results, r -> r.get("recordsSeen")
        + " / " + r.get("records")));
    t.row("operator start → every record on stdout (s)", "", "",
        each(results, r -> num(r.get("inventorySeconds"), "%.1f")));
    t.row("threads (idle)", "", "", each(results, r -> String.valueOf(r.get("threads"))));
    t.row("live heap after full GC (idle)", "", "", each(results, r -> MarkdownTable.mib(r.get("liveHeapBytes"))));
    t.row("RSS (idle)", "", "", each(results, r -> MarkdownTable.mib(r.get("rssBytes"))));
    t.row("open watches on the remote servers", "2 per cluster", "",
        each(results, r -> String.valueOf(r.get("openWatches"))));
    t.row("API requests to the remote servers, start-up", "", "",
        each(results, r -> String.valueOf(r.get("startupRequests"))));
    t.row("API requests to the remote servers, idle window", "", "",
        each(results, r -> r.get("steadyRequests") + " in " + r.get("steadyWindowSeconds") + " s"));
    Map<String, Object> first = results.get(0);
    double n0 = ((Number) first.get("clusters")).doubleValue();
    t.row("threads per added cluster", "≤ 2", "", perAdded(results, first, n0, "threads", 1, "%.2f"));
    t.row("live heap per added cluster (KiB)", "≤ 8192", "",
        perAdded(results, first, n0, "liveHeapBytes", 1024, "%.0f"));
    t.row("open watches per added cluster", "2", "", perAdded(results, first, n0, "openWatches", 1, "%.2f"));
    t.row("start-up requests per added cluster", "O(types)", "",
        perAdded(results, first, n0, "startupRequests", 1, "%.1f"));
    return t.render();
  }

  private static List<String> perAdded(List<Map<String, Object>> results, Map<String, Object> first,
      double n0, String key, double unit, String format) {
    return each(results, r -> {
      double n = ((Number) r.get("clusters")).doubleValue();
      if (r == first || !(r.get(key) instanceof Number v) || !(first.get(key) instanceof Number v0)) {
        return "–";
      }
      return num((v.doubleValue() - v0.doubleValue()) / unit / (n - n0), format);
    });
  }
}

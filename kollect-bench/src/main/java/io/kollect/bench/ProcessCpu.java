package io.kollect.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of the runner and every process it started (the API server, etcd, the operator), by
 * command name, so a run can say which process a wall-clock figure waited for: on a 2-core
 * machine a first inventory may be bound by the operator, by the API server serving the list, or
 * by the runner receiving the records, and only their CPU seconds side by side tell which.
 */
final class ProcessCpu {

  private ProcessCpu() {}

  /** CPU seconds so far of the runner ({@code runner}) and each descendant, by command name. */
  static Map<String, Double> now() {
    Map<String, Double> out = new TreeMap<>();
    add(out, "runner", ProcessHandle.current());
    try (Stream<ProcessHandle> children = ProcessHandle.current().descendants()) {
      children.forEach(p -> add(out, name(p), p));
    }
    return out;
  }

  /** What each process used between two {@link #now()} readings (seconds, 0.1 s resolution). */
  static Map<String, Double> between(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> out = new LinkedHashMap<>();
    after.forEach((name, s) -> {
      double used = s - before.getOrDefault(name, 0.0);
      if (used >= 0.05) {
        out.put(name, Math.round(used * 10) / 10.0);
      }
    });
    return out;
  }

  /** {@code used} over {@code repeats} equal repetitions: what one of them cost each process. */
  static Map<String, Double> perRepeat(Map<String, Double> used, int repeats) {
    Map<String, Double> out = new LinkedHashMap<>();
    used.forEach((name, s) -> out.put(name, Math.round(s / repeats * 100) / 100.0));
    return out;
  }

  private static void add(Map<String, Double> out, String name, ProcessHandle p) {
    p.info().totalCpuDuration().map(Duration::toNanos)
        .ifPresent(n -> out.merge(name, n / 1e9, Double::sum));
  }

  /** The command's file name ({@code java} for the operator: the runner starts no other JVM). */
  static String name(ProcessHandle p) {
    String command = p.info().command().orElse("?");
    String base = command.substring(command.lastIndexOf('/') + 1);
    return base.equals("java") ? "operator" : base;
  }
}

package io.kollect.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A control group that holds one operator process to the shipped Deployment's container limits,
 * as a container runtime would: a CPU quota ({@code cpu.cfs_quota_us} over a 100 ms period) and a
 * memory limit ({@code memory.limit_in_bytes}, beyond which the kernel kills the process). Without
 * it the runner only tells the JVM about the limits, and the operator may use both cores of this
 * machine while the JVM sizes itself for one.
 *
 * <p>cgroup v1 (the {@code cpu} and {@code memory} hierarchies under {@code /sys/fs/cgroup}, as
 * this machine mounts them); creating one needs root. The process is moved in before its JVM
 * starts (a shell joins the group, then {@code exec}s the JVM), so the JVM sees the limits too.
 */
final class ContainerCgroup implements AutoCloseable {

  static final long PERIOD_MICROS = 100_000;
  private static final Path ROOT = Path.of("/sys/fs/cgroup");

  private final Path cpu;
  private final Path memory;

  private ContainerCgroup(Path cpu, Path memory) {
    this.cpu = cpu;
    this.memory = memory;
  }

  /** A new group {@code name} with {@code limits}; fails, naming the file, where it cannot be made. */
  static ContainerCgroup create(String name, DeployJvmOptions.Limits limits) throws IOException {
    return create(ROOT, name, limits);
  }

  /** As {@link #create(String, DeployJvmOptions.Limits)}, under the hierarchies at {@code root}. */
  static ContainerCgroup create(Path root, String name, DeployJvmOptions.Limits limits) throws IOException {
    Path cpu = root.resolve("cpu").resolve(name);
    Path memory = root.resolve("memory").resolve(name);
    try {
      for (Path group : List.of(cpu, memory)) {
        Files.createDirectories(group);
        // the kernel gives every new group this file; a plain directory would enforce nothing
        if (!Files.exists(group.resolve("cgroup.procs"))) {
          throw new IOException(group + " is not a control group (no cgroup.procs)");
        }
      }
      if (limits.cpus() != null) {
        Files.writeString(cpu.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
        Files.writeString(cpu.resolve("cpu.cfs_quota_us"), Long.toString(quotaMicros(limits.cpus())));
      }
      if (limits.memoryBytes() != null) {
        Files.writeString(memory.resolve("memory.limit_in_bytes"), Long.toString(limits.memoryBytes()));
      }
    } catch (IOException e) {
      new ContainerCgroup(cpu, memory).closeQuietly();
      throw new IOException("cannot hold the operator to its container limits (cgroup v1 under "
          + root + ", as root): " + e, e);
    }
    return new ContainerCgroup(cpu, memory);
  }

  /** The CPU time a group may use per period for {@code cpus} processors. */
  static long quotaMicros(double cpus) {
    return Math.max(1_000, Math.round(cpus * PERIOD_MICROS));
  }

  /** {@code command} started by a shell that first joins this group, then becomes the command. */
  List<String> wrap(List<String> command) {
    List<String> out = new ArrayList<>(List.of("/bin/sh", "-c",
        "echo $$ > '" + cpu.resolve("cgroup.procs") + "' && echo $$ > '" + memory.resolve("cgroup.procs")
            + "' && exec \"$@\"", "sh"));
    out.addAll(command);
    return out;
  }

  /**
   * What the limits did so far: periods in which the quota ran out and the time the group waited
   * for the next period (CPU), the highest memory use and how often the limit was hit (memory).
   */
  Map<String, Object> stats() {
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(cpu.resolve("cpu.stat"))) {
        String[] kv = line.trim().split("\\s+");
        if (kv.length == 2 && kv[0].equals("nr_throttled")) {
          out.put("throttledPeriods", Long.parseLong(kv[1]));
        } else if (kv.length == 2 && kv[0].equals("throttled_time")) {
          out.put("throttledSeconds", Long.parseLong(kv[1]) / 1e9);
        }
      }
      out.put("memoryMaxUsageBytes", Long.parseLong(
          Files.readString(memory.resolve("memory.max_usage_in_bytes")).trim()));
      out.put("memoryLimitHits", Long.parseLong(Files.readString(memory.resolve("memory.failcnt")).trim()));
    } catch (IOException | NumberFormatException e) {
      out.put("error", e.toString());
    }
    return out;
  }

  private void closeQuietly() {
    try {
      close();
    } catch (IOException ignored) {
      // a half-made group under a tree it could not write: nothing more to undo
    }
  }

  /** Removes the group (its process has ended). */
  @Override
  public void close() throws IOException {
    Files.deleteIfExists(cpu);
    Files.deleteIfExists(memory);
  }
}

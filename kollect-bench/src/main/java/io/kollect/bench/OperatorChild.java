package io.kollect.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The packaged operator ({@code java <jvm options> -jar kollect.jar run ...}) as a child process,
 * measured from outside: its stdout lines go to a consumer as they arrive, stderr to a file, memory
 * and CPU come from {@code /proc}, live heap from {@code jcmd}.
 */
final class OperatorChild implements AutoCloseable {

  private final Process process;
  private final Path stderr;
  private final long startNanos;
  /** The control group holding the process to the container's limits, or null. */
  private final ContainerCgroup cgroup;
  private Thread stdoutReader;
  /**
   * HotSpot prints "Terminating due to java.lang.OutOfMemoryError" (ExitOnOutOfMemoryError) on
   * standard output, not standard error, so the stdout reader looks for it.
   */
  private volatile boolean oomOnStdout;

  private OperatorChild(Process process, Path stderr, long startNanos, ContainerCgroup cgroup) {
    this.process = process;
    this.stderr = stderr;
    this.startNanos = startNanos;
    this.cgroup = cgroup;
  }

  /**
   * Starts the operator, inside {@code cgroup} unless it is null. {@code onLine} gets each stdout
   * line with the {@link System#nanoTime()} it was read at, on one reader thread (so it must be
   * quick).
   */
  static OperatorChild start(Path jar, List<String> jvmOptions, List<String> runArgs, Path stderr,
      BiConsumer<String, Long> onLine, ContainerCgroup cgroup) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar.toString());
    command.add("run");
    command.addAll(runArgs);
    Files.createDirectories(stderr.getParent());
    ProcessBuilder pb = new ProcessBuilder(cgroup == null ? command : cgroup.wrap(command))
        .redirectError(stderr.toFile());
    // The options are given on the command line; an inherited JAVA_TOOL_OPTIONS would add to them.
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    long start = System.nanoTime();
    Process p = pb.start();
    OperatorChild child = new OperatorChild(p, stderr, start, cgroup);
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8), 1 << 16)) {
        String line;
        while ((line = in.readLine()) != null) {
          long now = System.nanoTime();
          if (!line.startsWith("{") && line.contains("OutOfMemoryError")) {
            child.oomOnStdout = true;
          }
          onLine.accept(line, now);
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "operator-stdout");
    reader.setDaemon(true);
    child.stdoutReader = reader;
    reader.start();
    return child;
  }

  long pid() {
    return process.pid();
  }

  long startNanos() {
    return startNanos;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Exit code, or null while running. */
  Integer exitCode() {
    return process.isAlive() ? null : process.exitValue();
  }

  ProcFiles.Memory memory() throws IOException {
    return ProcFiles.memory(pid());
  }

  long storageWriteBytes() throws IOException {
    return ProcFiles.storageWriteBytes(pid());
  }

  long cpuTicks() throws IOException {
    return ProcFiles.cpuTicks(pid());
  }

  /**
   * Forces a full GC ({@code jcmd GC.run}) and reads the used heap right after it
   * ({@code GC.heap_info}) in one jcmd invocation: the live heap. -1 when it could not be read.
   */
  long liveHeapAfterFullGc() throws IOException, InterruptedException {
    Path commands = Files.createTempFile("kollect-bench-jcmd", ".txt");
    try {
      Files.writeString(commands, "GC.run\nGC.heap_info\n");
      Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
          Long.toString(pid()), "-f", commands.toString()).redirectErrorStream(true).start();
      String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      jcmd.waitFor(60, TimeUnit.SECONDS);
      return HeapInfo.usedBytes(out);
    } finally {
      Files.deleteIfExists(commands);
    }
  }

  /**
   * Writes {@code jcmd GC.class_histogram} (which forces a full GC first, so it counts live objects
   * only) to {@code to}: where the live heap goes, class by class. Returns the text, or "" when jcmd failed.
   */
  String writeClassHistogram(Path to) throws IOException, InterruptedException {
    Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid()), "GC.class_histogram").redirectErrorStream(true).start();
    String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    jcmd.waitFor(60, TimeUnit.SECONDS);
    Files.writeString(to, out);
    if (Boolean.getBoolean("bench.heapDump")) {
      // a heap dump beside it, to find who holds what (java -Dbench.heapDump=true -jar ...)
      Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
          Long.toString(pid()), "GC.heap_dump", to.resolveSibling("heap.hprof").toAbsolutePath().toString())
          .redirectErrorStream(true).start();
      dump.getInputStream().readAllBytes();
      dump.waitFor(120, TimeUnit.SECONDS);
    }
    return out;
  }

  /** What the container's limits did to the process so far; empty when none were enforced. */
  Map<String, Object> limitStats() {
    return cgroup == null ? Map.of() : cgroup.stats();
  }

  /** Whether the process reported an OutOfMemoryError (on stdout or stderr). */
  boolean diedOfOom() {
    if (oomOnStdout) {
      return true;
    }
    try {
      return Files.readString(stderr).contains("OutOfMemoryError");
    } catch (IOException e) {
      return false;
    }
  }

  Path stderrFile() {
    return stderr;
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    }
    stdoutReader.join(5000);
    if (cgroup != null) {
      try {
        cgroup.close();
      } catch (IOException e) {
        System.err.println("  could not remove the run's control group: " + e);
      }
    }
  }
}

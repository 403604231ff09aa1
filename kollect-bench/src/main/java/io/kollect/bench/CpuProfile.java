package io.kollect.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a process's CPU went within a time window of a flight recording: its execution samples
 * ({@code jdk.ExecutionSample}, Java code on a CPU) counted by the part of the code they were in
 * (a sample counts for every part on its stack, so the shares add up to more than 100 %), by
 * thread pool, and by the method on top of the stack; plus the collector's pauses in the window.
 * What it cannot see: time in native code and in the JVM itself (compiler, collector threads),
 * which the process's CPU time from {@code /proc} includes.
 */
final class CpuProfile {

  private static final int TOP = 12;

  /**
   * The parts of the code a sample is attributed to, by the frames' class names: first match wins
   * per frame. Ordered from the specific to the general.
   */
  private static final List<Map.Entry<String, String>> PARTS = List.of(
      Map.entry("io.kollect.extract.", "extraction (kollect-extract: profile, scrub, hash)"),
      Map.entry("io.kollect.export.", "export (kollect-export: diff, sinks, serialisation)"),
      Map.entry("io.kollect.informers.", "informers (kollect-informers: routing, projection)"),
      Map.entry("io.kollect.core.", "engine (kollect-core: reconcile, records)"),
      Map.entry("io.kollect.operator.", "operator (status, CR watches)"),
      Map.entry("io.fabric8.kubernetes.client.informers.", "fabric8 informer (reflector, store)"),
      Map.entry("io.fabric8.kubernetes.client.utils.serialization.", "fabric8 JSON decoding"),
      Map.entry("io.fabric8.kubernetes.client.", "fabric8 client (other)"),
      Map.entry("com.fasterxml.jackson.", "Jackson (any caller)"),
      Map.entry("io.vertx.", "HTTP client (Vert.x / Netty)"),
      Map.entry("io.netty.", "HTTP client (Vert.x / Netty)"),
      Map.entry("sun.security.", "TLS"),
      Map.entry("java.util.zip.", "compression"));

  private CpuProfile() {}

  static Map<String, Object> during(Path recording, Instant from, Instant to) throws IOException {
    Map<String, Integer> byPart = new TreeMap<>();
    Map<String, Integer> byThread = new TreeMap<>();
    Map<String, Integer> byTopMethod = new TreeMap<>();
    int samples = 0;
    Duration pauses = Duration.ZERO;
    int collections = 0;
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent e = file.readEvent();
        if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to)) {
          continue;
        }
        String type = e.getEventType().getName();
        if (type.equals("jdk.GarbageCollection")) {
          pauses = pauses.plus(e.getDuration("sumOfPauses"));
          collections++;
        } else if (type.equals("jdk.ExecutionSample") && e.getStackTrace() != null) {
          samples++;
          RecordedStackTrace stack = e.getStackTrace();
          for (String part : parts(stack)) {
            byPart.merge(part, 1, Integer::sum);
          }
          List<RecordedFrame> frames = stack.getFrames();
          if (!frames.isEmpty()) {
            RecordedFrame top = frames.get(0);
            byTopMethod.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName(),
                1, Integer::sum);
          }
          byThread.merge(pool(e.getThread("sampledThread") == null ? "?"
              : e.getThread("sampledThread").getJavaName()), 1, Integer::sum);
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("samples", samples);
    out.put("gcCollections", collections);
    out.put("gcPauseSeconds", pauses.toNanos() / 1e9);
    out.put("byPart", shares(byPart, samples, PARTS.size() + 1));
    out.put("byThreadPool", shares(byThread, samples, TOP));
    out.put("topMethods", shares(byTopMethod, samples, TOP));
    return out;
  }

  /** Each part present on the stack once. Frames of no listed part count as "other". */
  private static Set<String> parts(RecordedStackTrace stack) {
    Set<String> found = new HashSet<>();
    for (RecordedFrame f : stack.getFrames()) {
      String cls = f.getMethod().getType().getName();
      for (Map.Entry<String, String> p : PARTS) {
        if (cls.startsWith(p.getKey())) {
          found.add(p.getValue());
          break;
        }
      }
    }
    if (found.isEmpty()) {
      found.add("other (JDK, logging)");
    }
    return found;
  }

  /** A thread's pool: its name without the numbers that tell the pool's threads apart. */
  static String pool(String threadName) {
    return threadName == null ? "?" : threadName.replaceAll("[-#]?\\d+", "-N");
  }

  /** The {@code top} largest counts as "share % (count)", largest first. */
  private static Map<String, String> shares(Map<String, Integer> counts, int total, int top) {
    Map<String, String> out = new LinkedHashMap<>();
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(top)
        .forEach(en -> out.put(en.getKey(), String.format("%.1f %% (%d)",
            total == 0 ? 0.0 : 100.0 * en.getValue() / total, en.getValue())));
    return out;
  }
}

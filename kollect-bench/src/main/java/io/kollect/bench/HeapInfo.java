package io.kollect.bench;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The used heap printed by {@code jcmd <pid> GC.heap_info}: the sum of the "used" of each heap
 * space line (Serial: def new + tenured generation; G1: garbage-first heap; Parallel: PSYoungGen +
 * ParOldGen). Metaspace is not heap and is left out.
 */
final class HeapInfo {

  private static final Pattern SPACE = Pattern.compile(
      "^\\s*(def new generation|tenured generation|garbage-first heap|PSYoungGen|ParOldGen)\\s+total\\s+(\\d+)K,\\s+used\\s+(\\d+)K",
      Pattern.MULTILINE);

  private HeapInfo() {}

  /** Used heap in bytes, or -1 when the output names no heap space (e.g. the process is gone). */
  static long usedBytes(String heapInfo) {
    Matcher m = SPACE.matcher(heapInfo);
    long used = 0;
    boolean any = false;
    while (m.find()) {
      used += Long.parseLong(m.group(3)) * 1024;
      any = true;
    }
    return any ? used : -1;
  }
}

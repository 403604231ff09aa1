package io.kollect.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What Linux says about a process in {@code /proc/<pid>/status} and {@code /proc/<pid>/stat}. */
final class ProcFiles {

  /** Resident set now and its peak ({@code VmRSS}, {@code VmHWM}), bytes. */
  record Memory(long rssBytes, long peakRssBytes) {}

  private ProcFiles() {}

  static Memory memory(long pid) throws IOException {
    return parseStatus(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
  }

  /** CPU time the process has used so far (user + system), in clock ticks. */
  static long cpuTicks(long pid) throws IOException {
    return parseCpuTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
  }

  /**
   * Bytes the process caused to be written to storage ({@code write_bytes} of {@code
   * /proc/<pid>/io}): the checkpoint's writes, and not its stdout or sockets, which only count in
   * {@code wchar}.
   */
  static long storageWriteBytes(long pid) throws IOException {
    return field(Files.readString(Path.of("/proc", Long.toString(pid), "io")), "write_bytes:");
  }

  static long field(String text, String key) {
    for (String line : text.split("\n")) {
      if (line.startsWith(key)) {
        return Long.parseLong(line.substring(key.length()).trim());
      }
    }
    throw new IllegalArgumentException("no " + key);
  }

  static Memory parseStatus(String status) {
    return new Memory(kib(status, "VmRSS:") * 1024, kib(status, "VmHWM:") * 1024);
  }

  private static long kib(String status, String key) {
    for (String line : status.split("\n")) {
      if (line.startsWith(key)) {
        return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
      }
    }
    throw new IllegalArgumentException("no " + key + " in /proc status");
  }

  /**
   * Fields 14 (utime) and 15 (stime) of {@code stat}. The command name (field 2) is in parentheses
   * and may itself contain spaces and parentheses, so counting starts after the last ')'.
   */
  static long parseCpuTicks(String stat) {
    String[] rest = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    // rest[0] is field 3 (state), so field n is rest[n - 3].
    return Long.parseLong(rest[14 - 3]) + Long.parseLong(rest[15 - 3]);
  }
}

package io.kollect.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * The largest single allocations in a flight recording (settings {@code profile} with {@code
 * gc=high}, which records every allocation outside a TLAB and every new TLAB with the size of the
 * object that needed it), within a time window: the "no single allocation of 1 MiB or more
 * per event". Every object of 1 MiB or more is allocated outside a TLAB or opens a new one, so none
 * escapes these two events.
 */
final class LargestAllocations {

  private static final int TOP = 5;

  private LargestAllocations() {}

  /** The largest allocation of each of the {@value #TOP} allocation sites that allocated most at once. */
  static Map<String, Object> during(Path recording, Instant from, Instant to) throws IOException {
    // per site (the top frames of the stack): the largest allocation seen there
    Map<List<String>, Map<String, Object>> bySite = new HashMap<>();
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        consider(file.readEvent(), from, to, bySite);
      }
    }
    List<Map<String, Object>> found = new ArrayList<>(bySite.values());
    found.sort(Comparator.comparingLong((Map<String, Object> m) -> (Long) m.get("bytes")).reversed());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("largestBytes", found.isEmpty() ? 0L : found.get(0).get("bytes"));
    out.put("topSites", List.copyOf(found.subList(0, Math.min(TOP, found.size()))));
    return out;
  }

  private static void consider(RecordedEvent e, Instant from, Instant to,
      Map<List<String>, Map<String, Object>> bySite) {
    String type = e.getEventType().getName();
    if (!type.equals("jdk.ObjectAllocationOutsideTLAB") && !type.equals("jdk.ObjectAllocationInNewTLAB")) {
      return;
    }
    if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to)) {
      return;
    }
    long bytes = e.getLong("allocationSize");
    List<String> site = frames(e);
    Map<String, Object> known = bySite.get(site);
    if (known == null || (Long) known.get("bytes") < bytes) {
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("bytes", bytes);
      a.put("class", e.getClass("objectClass").getName());
      a.put("at", site);
      bySite.put(site, a);
    }
  }

  private static List<String> frames(RecordedEvent e) {
    List<String> out = new ArrayList<>();
    if (e.getStackTrace() == null) {
      return out;
    }
    for (RecordedFrame f : e.getStackTrace().getFrames()) {
      if (out.size() == 8) {
        break;
      }
      out.add(f.getMethod().getType().getName() + "." + f.getMethod().getName() + ":" + f.getLineNumber());
    }
    return out;
  }
}

package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One way records (or watch events) reach the runner: the http receiver, the operator's stdout, a
 * file sink, the raw watch. It counts the distinct fixture objects seen (the inventory is complete
 * when all {@code expected} arrived) and, for changes the runner made, the latency from the patch to
 * the first sighting of its stamp here.
 *
 * <p>A stamp is the runner's {@link System#nanoTime()} just before it sent the patch carrying it;
 * the profile extracts it into the record's {@code fields.stamp}, so every channel measures against
 * the same clock in the same process.
 */
final class Channel {

  private final String name;
  private final String objectPrefix;
  private final int expected;
  private final Set<String> keys = ConcurrentHashMap.newKeySet();
  /** For each measured change, when this channel first saw it (runner's nanoTime). */
  private final ConcurrentHashMap<Long, Long> stampsSeen = new ConcurrentHashMap<>();
  /**
   * For each measured change, the {@code observedAt} of the record that first carried it, as the
   * runner's nanoTime: when the operator extracted it (the operator runs on this machine's clock).
   */
  private final ConcurrentHashMap<Long, Long> stampsObserved = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Double> latenciesMs = new ConcurrentLinkedQueue<>();
  private final AtomicLong records = new AtomicLong();
  private volatile long firstNanos;
  private volatile long completeNanos;
  private volatile Set<Long> changeStamps = Set.of();

  /** A channel for the fixture objects. */
  Channel(String name, int expected) {
    this(name, Fixture.NAME_PREFIX, expected);
  }

  /** A channel that counts only objects whose name starts with {@code objectPrefix}. */
  Channel(String name, String objectPrefix, int expected) {
    this.name = name;
    this.objectPrefix = objectPrefix;
    this.expected = expected;
  }

  String name() {
    return name;
  }

  /**
   * From now on, stamps in this set are measured (the runner adds each stamp before sending it),
   * and only they: what an earlier measurement saw is forgotten, since the raw watch outlives the
   * timed runs of two builds taken in turn and each run's floor must be its own changes'.
   */
  void measure(Set<Long> stamps) {
    this.changeStamps = stamps;
    stampsSeen.clear();
    stampsObserved.clear();
    latenciesMs.clear();
  }

  /** One record (or watch object) for {@code namespace/name} carrying {@code stamp}, seen at {@code now}. */
  void seen(String namespace, String name, String stamp, long now) {
    if (!name.startsWith(objectPrefix)) {
      return;
    }
    records.incrementAndGet();
    if (firstNanos == 0) {
      firstNanos = now;
    }
    if (keys.add(namespace + "/" + name) && keys.size() >= expected && completeNanos == 0) {
      synchronized (this) {
        if (completeNanos == 0) {
          completeNanos = now;
          notifyAll();
        }
      }
    }
    long s = Fixture.parseStamp(stamp);
    if (s != 0 && changeStamps.contains(s) && stampsSeen.putIfAbsent(s, now) == null) {
      latenciesMs.add((now - s) / 1e6);
    }
  }

  /** A record in the documented format (docs/record-format.md); DELETEs are ignored. */
  void record(JsonNode r, long now) {
    if ("UPSERT".equals(r.path("op").asText())) {
      String stamp = r.path("fields").path("stamp").asText("");
      seen(r.path("namespace").asText(), r.path("name").asText(), stamp, now);
      long s = Fixture.parseStamp(stamp);
      if (s != 0 && changeStamps.contains(s) && r.hasNonNull("observedAt")) {
        try {
          stampsObserved.putIfAbsent(s, RunnerClock.nanoTimeOf(java.time.Instant.parse(r.get("observedAt").asText())));
        } catch (java.time.format.DateTimeParseException e) {
          // not a record of this format
        }
      }
    }
  }

  /**
   * For each change, the time from {@code from}'s sighting to the operator's extraction
   * ({@code observedAt}) and from the extraction to this channel's sighting (ms): which side of
   * the extraction a change's latency is on.
   */
  Map<String, List<Double>> stagesAfter(Channel from) {
    List<Double> toExtracted = new java.util.ArrayList<>();
    List<Double> toDelivered = new java.util.ArrayList<>();
    stampsObserved.forEach((stamp, observed) -> {
      Long fromAt = from.stampsSeen.get(stamp);
      Long at = stampsSeen.get(stamp);
      if (fromAt != null && at != null) {
        toExtracted.add((observed - fromAt) / 1e6);
        toDelivered.add((at - observed) / 1e6);
      }
    });
    return Map.of("watchToExtracted", toExtracted, "extractedToDelivered", toDelivered);
  }

  int distinct() {
    return keys.size();
  }

  long records() {
    return records.get();
  }

  long firstNanos() {
    return firstNanos;
  }

  /** When the last of the expected objects arrived, or 0. */
  long completeNanos() {
    return completeNanos;
  }

  synchronized boolean awaitComplete(long deadlineNanos, java.util.function.BooleanSupplier giveUp)
      throws InterruptedException {
    while (completeNanos == 0 && System.nanoTime() < deadlineNanos && !giveUp.getAsBoolean()) {
      wait(200);
    }
    return completeNanos != 0;
  }

  int changesSeen() {
    return stampsSeen.size();
  }

  List<Double> latenciesMs() {
    return List.copyOf(latenciesMs);
  }

  /**
   * For each change both channels saw, how much later this one saw it than {@code floor} did (ms;
   * negative when this one was first). Per change, so a tail shared by both (the API server's own
   * watch delivery) cancels out, which a difference of two percentiles does not.
   */
  List<Double> msAfter(Channel floor) {
    List<Double> out = new java.util.ArrayList<>();
    stampsSeen.forEach((stamp, at) -> {
      Long floorAt = floor.stampsSeen.get(stamp);
      if (floorAt != null) {
        out.add((at - floorAt) / 1e6);
      }
    });
    return out;
  }
}

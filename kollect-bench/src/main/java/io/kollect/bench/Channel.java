package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
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

  /** From now on, stamps in this set are measured (the runner adds each stamp before sending it). */
  void measure(Set<Long> stamps) {
    this.changeStamps = stamps;
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
      seen(r.path("namespace").asText(), r.path("name").asText(), r.path("fields").path("stamp").asText(""), now);
    }
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

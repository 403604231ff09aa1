package io.kollect.export;

import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Record;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a restart the heartbeat continues where it was: keys loaded from the checkpoint are
 * re-sent when their last send (persisted {@code lastSentAt}) is old enough, spread over the
 * interval, never all at once. Heartbeat ticks are run by hand against a clock the test moves.
 */
class HeartbeatAfterRestartTest {

  static final Duration WAIT = Duration.ofSeconds(10);
  static final Duration INTERVAL = Duration.ofHours(1);
  static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");
  static final int KEYS = 640;

  @TempDir Path dir;

  private Exporter exporter(MutableClock clock, RecordingSink sink) {
    Exporter ex = Exporter.builder().checkpointStore(new FileCheckpointStore(dir)).clock(clock)
        .build();
    // an hour between scheduled ticks: only the ticks the test runs happen
    ex.addSink(sink, ExporterTest.FAST.withHeartbeatInterval(INTERVAL));
    return ex;
  }

  /** Runs every slice once, in order, and returns how many records each tick sent. */
  private static List<Integer> oneRound(Exporter ex, RecordingSink sink) {
    List<Integer> perTick = new ArrayList<>();
    for (int slice = 0; slice < Heartbeats.SLICES; slice++) {
      int before = sink.received.size();
      ex.heartbeatTick("http", slice);
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      perTick.add(sink.received.size() - before);
    }
    return perTick;
  }

  /** The checkpoint's snapshot and log as text ("" for a file not there). */
  private String checkpointFiles() throws IOException {
    Path file = new FileCheckpointStore(dir).file("ns/t", "http");
    StringBuilder out = new StringBuilder();
    for (Path p : List.of(file, CheckpointDirectory.logFile(file))) {
      out.append(Files.exists(p) ? Files.readString(p) : "").append('\n');
    }
    return out.toString();
  }

  private void firstRun(MutableClock clock) {
    RecordingSink first = new RecordingSink("http");
    try (Exporter ex = exporter(clock, first)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", KEYS, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
    }
    assertThat(first.received).hasSize(KEYS);
  }

  @Test
  void keysSentShortlyBeforeARestartAreNotReSentByTheFirstHeartbeatRoundAfterIt() {
    MutableClock clock = new MutableClock(T0);
    firstRun(clock);
    clock.advance(Duration.ofMinutes(10)); // restarted 10 minutes later
    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(clock, second)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", KEYS, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(second.received).isEmpty(); // nothing changed
      assertThat(oneRound(ex, second)).allMatch(n -> n == 0);

      // once they are due, they go out slice by slice, each key once, none in a burst
      clock.advance(INTERVAL);
      List<Integer> perTick = oneRound(ex, second);
      assertThat(perTick.stream().mapToInt(Integer::intValue).sum()).isEqualTo(KEYS);
      assertThat(perTick).allMatch(n -> n <= 3 * KEYS / Heartbeats.SLICES);
      assertThat(new HashSet<>(second.receivedKeys())).hasSize(KEYS);
    }
  }

  @Test
  void keysOverdueAfterALongDowntimeAreSpreadOverTheIntervalNotSentAtOnce() {
    MutableClock clock = new MutableClock(T0);
    firstRun(clock);
    clock.advance(Duration.ofDays(1));
    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(clock, second)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", KEYS, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      List<Integer> perTick = oneRound(ex, second);
      assertThat(perTick.stream().mapToInt(Integer::intValue).sum()).isEqualTo(KEYS);
      assertThat(perTick).allMatch(n -> n <= 3 * KEYS / Heartbeats.SLICES);
    }
  }

  @Test
  void keysOfAnOldCheckpointWithoutSendTimesAreSpreadByKeyHash() throws IOException {
    MutableClock clock = new MutableClock(T0);
    firstRun(clock);
    // rewrite the checkpoint as the previous release wrote it: version 1, no sequence, no time
    // (first as one snapshot: a first inventory leaves its entries in the log)
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("ns/t", "http", store.load("ns/t", "http"));
    Path file = store.file("ns/t", "http");
    String v1 = Files.readString(file).replace("\"version\":2", "\"version\":1")
        .replaceAll(",\"sequence\":\\d+", "").replaceAll(",\"lastSentAt\":\"[^\"]+\"", "");
    assertThat(v1).doesNotContain("sequence").doesNotContain("lastSentAt");
    Files.writeString(file, v1);

    RecordingSink second = new RecordingSink("http");
    try (Exporter ex = exporter(clock, second)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", KEYS, 1));
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(second.received).isEmpty();
      List<Integer> perTick = oneRound(ex, second);
      assertThat(perTick.stream().mapToInt(Integer::intValue).sum()).isEqualTo(KEYS);
      assertThat(perTick).allMatch(n -> n <= 3 * KEYS / Heartbeats.SLICES);
      assertThat(second.received).extracting(Record::sequence).doesNotContainNull();
    }
  }

  @Test
  void heartbeatsCostNoPeriodicCheckpointWritesButShutdownKeepsTheirSendTimes()
      throws IOException {
    MutableClock clock = new MutableClock(T0);
    firstRun(clock);
    String before = checkpointFiles();
    RecordingSink second = new RecordingSink("http");
    clock.advance(INTERVAL.multipliedBy(2));
    try (Exporter ex = exporter(clock, second)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", KEYS, 1));
      oneRound(ex, second);
      assertThat(second.received).hasSize(KEYS);
      ex.checkpointTick();
      assertThat(checkpointFiles()).isEqualTo(before);
    }
    // the write on close carries the new send times: the next restart starts the round afresh
    assertThat(new FileCheckpointStore(dir).load("ns/t", "http").values())
        .hasSize(KEYS).allMatch(e -> e.lastSentAt().equals(T0.plus(INTERVAL.multipliedBy(2))));
    RecordingSink third = new RecordingSink("http");
    clock.advance(Duration.ofMinutes(1));
    try (Exporter ex = exporter(clock, third)) {
      ex.converge("ns/t", Set.of("http"), records("ns/t", KEYS, 1));
      assertThat(oneRound(ex, third)).allMatch(n -> n == 0);
    }
  }
}

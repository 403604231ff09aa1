package io.kollect.export;

import static io.kollect.export.TestRecords.records;
import static io.kollect.export.TestRecords.seq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.extract.Record;
import java.time.Duration;
import java.util.HashMap;
import java.util.IntSummaryStatistics;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HeartbeatTest {

  static final Duration WAIT = Duration.ofSeconds(15);

  @Test
  void heartbeatResendsTheFullCurrentSet() {
    RecordingSink sink = new RecordingSink("s");
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, ExporterTest.FAST.withHeartbeatInterval(Duration.ofMillis(400)));
      ex.converge("t", Set.of("s"), records("t", 200, 1));
      await().atMost(WAIT).until(() -> sink.received.size() >= 200);
      await().atMost(WAIT).untilAsserted(() -> {
        Map<String, Integer> counts = new HashMap<>();
        for (Record r : sink.received) {
          counts.merge(r.key(), 1, Integer::sum);
        }
        assertThat(counts).hasSize(200);
        assertThat(counts.values()).allMatch(n -> n >= 3);
      });
    }
  }

  @Test
  void aRecordIsNotReSentByTheHeartbeatSoonAfterItWasSent() {
    // 64 slices of a 2 s interval: without the age check, the keys of the first slices would be
    // re-sent about 31 ms after the converge that sent them.
    Duration interval = Duration.ofSeconds(2);
    Map<String, java.util.List<Long>> receivedAt = new java.util.concurrent.ConcurrentHashMap<>();
    Sink timing = new Sink() {
      @Override
      public String name() {
        return "s";
      }

      @Override
      public void write(java.util.List<Record> batch) {
        long now = System.nanoTime();
        for (Record r : batch) {
          receivedAt.computeIfAbsent(r.key(), k -> new CopyOnWriteArrayList<>()).add(now);
        }
      }
    };
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(timing, ExporterTest.FAST.withHeartbeatInterval(interval));
      ex.converge("t", Set.of("s"), records("t", 200, 1));
      // every key comes round again within one and a half intervals (plus delivery)
      await().atMost(WAIT).until(() -> receivedAt.size() == 200
          && receivedAt.values().stream().allMatch(times -> times.size() >= 2));
    }
    long quarter = interval.toNanos() / 4;
    receivedAt.forEach((key, times) -> {
      for (int i = 1; i < times.size(); i++) {
        assertThat(times.get(i) - times.get(i - 1))
            .as("gap between two sends of %s", key).isGreaterThanOrEqualTo(quarter);
      }
    });
  }

  @Test
  void heartbeatSlicesSpreadKeysEvenlySoNoTickSendsABurst() {
    int[] perSlice = new int[Heartbeats.SLICES];
    for (int i = 0; i < 6400; i++) {
      perSlice[Heartbeats.slice("ns/t", "apps/Deployment/ns/obj-" + i)]++;
    }
    // 100 keys per tick on average; every tick gets its share, none a burst
    IntSummaryStatistics stats = IntStream.of(perSlice).summaryStatistics();
    assertThat(stats.getMin()).isGreaterThan(50);
    assertThat(stats.getMax()).isLessThan(200);
  }

  @Test
  void aStaleHeartbeatNeverOvertakesANewerConverge() {
    CopyOnWriteArrayList<String> violations = new CopyOnWriteArrayList<>();
    Map<String, Long> lastSeq = new java.util.concurrent.ConcurrentHashMap<>();
    Sink checking = new Sink() {
      @Override
      public String name() {
        return "s";
      }

      @Override
      public void write(java.util.List<Record> batch) {
        for (Record r : batch) {
          long prev = lastSeq.getOrDefault(r.key(), -1L);
          if (seq(r) < prev) {
            violations.add(r.key() + " went from " + prev + " to " + seq(r));
          }
          lastSeq.put(r.key(), seq(r));
        }
      }
    };
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(checking, ExporterTest.FAST.withLinger(Duration.ZERO).withMaxBatchSize(7)
          .withHeartbeatInterval(Duration.ofMillis(64)));
      for (int seq = 1; seq <= 300; seq++) {
        ex.converge("t", Set.of("s"), records("t", 50, seq));
      }
      assertThat(ex.awaitIdle(WAIT)).isTrue();
      assertThat(lastSeq).hasSize(50);
      assertThat(lastSeq.values()).allMatch(s -> s == 300);
    }
    assertThat(violations).isEmpty();
  }
}

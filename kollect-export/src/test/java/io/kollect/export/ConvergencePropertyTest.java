package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Whatever sequence of desired sets is converged, and however the sink fails retryably in
 * between, the receiver ends up holding exactly the last desired set, having seen each object's
 * states in order.
 */
class ConvergencePropertyTest {

  /** Receives batches, failing some at random, and checks per-key order. */
  static final class FlakyReceiver implements Sink {
    final Random random;
    final double failureRate;
    final Map<String, Record> held = new TreeMap<>();
    final Map<String, Long> lastSeq = new HashMap<>();
    final List<String> violations = new ArrayList<>();

    FlakyReceiver(long seed, double failureRate) {
      this.random = new Random(seed);
      this.failureRate = failureRate;
    }

    @Override
    public String name() {
      return "flaky";
    }

    @Override
    public void write(List<Record> batch) throws SinkException {
      if (random.nextDouble() < failureRate) {
        throw SinkException.retryable("injected", null);
      }
      for (Record r : batch) {
        if (r.op() == Op.DELETE) {
          held.remove(r.key());
        } else {
          long seq = TestRecords.seq(r);
          if (seq < lastSeq.getOrDefault(r.key(), -1L)) {
            violations.add(r.key() + " went back to " + seq);
          }
          lastSeq.put(r.key(), seq);
          held.put(r.key(), r);
        }
      }
    }
  }

  @Provide
  Arbitrary<List<Map<String, Integer>>> histories() {
    // each step: the desired set as object name -> version; versions only grow per name
    Arbitrary<Map<String, Integer>> step = Arbitraries.maps(
        Arbitraries.of("a", "b", "c", "d", "e", "f", "g", "h"), Arbitraries.integers().between(0, 3))
        .ofMaxSize(8);
    return step.list().ofMinSize(1).ofMaxSize(12);
  }

  @Property(tries = 60)
  void receiverEndsWithExactlyTheLastDesiredSetInOrder(
      @ForAll("histories") List<Map<String, Integer>> history,
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 60) int failurePercent,
      @ForAll @IntRange(min = 1, max = 5) int batchSize) {
    FlakyReceiver receiver = new FlakyReceiver(seed, failurePercent / 100.0);
    Map<String, Long> seqByName = new HashMap<>();
    Map<String, Integer> versionByName = new HashMap<>();
    Map<String, Record> lastDesired = new TreeMap<>();
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(receiver, SinkOptions.defaults().withMaxBatchSize(batchSize)
          .withLinger(Duration.ZERO).withHeartbeatInterval(Duration.ofMillis(64))
          .withBackoff(Duration.ofMillis(1), Duration.ofMillis(4)));
      long clock = 0;
      for (Map<String, Integer> step : history) {
        List<Record> desired = new ArrayList<>();
        lastDesired.clear();
        for (Map.Entry<String, Integer> e : step.entrySet()) {
          // content (and so the hash) changes with the version; the sequence number grows with
          // every change and stays put while the version does
          Integer before = versionByName.put(e.getKey(), e.getValue());
          if (!e.getValue().equals(before)) {
            seqByName.put(e.getKey(), ++clock);
          }
          long seq = seqByName.get(e.getKey());
          Record r = record("t", e.getKey(), seq);
          desired.add(r);
          lastDesired.put(r.key(), r);
        }
        ex.converge("t", Set.of("flaky"), desired);
      }
      assertThat(ex.awaitIdle(Duration.ofSeconds(20))).isTrue();
      synchronized (receiver) {
        assertThat(receiver.violations).isEmpty();
        assertThat(receiver.held.keySet()).isEqualTo(lastDesired.keySet());
        receiver.held.forEach((k, r) ->
            assertThat(r.contentHash()).isEqualTo(lastDesired.get(k).contentHash()));
      }
    }
  }
}

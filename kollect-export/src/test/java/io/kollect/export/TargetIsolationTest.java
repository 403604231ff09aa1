package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.extract.Record;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One target's slow, failing or refused records stay that target's, also at 1000 targets. */
class TargetIsolationTest {

  static final Duration WAIT = Duration.ofSeconds(20);
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
  static final int TARGETS = 1000;

  /**
   * A thread-safe sink that keeps the latest record per (target, key) and can hold or fail the
   * writes of chosen targets.
   */
  static final class SharedEndpoint implements Sink {
    final Map<String, Record> held = new ConcurrentHashMap<>();
    final AtomicInteger writes = new AtomicInteger();
    final AtomicInteger concurrent = new AtomicInteger();
    final AtomicInteger maxConcurrent = new AtomicInteger();
    volatile Predicate<String> failing = t -> false;
    volatile Predicate<String> slow = t -> false;
    volatile Map<String, String> refuse = Map.of();
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger refusedOfferCount = new AtomicInteger();
    final Set<String> targetsInProgress = ConcurrentHashMap.newKeySet();
    final List<String> overlaps = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile Duration pause = Duration.ZERO;

    @Override
    public String name() {
      return "endpoint";
    }

    @Override
    public boolean concurrentWrites() {
      return true;
    }

    @Override
    public void write(List<Record> batch) throws SinkException {
      writes.incrementAndGet();
      maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
      String target = batch.get(0).target();
      if (!targetsInProgress.add(target)) {
        overlaps.add(target);
      }
      try {
        if (!batch.stream().allMatch(r -> r.target().equals(target))) {
          overlaps.add("mixed batch " + target);
        }
        if (!pause.isZero()) {
          try {
            Thread.sleep(pause.toMillis());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw SinkException.retryable("interrupted", e);
          }
        }
        if (slow.test(target)) {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw SinkException.retryable("interrupted", e);
          }
        }
        if (failing.test(target)) {
          throw SinkException.retryable("POST http://127.0.0.1:1/records: HTTP 503", null);
        }
        List<Rejection> refused = batch.stream().filter(r -> refuse.containsKey(r.name()))
            .map(r -> new Rejection(r.key(), refuse.get(r.name()))).toList();
        if (!refused.isEmpty()) {
          refusedOfferCount.addAndGet(refused.size());
          throw new RecordsRejectedException(refused);
        }
        for (Record r : batch) {
          held.put(r.target() + "|" + r.key(), r);
        }
      } finally {
        targetsInProgress.remove(target);
        concurrent.decrementAndGet();
      }
    }

    long heldOf(Predicate<String> target) {
      return held.values().stream().filter(r -> target.test(r.target())).count();
    }
  }

  final SharedEndpoint endpoint = new SharedEndpoint();
  final MutableClock clock = new MutableClock(NOW);
  final Exporter exporter = Exporter.builder().clock(clock).build();
  final SinkOptions options = ExporterTest.FAST.withConcurrency(4)
      .withBackoff(Duration.ofMillis(20), Duration.ofMillis(200));

  @AfterEach
  void close() {
    endpoint.release.countDown();
    exporter.close();
  }

  private static String target(int i) {
    return "ns-" + i + "/t";
  }

  @Test
  void aFailingTargetDoesNotDelayTheOtherThousandOnTheSameSinkAndSaysWhy() {
    endpoint.failing = t -> t.equals(target(0));
    exporter.addSink(endpoint, options);
    for (int i = 0; i < TARGETS; i++) {
      exporter.converge(target(i), Set.of("endpoint"), records(target(i), 3, 1));
    }
    await().atMost(WAIT).until(() -> endpoint.heldOf(t -> !t.equals(target(0)))
        == 3L * (TARGETS - 1));
    assertThat(endpoint.heldOf(t -> t.equals(target(0)))).isZero();

    await().atMost(WAIT).until(() ->
        exporter.deliveryStatus(target(0), "endpoint").orElseThrow().consecutiveFailures() >= 2);
    DeliveryStatus bad = exporter.deliveryStatus(target(0), "endpoint").orElseThrow();
    assertThat(bad.pending()).isEqualTo(3);
    assertThat(bad.failingSince()).isEqualTo(NOW);
    assertThat(bad.lastAcknowledged()).isNull();
    assertThat(bad.lastError()).isEqualTo("POST http://127.0.0.1:1/records: HTTP 503");
    DeliveryStatus good = exporter.deliveryStatus(target(1), "endpoint").orElseThrow();
    assertThat(good).isEqualTo(new DeliveryStatus(NOW, 0, 0, null, null, List.of()));

    // the failing target recovers on its own once its writes work
    clock.advance(Duration.ofMinutes(1));
    endpoint.failing = t -> false;
    await().atMost(WAIT).until(() -> endpoint.heldOf(t -> t.equals(target(0))) == 3);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(exporter.deliveryStatus(target(0), "endpoint").orElseThrow())
        .isEqualTo(new DeliveryStatus(NOW.plus(Duration.ofMinutes(1)), 0, 0, null, null,
            List.of()));
  }

  @Test
  void aSlowTargetDoesNotDelayTheOthersAndThreadsStayBounded() {
    endpoint.slow = t -> t.equals(target(0));
    exporter.addSink(endpoint, options);
    exporter.converge(target(0), Set.of("endpoint"), records(target(0), 3, 1));
    await().atMost(WAIT).until(() -> endpoint.concurrent.get() == 1); // target 0 is stuck
    for (int i = 1; i < TARGETS; i++) {
      exporter.converge(target(i), Set.of("endpoint"), records(target(i), 3, 1));
    }
    await().atMost(WAIT).until(() -> endpoint.heldOf(t -> !t.equals(target(0)))
        == 3L * (TARGETS - 1));
    assertThat(exporter.deliveryStatus(target(0), "endpoint").orElseThrow().pending())
        .isEqualTo(3);
    long threads = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("kollect-export-endpoint")).count();
    assertThat(threads).isEqualTo(4);
    assertThat(endpoint.maxConcurrent.get()).isLessThanOrEqualTo(4);
    endpoint.release.countDown();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(endpoint.heldOf(t -> t.equals(target(0)))).isEqualTo(3);
  }

  @Test
  void aTargetNeverHasTwoWritesInProgressAndEachKeyEndsAtItsLatestState() {
    endpoint.pause = Duration.ofMillis(2);
    exporter.addSink(endpoint, options.withMaxBatchSize(5).withLinger(Duration.ZERO));
    for (int seq = 1; seq <= 40; seq++) {
      for (int t = 0; t < 6; t++) {
        exporter.converge(target(t), Set.of("endpoint"), records(target(t), 20, seq));
      }
    }
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(endpoint.overlaps).isEmpty();
    assertThat(endpoint.maxConcurrent.get()).isGreaterThan(1); // the threads did run at once
    assertThat(endpoint.held.values()).hasSize(6 * 20)
        .allMatch(r -> TestRecords.seq(r) == 40);
  }

  @Test
  void aSinkThatIsNotThreadSafeIsWrittenByOneThreadButFailingTargetsStillTakeTurns() {
    RecordingSink serial = new RecordingSink("serial");
    serial.failWith(batch -> batch.get(0).target().equals(target(0))
        ? SinkException.retryable("HTTP 503", null) : null);
    exporter.addSink(serial, options);
    for (int i = 0; i < 50; i++) {
      exporter.converge(target(i), Set.of("serial"), records(target(i), 2, 1));
    }
    await().atMost(WAIT).until(() -> serial.received.size() == 2 * 49);
    assertThat(Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("kollect-export-serial")).count()).isEqualTo(1);
    assertThat(exporter.deliveryStatus(target(0), "serial").orElseThrow().lastError())
        .isEqualTo("sink serial: HTTP 503");
  }

  @Test
  void refusedRecordsAreDroppedReportedAndNotOfferedAgainUntilTheyChange() {
    endpoint.refuse = Map.of("big", "record of 2 MiB exceeds the 1.5 MiB object limit");
    exporter.addSink(endpoint, options.withHeartbeatInterval(Duration.ofHours(1)));
    List<Record> desired = new java.util.ArrayList<>(records("t", 10, 1));
    desired.add(record("t", "big", 1));
    exporter.converge("t", Set.of("endpoint"), desired);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();

    assertThat(endpoint.heldOf(t -> t.equals("t"))).isEqualTo(10);
    DeliveryStatus status = exporter.deliveryStatus("t", "endpoint").orElseThrow();
    assertThat(status.rejected()).containsExactly(new Rejection(key("big"),
        "record of 2 MiB exceeds the 1.5 MiB object limit"));
    assertThat(status.consecutiveFailures()).isZero();
    assertThat(status.pending()).isZero();
    assertThat(endpoint.refusedOfferCount.get()).isEqualTo(1);

    // neither the same state again nor a heartbeat offers it again
    exporter.converge("t", Set.of("endpoint"), desired);
    clock.advance(Duration.ofHours(2));
    for (int slice = 0; slice < Heartbeats.SLICES; slice++) {
      exporter.heartbeatTick("endpoint", slice);
    }
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(endpoint.refusedOfferCount.get()).isEqualTo(1);
    assertThat(endpoint.writes.get()).isGreaterThan(2); // the heartbeat did re-send the others

    // a changed state is offered, and once accepted the rejection is gone
    endpoint.refuse = Map.of();
    desired.set(desired.size() - 1, record("t", "big", 2));
    exporter.converge("t", Set.of("endpoint"), desired);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(endpoint.held).containsKey("t|" + key("big"));
    assertThat(exporter.deliveryStatus("t", "endpoint").orElseThrow().rejected()).isEmpty();
  }

  @Test
  void aSinkThatSaysTheOthersWereDeliveredIsNotAskedToWriteThemAgain() {
    AtomicInteger writes = new AtomicInteger();
    Sink partial = new Sink() {
      @Override
      public String name() {
        return "partial";
      }

      @Override
      public void write(List<Record> batch) throws SinkException {
        writes.incrementAndGet();
        throw new RecordsRejectedException(List.of(new Rejection(key("obj-0"), "too large")),
            true);
      }
    };
    exporter.addSink(partial, options.withMaxBatchSize(100));
    exporter.converge("t", Set.of("partial"), records("t", 5, 1));
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(writes.get()).isEqualTo(1);
    DeliveryStatus status = exporter.deliveryStatus("t", "partial").orElseThrow();
    assertThat(status.rejected()).extracting(Rejection::key).containsExactly(key("obj-0"));
    assertThat(status.lastAcknowledged()).isEqualTo(NOW);
  }

  @Test
  void deliveryStatusIsEmptyForATargetOrSinkTheExporterDoesNotDeliver() {
    exporter.addSink(endpoint, options);
    exporter.converge("t", Set.of("endpoint"), records("t", 1, 1));
    assertThat(exporter.deliveryStatus("other", "endpoint")).isEmpty();
    assertThat(exporter.deliveryStatus("t", "other")).isEmpty();
    assertThat(exporter.deliveryStatus("t", "endpoint")).isPresent();
  }
}

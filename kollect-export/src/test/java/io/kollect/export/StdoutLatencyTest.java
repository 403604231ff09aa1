package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.extract.Record;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The {@code --stdout} path with linger 0 has no fixed delay: an enqueued record is written by the
 * worker the enqueue wakes, never by one waiting for a deadline, and the sink flushes the batch.
 * Asserted on the mechanism (which wait the worker used, whether the stream was flushed), not on
 * elapsed time.
 */
class StdoutLatencyTest {

  /** Captures output and counts flushes, so a test sees whether a batch reached the stream. */
  static final class FlushCounting extends ByteArrayOutputStream {
    final AtomicInteger flushes = new AtomicInteger();

    @Override
    public void flush() {
      flushes.incrementAndGet();
    }

    synchronized String text() {
      return toString(StandardCharsets.UTF_8);
    }
  }

  static DeliveryChannel channel(Sink sink, Duration linger) {
    return new DeliveryChannel(sink, SinkOptions.defaults().withLinger(linger)
        .withHeartbeatInterval(Duration.ZERO), ExportMetrics.noop(), Clock.systemUTC());
  }

  static List<DeliveryChannel.Pending> pending(SinkState owner, Record r) {
    return List.of(new DeliveryChannel.Pending(owner, ExportKey.of(r), r, ExportedEntry.of(r)));
  }

  @Test
  void withLingerZeroAnEnqueuedRecordIsWrittenByTheWakeUpNotByATimer() {
    FlushCounting out = new FlushCounting();
    DeliveryChannel channel = channel(StdoutSink.to("stdout", out), Duration.ZERO);
    SinkState owner = new SinkState("t", "stdout", Map.of());
    channel.start();
    try {
      for (int i = 1; i <= 3; i++) {
        int expectedLines = i;
        channel.enqueue(pending(owner, record("t", "obj-" + i, i)));
        await().atMost(Duration.ofSeconds(10))
            .until(() -> out.text().lines().count() == expectedLines);
      }
      // every write followed an enqueue's signal to a worker parked without a deadline
      assertThat(channel.timedWaits()).isZero();
      assertThat(out.flushes.get()).isGreaterThanOrEqualTo(3);
      assertThat(owner.acknowledged).hasSize(3);
    } finally {
      channel.stop(Duration.ZERO);
    }
  }

  @Test
  void withALingerTheSameRecordWaitsForTheLingerDeadline() {
    // the counterpart that shows the assertion above observes the mechanism: a lingering lane
    // makes the worker wait with a deadline, and nothing is written before it passes
    FlushCounting out = new FlushCounting();
    DeliveryChannel channel = channel(StdoutSink.to("stdout", out), Duration.ofHours(1));
    SinkState owner = new SinkState("t", "stdout", Map.of());
    channel.start();
    try {
      channel.enqueue(pending(owner, record("t", "obj-1", 1)));
      await().atMost(Duration.ofSeconds(10)).until(() -> channel.timedWaits() > 0);
      assertThat(out.text()).isEmpty();
      assertThat(channel.depth()).isEqualTo(1);
    } finally {
      channel.stop(Duration.ZERO);
    }
  }

  @Test
  void theStdoutSinkFlushesEveryBatch() throws Exception {
    FlushCounting out = new FlushCounting();
    StdoutSink sink = StdoutSink.to("stdout", out);
    sink.write(List.of(record("t", "a", 1), record("t", "b", 1)));
    assertThat(out.flushes.get()).isGreaterThanOrEqualTo(1);
    assertThat(out.text().lines()).hasSize(2);
  }
}

package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.extract.Record;
import io.kollect.testing.SequencedRecordReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Latest state wins at the receiver, at the export level: a real HTTP receiver on loopback answers slower than the
 * sink's timeout while objects change, then recovers. Requests the exporter gave up on are still
 * applied by the receiver, late, after newer ones; with sequences a receiver that honours them
 * ends exact.
 */
class DeliveryAfterTimeoutTest {

  static final Duration TIMEOUT = Duration.ofSeconds(1);
  static final Duration SLOW = Duration.ofMillis(1500);
  static final int OBJECTS = 50;

  SequencedRecordReceiver receiver;
  Exporter exporter;
  final Map<String, Long> version = new HashMap<>();

  @BeforeEach
  void start() throws Exception {
    receiver = new SequencedRecordReceiver();
    exporter = Exporter.builder().closeTimeout(Duration.ofMillis(200)).build();
    exporter.addSink(new HttpSink("http", HttpSinkConfig.of(receiver.uri()).withTimeout(TIMEOUT)),
        SinkOptions.defaults().withLinger(Duration.ofMillis(20)).withHeartbeatInterval(Duration.ZERO)
            .withBackoff(Duration.ofMillis(20), Duration.ofMillis(100)));
    for (int i = 0; i < OBJECTS; i++) {
      version.put("obj-" + i, 1L);
    }
  }

  @AfterEach
  void stop() {
    exporter.close();
    receiver.close();
  }

  private void converge() {
    List<Record> desired = new ArrayList<>();
    version.forEach((name, v) -> desired.add(record("t", name, v)));
    exporter.converge("t", Set.of("http"), desired);
  }

  @Test
  void aReceiverHonouringSequencesEndsWithTheLatestStateOfEveryObjectAfterTimeouts()
      throws Exception {
    converge();
    assertThat(exporter.awaitIdle(Duration.ofSeconds(10))).isTrue();

    // the receiver turns slow; objects keep changing, every write times out
    receiver.delay(SLOW);
    Random random = new Random(12);
    long deadline = System.nanoTime() + Duration.ofSeconds(4).toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 10; i++) {
        version.merge("obj-" + random.nextInt(OBJECTS), 1L, Long::sum);
      }
      converge();
      Thread.sleep(100);
    }
    // it recovers while a request it will still apply (late) is in progress, and every object
    // changes once more: the retry after that request's timeout carries the newest states
    await().atMost(Duration.ofSeconds(10)).until(() -> receiver.inProgress() > 0);
    receiver.delay(Duration.ZERO);
    version.replaceAll((name, v) -> v + 1);
    converge();

    assertThat(exporter.awaitIdle(Duration.ofSeconds(30))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> receiver.inProgress() == 0);

    Map<String, JsonNode> held = receiver.held();
    assertThat(held).hasSize(OBJECTS);
    for (Map.Entry<String, Long> e : version.entrySet()) {
      Record r = RecordJson.MAPPER.treeToValue(held.get("t|" + TestRecords.key(e.getKey())),
          Record.class);
      assertThat(TestRecords.seq(r)).as(e.getKey()).isEqualTo(e.getValue());
    }
    assertThat(receiver.unsequenced()).isZero();
    // the late requests were there, and were refused as older
    assertThat(receiver.ignoredAsOlder()).isPositive();
  }
}

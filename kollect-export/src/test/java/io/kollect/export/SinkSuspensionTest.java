package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SinkSuspensionTest {

  static final Duration WAIT = ExporterTest.WAIT;

  final Exporter exporter = Exporter.builder().build();

  @AfterEach
  void close() {
    exporter.close();
  }

  @Test
  void aSuspendedSinkIsHandedNothingAndOnResumeReceivesOnlyWhatChangedMeanwhile() {
    RecordingSink suspended = new RecordingSink("s");
    RecordingSink other = new RecordingSink("o");
    exporter.addSink(suspended, ExporterTest.FAST);
    exporter.addSink(other, ExporterTest.FAST);
    exporter.converge("t", Set.of("s", "o"), List.of(record("t", "a", 1), record("t", "b", 1),
        record("t", "c", 1)));
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    suspended.clear();
    other.clear();

    exporter.setSinkSuspended("s", true);
    exporter.update("t", Set.of("s", "o"), List.of(record("t", "a", 2)), List.of());
    exporter.converge("t", Set.of("s", "o"), List.of(record("t", "a", 3), record("t", "c", 1),
        record("t", "d", 1)));
    exporter.heartbeatTick("s", 0);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(suspended.received).isEmpty();
    assertThat(other.latestByKey()).containsOnlyKeys(key("a"), key("b"), key("d"));
    assertThat(exporter.isSinkSuspended("s")).isTrue();

    exporter.setSinkSuspended("s", false);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();

    // Only the latest state of a, the new d and b's tombstone; c never changed.
    assertThat(suspended.received).extracting(Record::key, Record::op)
        .containsExactlyInAnyOrder(Tuple.tuple(key("a"), Op.UPSERT),
            Tuple.tuple(key("d"), Op.UPSERT), Tuple.tuple(key("b"), Op.DELETE));
    assertThat(suspended.latestByKey().get(key("a")).resourceVersion())
        .isEqualTo(record("t", "a", 3).resourceVersion());
  }
}

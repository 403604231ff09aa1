package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ChannelTest {

  @Test
  void measuresEachChangeAfterTheFloorOnlyForChangesBothSaw() {
    long a = 1_000_000_000L;
    long b = 2_000_000_000L;
    long c = 3_000_000_000L;
    Set<Long> changes = Set.of(a, b, c);
    Channel watch = new Channel("watch", Integer.MAX_VALUE);
    Channel http = new Channel("http", 1);
    watch.measure(changes);
    http.measure(changes);

    // both see change a; the floor is 300 ms late on b and http is 5 ms after it; c only on the watch
    watch.seen("ns", "cm-000001", Fixture.stampText(a), a + 10_000_000L);
    http.seen("ns", "cm-000001", Fixture.stampText(a), a + 12_000_000L);
    watch.seen("ns", "cm-000002", Fixture.stampText(b), b + 300_000_000L);
    http.seen("ns", "cm-000002", Fixture.stampText(b), b + 305_000_000L);
    http.seen("ns", "cm-000002", Fixture.stampText(b), b + 900_000_000L); // a repeat counts once
    watch.seen("ns", "cm-000003", Fixture.stampText(c), c + 1_000_000L);

    assertThat(http.msAfter(watch)).containsExactlyInAnyOrder(2.0, 5.0);
    assertThat(http.latenciesMs()).containsExactlyInAnyOrder(12.0, 305.0);
  }

  @Test
  void aNewMeasurementForgetsWhatTheRawWatchSawForTheBuildBefore() {
    long first = 1_000_000_000L;
    long second = 2_000_000_000L;
    Channel watch = new Channel("watch", Integer.MAX_VALUE);
    watch.measure(Set.of(first));
    watch.seen("ns", "cm-000001", Fixture.stampText(first), first + 400_000_000L);

    // the baseline build's run is over; this build's run measures its own changes
    watch.measure(Set.of(second));
    watch.seen("ns", "cm-000001", Fixture.stampText(second), second + 3_000_000L);

    assertThat(watch.changesSeen()).isEqualTo(1);
    assertThat(watch.latenciesMs()).containsExactly(3.0);
  }

  @Test
  void splitsAChangeAtItsRecordsObservedAtIntoBeforeAndAfterTheExtraction() throws Exception {
    long stamp = System.nanoTime();
    Channel watch = new Channel("watch", Integer.MAX_VALUE);
    Channel http = new Channel("http", 1);
    watch.measure(Set.of(stamp));
    http.measure(Set.of(stamp));
    long watched = stamp + 5_000_000L;
    watch.seen("ns", "cm-000001", Fixture.stampText(stamp), watched);
    // the operator extracted it 20 ms after the watch, on the same machine's wall clock
    java.time.Instant observedAt = java.time.Instant.now().plusNanos(watched + 20_000_000L - System.nanoTime());
    var record = new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
        {"op":"UPSERT","namespace":"ns","name":"cm-000001","observedAt":"%s","fields":{"stamp":"%s"}}
        """.formatted(observedAt, Fixture.stampText(stamp)));
    http.record(record, watched + 50_000_000L);

    var stages = http.stagesAfter(watch);
    // within a millisecond: two clocks read a few microseconds apart
    assertThat(stages.get("watchToExtracted")).singleElement()
        .satisfies(ms -> assertThat(ms).isBetween(19.0, 21.0));
    assertThat(stages.get("extractedToDelivered")).singleElement()
        .satisfies(ms -> assertThat(ms).isBetween(29.0, 31.0));
  }
}

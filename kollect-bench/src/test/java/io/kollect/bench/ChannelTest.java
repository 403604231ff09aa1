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
}

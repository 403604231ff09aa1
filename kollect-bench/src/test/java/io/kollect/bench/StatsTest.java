package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void percentilesAreNearestRankOfTheSortedSample() {
    Stats s = Stats.of(IntStream.rangeClosed(1, 100).map(i -> 101 - i).boxed().toList());
    assertThat(s.count()).isEqualTo(100);
    assertThat(s.min()).isEqualTo(1);
    assertThat(s.p50()).isEqualTo(50);
    assertThat(s.p99()).isEqualTo(99);
    assertThat(s.max()).isEqualTo(100);
  }

  @Test
  void p99OfASmallSampleIsItsLargestValue() {
    assertThat(Stats.of(List.of(3.0, 1.0, 2.0)).p99()).isEqualTo(3.0);
  }

  @Test
  void anEmptySampleHasNoPercentiles() {
    assertThat(Stats.of(List.of()).p99()).isNaN();
  }

  @Test
  void medianOfThreeIsTheMiddleOne() {
    assertThat(Stats.median(0.9, 0.2, 0.5)).isEqualTo(0.5);
    assertThat(Stats.median(1, 2, 3, 4)).isEqualTo(2.5);
  }
}

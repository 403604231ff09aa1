package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class BaselineRoundsTest {

  @Test
  void theBuildThatRunsFirstAlternatesFromRoundToRound() {
    assertThat(List.of(0, 1, 2, 3).stream().map(InventoryBench::baselineFirst))
        .containsExactly(true, false, true, false);
  }

  @Test
  void theMeanRatioIsGeometricSoOppositeRatiosCancel() {
    assertThat(Tables.meanRatio(List.of(round(10.0, 8.0), round(10.0, 12.5)))).isCloseTo(1.0,
        Offset.offset(1e-9));
  }

  @Test
  void aRoundEitherBuildDidNotCompleteIsLeftOutOfTheMean() {
    assertThat(Tables.meanRatio(List.of(round(10.0, 9.0), round(null, 5.0))))
        .isCloseTo(0.9, Offset.offset(1e-9));
    assertThat(Tables.meanRatio(List.of(round(10.0, null)))).isNull();
  }

  private static Map<String, Object> round(Double baselineSeconds, Double seconds) {
    Map<String, Object> r = new HashMap<>();
    r.put("baselineFirst", true);
    r.put("baselineSeconds", baselineSeconds);
    r.put("seconds", seconds);
    return r;
  }
}

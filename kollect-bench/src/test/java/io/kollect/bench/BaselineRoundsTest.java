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

  @Test
  void aRoundCarriesBothBuildsChangeFiguresAndTheirMeanRatio() {
    Map<String, Object> r1 = round(10.0, 10.0);
    InventoryBench.putChangeFigures(r1, "", run(4.0, 8.0));
    InventoryBench.putChangeFigures(r1, "baseline", run(5.0, 10.0));
    Map<String, Object> r2 = round(10.0, 10.0);
    InventoryBench.putChangeFigures(r2, "", run(3.0, 6.0));
    InventoryBench.putChangeFigures(r2, "baseline", run(6.0, 12.0));

    assertThat(r1).containsEntry("cpuMsPerChange", 4.0).containsEntry("baselineCpuMsPerChange", 5.0)
        .containsEntry("httpAboveFloorP99Ms", 8.0).containsEntry("baselineHttpAboveFloorP99Ms", 10.0);
    // sqrt(0.8 * 0.5)
    assertThat(Tables.meanRatio(List.of(r1, r2), "cpuMsPerChange"))
        .isCloseTo(Math.sqrt(0.4), Offset.offset(1e-9));
    assertThat(Tables.meanRatio(List.of(r1, r2), "httpAboveFloorP99Ms"))
        .isCloseTo(Math.sqrt(0.4), Offset.offset(1e-9));
  }

  @Test
  void aRunWithoutAChangePhaseAddsNoFigures() {
    Map<String, Object> r = round(10.0, 9.0);
    InventoryBench.putChangeFigures(r, "", Map.of("inventorySeconds", 9.0));
    assertThat(r).doesNotContainKey("cpuMsPerChange");
    assertThat(Tables.meanRatio(List.of(r), "cpuMsPerChange")).isNull();
  }

  private static Map<String, Object> run(double cpuMsPerChange, double aboveFloorP99Ms) {
    return Map.of("changes", Map.of("cpuMsPerChange", cpuMsPerChange, "latency",
        Map.of("http", Map.of("p99Ms", aboveFloorP99Ms + 5, "aboveFloorP99Ms", aboveFloorP99Ms))));
  }

  private static Map<String, Object> round(Double baselineSeconds, Double seconds) {
    Map<String, Object> r = new HashMap<>();
    r.put("baselineFirst", true);
    r.put("baselineSeconds", baselineSeconds);
    r.put("seconds", seconds);
    return r;
  }
}

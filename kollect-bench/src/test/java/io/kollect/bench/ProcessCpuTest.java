package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {

  @Test
  void theRunnersOwnCpuIsReadAndAChildProcessIsNamedByItsCommand() throws Exception {
    Process sleeper = new ProcessBuilder("sleep", "30").start();
    try {
      Map<String, Double> now = ProcessCpu.now();
      assertThat(now).containsKey("runner").containsKey("sleep");
      assertThat(now.get("runner")).isPositive();
      assertThat(ProcessCpu.name(sleeper.toHandle())).isEqualTo("sleep");
    } finally {
      sleeper.destroy();
    }
  }

  @Test
  void betweenTwoReadingsKeepsWhatEachProcessUsedRoundedAndDropsTheIdle() {
    Map<String, Double> used = ProcessCpu.between(
        Map.of("runner", 1.0, "etcd", 2.0),
        new java.util.TreeMap<>(Map.of("runner", 3.46, "etcd", 2.01, "operator", 12.34)));
    assertThat(used).containsExactly(Map.entry("operator", 12.3), Map.entry("runner", 2.5));
  }

  @Test
  void perRepeatDividesWhatEachProcessUsedByTheRepetitions() {
    Map<String, Double> one = ProcessCpu.perRepeat(
        new java.util.TreeMap<>(Map.of("kube-apiserver", 7.5, "runner", 1.0)), 3);
    assertThat(one).containsExactly(Map.entry("kube-apiserver", 2.5), Map.entry("runner", 0.33));
  }
}

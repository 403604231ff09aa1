package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InventoryTableTest {

  @Test
  void theTableShowsCpuByProcessTheLimitsAndEveryRoundInTheOrderRun() {
    String table = Tables.inventory(List.of(size(20_000, 40L << 20), size(50_000, 70L << 20)));

    assertThat(table).contains(
        "| CPU s of one paginated LIST, by process (runner: the plain client decoding it) |  |  "
            + "| kube-apiserver 2.7, runner 1.27 | kube-apiserver 2.7, runner 1.27 |",
        "| CPU s from operator start to every record, by process |  |  "
            + "| operator 14.2, runner 1.1 | operator 14.2, runner 1.1 |",
        "| container limits enforced: waited for CPU quota (s) / cgroup memory peak |  |  "
            + "| 3.3 / 289 MiB | 3.3 / 289 MiB |",
        "| rounds, in the order run: baseline (B) and this build (T), start → every record (s) |  |  "
            + "| B 15.00, T 12.00; T 11.00, B 11.00 | B 15.00, T 12.00; T 11.00, B 11.00 |",
        // the square root of 12/15 × 11/11
        "| this build / baseline, geometric mean over the rounds |  |  | 0.89× | 0.89× |",
        // (70 − 40) MiB over 30,000 more objects
        "| live heap per added object (vs the previous size) |  |  | – | 1.02 KiB |");
  }

  private static Map<String, Object> size(int objects, long liveHeapBytes) {
    Map<String, Object> run = linked("inventorySeconds", 12.0,
        "inventoryCpuSecondsByProcess", linked("operator", 14.2, "runner", 1.1),
        "inventoryLimits", linked("throttledSeconds", 3.3, "memoryMaxUsageBytes", 289L << 20),
        "steadyLiveHeapBytes", liveHeapBytes);
    return linked("objects", objects, "listMedianSeconds", 4.0,
        "listCpuSecondsByProcess", linked("kube-apiserver", 2.7, "runner", 1.27),
        "run", run, "baselineRun", linked("inventorySeconds", 15.0),
        "rounds", List.of(
            linked("baselineFirst", true, "baselineSeconds", 15.0, "seconds", 12.0),
            linked("baselineFirst", false, "baselineSeconds", 11.0, "seconds", 11.0)));
  }

  /** A map in the order given, as the runner's JSON results are. */
  private static Map<String, Object> linked(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }
}

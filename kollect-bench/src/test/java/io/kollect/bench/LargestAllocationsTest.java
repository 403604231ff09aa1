package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LargestAllocationsTest {

  static byte[] kept;

  @Test
  void findsAnAllocationOfTwoMebibytesAndWhereItWasMade(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("r.jfr");
    Instant from;
    try (Recording r = new Recording()) {
      r.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
      r.enable("jdk.ObjectAllocationInNewTLAB").withStackTrace();
      r.start();
      from = Instant.now();
      allocateTwoMebibytes();
      r.stop();
      r.dump(file);
    }
    Map<String, Object> found = LargestAllocations.during(file, from, Instant.now());
    assertThat(Files.size(file)).isPositive();
    assertThat((Long) found.get("largestBytes")).isGreaterThanOrEqualTo(2L << 20);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> sites = (List<Map<String, Object>>) found.get("topSites");
    // JFR names classes as the JVM does: byte[] is [B
    assertThat(sites.get(0).get("class")).isEqualTo("[B");
    assertThat((List<?>) sites.get(0).get("at")).first().asString().contains("allocateTwoMebibytes");
  }

  private static void allocateTwoMebibytes() {
    kept = new byte[2 << 20];
  }
}

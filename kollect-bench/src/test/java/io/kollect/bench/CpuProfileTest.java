package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuProfileTest {

  static volatile long sink;

  @Test
  void attributesTheSamplesOfABusyMethodToItAndItsThread(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("r.jfr");
    Instant from;
    try (Recording r = new Recording()) {
      r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10)).withStackTrace();
      r.start();
      from = Instant.now();
      burnCpuForOneSecond();
      r.stop();
      r.dump(file);
    }
    Map<String, Object> found = CpuProfile.during(file, from, Instant.now());

    assertThat((Integer) found.get("samples")).isPositive();
    assertThat(((Map<?, ?>) found.get("topMethods")).keySet())
        .anySatisfy(m -> assertThat(m.toString()).endsWith("CpuProfileTest.burnCpuForOneSecond"));
    // the test's own thread, "main" under Maven's forked runner; a sample counts in exactly one pool
    assertThat(((Map<?, ?>) found.get("byThreadPool"))).isNotEmpty();
    // the busy method is in none of the named parts of the code
    assertThat(((Map<?, ?>) found.get("byPart")).containsKey("other (JDK, logging)")).isTrue();
  }

  @Test
  void aPoolIsTheThreadNameWithoutItsNumbers() {
    assertThat(CpuProfile.pool("vert.x-eventloop-thread-1")).isEqualTo("vert.x-eventloop-thread-N");
    assertThat(CpuProfile.pool("pool-3-thread-12")).isEqualTo("pool-N-thread-N");
    assertThat(CpuProfile.pool("kollect-export")).isEqualTo("kollect-export");
  }

  private static void burnCpuForOneSecond() {
    long end = System.nanoTime() + 1_000_000_000L;
    long x = 1;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 10_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
      }
    }
    sink = x;
  }
}

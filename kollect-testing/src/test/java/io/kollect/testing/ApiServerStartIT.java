package io.kollect.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchRuntimeException;

import io.fabric8.kubeapitest.KubeAPITestException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.SimpleTimeZone;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/**
 * {@link TestApiServer}: a start whose processes exit is tried again instead of waited out; a start
 * just before midnight is not failed by kube-api-test's time-of-day bound.
 */
class ApiServerStartIT {

  @Test
  void anApiServerThatExitsWhileStartingIsStartedAgainAndFailsWithoutWaitingOutTheStartupTimeout() {
    long started = System.nanoTime();
    // exits at once, as an API server whose port another process took does
    RuntimeException failure = catchRuntimeException(() ->
        TestApiServer.builder().flag("--no-such-flag", "1").start());
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(failure).isInstanceOf(KubeAPITestException.class);
    assertThat(failure.getSuppressed()).as("the two earlier attempts").hasSize(2);
    // one wait for readiness alone is allowed three minutes
    assertThat(took).isLessThan(Duration.ofMinutes(3));
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aStartSecondsBeforeLocalMidnightWaitsForMidnightInsteadOfFailingAtItsFirstUnreadyPoll() {
    TimeZone zone = TimeZone.getDefault();
    // kube-api-test reads the time of day in the JVM's default zone: move it to 23:59:52
    int utc = LocalTime.now(ZoneOffset.UTC).toSecondOfDay();
    int offset = Math.floorMod(LocalTime.of(23, 59, 52).toSecondOfDay() - utc + 43_200, 86_400)
        - 43_200;
    TimeZone.setDefault(new SimpleTimeZone(offset * 1000, ZoneOffset.ofTotalSeconds(offset).getId()));
    try (TestApiServer server = TestApiServer.start()) {
      assertThat(server.admin().namespaces().withName("default").get()).isNotNull();
      assertThat(LocalTime.now()).as("started after midnight, not waited out")
          .isBefore(LocalTime.of(0, 3));
    } finally {
      TimeZone.setDefault(zone);
    }
  }
}

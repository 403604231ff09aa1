package io.kollect.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchRuntimeException;

import io.fabric8.kubeapitest.KubeAPITestException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link TestApiServer}: a start whose processes exit is tried again instead of waited out. */
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
}

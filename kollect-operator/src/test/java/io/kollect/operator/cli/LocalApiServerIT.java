package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchRuntimeException;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.operator.LineCapture;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.SimpleTimeZone;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** The demo's API servers start in the last seconds of the day (kube-api-test's clock wraps). */
class LocalApiServerIT {

  @Test
  void aDemoApiServerStartedSecondsBeforeLocalMidnightStartsAfterItInsteadOfFailing() {
    TimeZone zone = TimeZone.getDefault();
    // kube-api-test reads the time of day in the JVM's default zone: move it to 23:59:52
    int utc = LocalTime.now(ZoneOffset.UTC).toSecondOfDay();
    int offset = Math.floorMod(LocalTime.of(23, 59, 52).toSecondOfDay() - utc + 43_200, 86_400)
        - 43_200;
    TimeZone.setDefault(new SimpleTimeZone(offset * 1000, ZoneOffset.ofTotalSeconds(offset).getId()));
    LineCapture err = new LineCapture();
    KubeAPIServer server = null;
    try {
      server = LocalApiServer.start(KubeAPIServerConfigBuilder.anAPIServerConfig()
          .withOfflineMode(DemoCommand.localBinaries().isPresent())
          .withUpdateKubeConfig(false).build(), err.printStream());
      assertThat(LocalTime.now()).as("started after midnight").isBefore(LocalTime.of(0, 1));
      assertThat(err.text()).contains("start-up clock wrapped at midnight");
      try (KubernetesClient client = new KubernetesClientBuilder()
          .withConfig(Config.fromKubeconfig(server.getKubeConfigYaml())).build()) {
        assertThat(client.namespaces().withName("default").get()).isNotNull();
      }
    } finally {
      TimeZone.setDefault(zone);
      if (server != null) {
        server.stop();
      }
    }
  }

  @Test
  void aStartThatFailsLeavesNoProcessRunning() {
    // a bound of one millisecond: etcd is not healthy at the first poll, a genuine time-out
    RuntimeException failure = catchRuntimeException(() -> LocalApiServer.start(
        KubeAPIServerConfigBuilder.anAPIServerConfig()
            .withOfflineMode(DemoCommand.localBinaries().isPresent())
            .withUpdateKubeConfig(false).withStartupTimeout(1).build(), System.err));

    assertThat(failure).hasMessageContaining("did not start properly");
    assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .map(p -> p.info().command().orElse(""))).noneMatch(c -> c.contains(".kubeapitest"));
  }

  @Test
  void aStartThatRanOutItsWholeBoundIsNotTakenForTheWrap() {
    Duration bound = Duration.ofMinutes(1);
    assertThat(LocalApiServer.retryAfter(LocalTime.of(23, 59, 30), bound, bound)).isEmpty();
    assertThat(LocalApiServer.retryAfter(LocalTime.NOON, Duration.ofSeconds(1), bound)).isEmpty();
    assertThat(LocalApiServer.retryAfter(LocalTime.of(23, 59, 30), Duration.ofSeconds(1), bound))
        .contains(Duration.ofSeconds(29).plus(LocalApiServer.PAST_MIDNIGHT));
  }
}

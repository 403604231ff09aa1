package io.kollect.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TestApiServer.Builder#reused()}: a server whose set-up objects a class changed, or that a
 * client of the class still watches, is stopped when handed back, not kept for the next class.
 */
class ApiServerNotReusedIT {

  /** A set-up of this class only, so no other class of the JVM takes these servers. */
  private static TestApiServer.Builder reused() {
    return TestApiServer.builder().reused()
        .setUp("not-reused", server -> server.namespace("set-up"));
  }

  /** A client of {@code server} that fails at once when nothing listens any more. */
  private static KubernetesClient probe(TestApiServer server) {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder(server.adminConfig())
        .withRequestRetryBackoffLimit(0).withConnectionTimeout(5_000).build()).build();
  }

  private static void assertStopped(KubernetesClient probe) {
    assertThatThrownBy(() -> probe.namespaces().list()).as("the server was stopped")
        .isInstanceOf(KubernetesClientException.class);
  }

  @Test
  void aServerWhoseSetUpAClassChangedIsStopped() {
    KubernetesClient probe;
    try (TestApiServer changed = reused().start()) {
      probe = probe(changed);
      changed.namespace("set-up", Map.of("changed", "by-the-class"));
    }
    try (probe) {
      assertStopped(probe);
    }
  }

  @Test
  void aServerThatAClientOfTheClassStillWatchesIsStopped() {
    KubernetesClient leaked;
    Watch watch;
    try (TestApiServer watched = reused().start()) {
      leaked = probe(watched);
      watch = leaked.configMaps().inAnyNamespace().watch(new Watcher<ConfigMap>() {
        @Override
        public void eventReceived(Action action, ConfigMap resource) {}

        @Override
        public void onClose(WatcherException cause) {}
      });
    }
    try (leaked; watch) {
      assertStopped(leaked);
    }
  }
}

package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Argument checking, which happens before any API call: the client points at a closed port and
 * is never used by these tests.
 */
class InformerRegistryTest {

  private static KubernetesClient client;

  @BeforeAll
  static void client() {
    Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:1").build();
    client = new KubernetesClientBuilder().withConfig(config).build();
  }

  @AfterAll
  static void close() {
    client.close();
  }

  @Test
  void invalidOptionsAreRejectedNamingTheOption() {
    assertThatThrownBy(() -> new InformerRegistry(client, null)).hasMessageContaining("options");
    assertThatThrownBy(() -> new InformerRegistry(client, InformerOptions.defaults().withCluster(" ")))
        .hasMessageContaining("options.cluster");
    assertThatThrownBy(() -> new InformerRegistry(client,
        InformerOptions.defaults().withReleaseGrace(Duration.ofSeconds(-1))))
        .hasMessageContaining("options.releaseGrace");
    assertThatThrownBy(() -> new InformerRegistry(client,
        InformerOptions.defaults().withForbiddenRetry(Duration.ZERO)))
        .hasMessageContaining("options.forbiddenRetry");
    assertThatThrownBy(() -> new InformerRegistry(client,
        InformerOptions.defaults().withDiscoveryInterval(null)))
        .hasMessageContaining("options.discoveryInterval");
    assertThatThrownBy(() -> new InformerRegistry(client, InformerOptions.defaults().withMetrics(null)))
        .hasMessageContaining("options.metrics");
    assertThatThrownBy(() -> new InformerRegistry(client,
        InformerOptions.defaults().withWatchLiveness(Duration.ofMillis(1500))))
        .hasMessageContaining("options.watchLiveness");
    assertThatThrownBy(() -> new InformerRegistry(client,
        InformerOptions.defaults().withWatchLiveness(Duration.ZERO)))
        .hasMessageContaining("options.watchLiveness");
    assertThatThrownBy(() -> new InformerRegistry(client,
        InformerOptions.defaults().withClusterWideThreshold(-1)))
        .hasMessageContaining("options.clusterWideThreshold");
    assertThatThrownBy(() -> new InformerRegistry(client, InformerOptions.defaults().withListPageSize(0)))
        .hasMessageContaining("options.listPageSize");
  }

  @Test
  void invalidLeaseRequestsAreRejectedNamingTheField() {
    try (InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults())) {
      RecordingListener l = new RecordingListener();
      assertThatThrownBy(() -> registry.lease(LeaseRequest.all(new ResourceType("apps", "", "Deployment")), l))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request.type.version");
      assertThatThrownBy(() -> registry.lease(LeaseRequest.all(new ResourceType("apps", "v1", null)), l))
          .hasMessageContaining("request.type.kind");
      assertThatThrownBy(() -> registry.lease(new LeaseRequest(Fixtures.DEPLOYMENT, Set.of("*"),
          null, Set.of(), null), l)).hasMessageContaining("request.namespaces");
      assertThatThrownBy(() -> registry.lease(new LeaseRequest(Fixtures.DEPLOYMENT, Set.of(), null,
          Set.of(), List.of(List.of("spec"), List.of())), l))
          .hasMessageContaining("request.keepPaths[1]");
      assertThatThrownBy(() -> registry.lease(new LeaseRequest(Fixtures.DEPLOYMENT, Set.of(),
          new LabelSelectorBuilder().withMatchExpressions(
              new LabelSelectorRequirement("a", "Near", List.of())).build(), Set.of(), null), l))
          .hasMessageContaining("request.labelSelector.matchExpressions[0].operator");
      assertThat(registry.informerCount()).isZero();
      assertThat(registry.allSynced()).isTrue();
    }
  }

  @Test
  void aClientWithoutRequestTimeoutGetsTheLivenessWindowAsOneSoEveryRequestEnds() {
    Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:1")
        .withRequestTimeout(0).build();
    try (KubernetesClient unbounded = new KubernetesClientBuilder().withConfig(config).build();
        InformerRegistry registry = new InformerRegistry(unbounded, InformerOptions.defaults()
            .withWatchLiveness(Duration.ofSeconds(42)))) {
      var operation = (io.fabric8.kubernetes.client.dsl.internal.OperationSupport)
          registry.client().configMaps();
      assertThat(operation.getRequestConfig().getRequestTimeout()).isEqualTo(42_000);
    }
    try (InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults())) {
      assertThat(registry.client()).isSameAs(client);
    }
  }

  @Test
  void aClosedRegistryRefusesLeases() {
    InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults());
    registry.close();
    registry.close();
    assertThatThrownBy(() -> registry.lease(LeaseRequest.all(Fixtures.DEPLOYMENT), new RecordingListener()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }
}

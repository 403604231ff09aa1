package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.informers.InformerOptions;
import io.kollect.informers.InformerRegistry;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lifecycle of other clusters' connections, without a cluster: clients point at a closed
 * loopback port and nothing here waits for an answer.
 */
class OpenClustersTest {

  private final List<AutoCloseable> closing = new ArrayList<>();
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger released = new AtomicInteger();
  private final List<String> releasedEvents = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private KubernetesClient nowhere() {
    KubernetesClient c = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("https://127.0.0.1:1").withRequestRetryBackoffLimit(0).build()).build();
    closing.add(c);
    return c;
  }

  private OpenClusters clusters(ClusterConnections source) {
    OpenClusters clusters = new OpenClusters("home", null, null, source,
        InformerOptions.defaults(), InformerRegistry::new, name -> {});
    clusters.addListener(new ClusterHealthListener() {
      @Override
      public void onHealth(ClusterHealth health) {}

      @Override
      public void onReleased(String cluster) {
        releasedEvents.add(cluster);
      }
    });
    closing.add(clusters);
    return clusters;
  }

  private ClusterConnections counting(KubernetesClient client) {
    return new ClusterConnections() {
      @Override
      public KubernetesClient open(String cluster) {
        opened.incrementAndGet();
        return client;
      }

      @Override
      public void release(String cluster, KubernetesClient c) {
        released.incrementAndGet();
      }
    };
  }

  private static void assertClosed(InformerRegistry registry) {
    assertThatThrownBy(() -> registry.lease(new LeaseRequest(new ResourceType("", "v1",
        "ConfigMap"), java.util.Set.of(), null, java.util.Set.of(), null), new LeaseListener() {
          @Override
          public void onEvent(io.kollect.informers.ResourceEvent event) {}
        })).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aClusterOpensWithItsFirstUnitAndClosesWithItsLast() {
    OpenClusters clusters = clusters(counting(nowhere()));
    ClusterConnection first = clusters.acquire("east");
    ClusterConnection second = clusters.acquire("east");
    assertThat(second).isSameAs(first);
    assertThat(opened).hasValue(1);
    assertThat(clusters.units("east")).isEqualTo(2);
    ClusterConnection.Link link = first.attachCurrent();

    clusters.release("east");
    assertThat(released).hasValue(0);
    first.detach(link);
    clusters.release("east");
    assertThat(released).hasValue(1);
    assertThat(releasedEvents).containsExactly("east");
    assertThat(clusters.units("east")).isZero();
    assertThat(clusters.health("east")).isEmpty();
    assertClosed(link.registry());
  }

  @Test
  void aRotationKeepsTheOldClientUntilItsLastUnitHasMoved() {
    OpenClusters clusters = clusters(counting(nowhere()));
    ClusterConnection east = clusters.acquire("east");
    ClusterConnection.Link old = east.attachCurrent();

    assertThat(clusters.changed("east")).isTrue();
    assertThat(opened).hasValue(2);
    assertThat(released).hasValue(0);
    assertThat(east.isCurrent(old)).isFalse();
    ClusterConnection.Link current = east.attachCurrent();
    assertThat(current).isNotSameAs(old);

    east.detach(old);
    assertThat(released).hasValue(1);
    assertClosed(old.registry());
    assertThat(clusters.changed("west")).isFalse();
  }

  @Test
  void aClusterThatCannotBeOpenedSaysWhyAndIsTriedAgainOnlyWhenItChanges() {
    AtomicInteger attempts = new AtomicInteger();
    OpenClusters clusters = clusters(new ClusterConnections() {
      @Override
      public KubernetesClient open(String cluster) throws ClusterConnectionException {
        attempts.incrementAndGet();
        throw new ClusterConnectionException(
            ClusterConnectionException.REASON_INVALID_KUBECONFIG,
            "kubeconfig of " + cluster + ": users[0].user.exec is not allowed");
      }

      @Override
      public void release(String cluster, KubernetesClient client) {}
    });
    ClusterConnection east = clusters.acquire("east");
    clusters.acquire("east");
    assertThat(attempts).hasValue(1);
    assertThat(east.attachCurrent()).isNull();
    assertThat(clusters.health("east")).hasValueSatisfying(h -> {
      assertThat(h.state()).isEqualTo(ClusterHealth.State.INVALID);
      assertThat(h.reason()).isEqualTo(ClusterConnectionException.REASON_INVALID_KUBECONFIG);
      assertThat(h.message()).contains("exec is not allowed");
    });

    clusters.changed("east");
    assertThat(attempts).hasValue(2);
  }

  @Test
  void aClusterRefusedForThisTargetIsForbidden() {
    OpenClusters clusters = clusters(new ClusterConnections() {
      @Override
      public KubernetesClient open(String cluster) throws ClusterConnectionException {
        throw new ClusterConnectionException(ClusterConnectionException.REASON_FORBIDDEN,
            "KollectCluster other/" + cluster + " is in another namespace");
      }

      @Override
      public void release(String cluster, KubernetesClient client) {}
    });
    clusters.acquire("east");
    assertThat(clusters.health("east")).hasValueSatisfying(h -> {
      assertThat(h.state()).isEqualTo(ClusterHealth.State.FORBIDDEN);
      assertThat(h.reason()).isEqualTo("Forbidden");
    });
  }
}

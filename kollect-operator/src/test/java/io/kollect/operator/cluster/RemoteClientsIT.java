package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kollect.operator.KubeClients;
import io.kollect.testing.TestApiServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Many clusters stay cheap: clients built by {@link RemoteClients} share one Vert.x
 * instance, one callback executor and one JSON mapper, so each added cluster connection (here:
 * a client with informers on 2 types, as a cluster read by targets of 2 types) adds at most 2
 * threads, where a default-built fabric8 client adds a stack of its own. Both are measured on the
 * same real API server under different client identities; the figures are printed for
 * docs/benchmarks.md.
 */
class RemoteClientsIT {

  private static final int CLIENTS = 10;
  private static TestApiServer server;

  @BeforeAll
  static void start() {
    server = TestApiServer.builder().reused().start();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * Threads added per client with 2 synced informers, over {@link #CLIENTS} clients: the threads
   * alive at the end that were not before. The test JVM runs other IT classes before this one,
   * whose pools may still start threads meanwhile (and stop others, which a difference of thread
   * counts would subtract); such noise only adds, so the fewest of three attempts is the cost.
   */
  private static double threadsPerClient(Supplier<Function<Config, KubernetesClient>> stacks)
      throws Exception {
    double fewest = Double.MAX_VALUE;
    for (int attempt = 0; attempt < 3; attempt++) {
      fewest = Math.min(fewest, threadsPerClientOnce(stacks.get()));
    }
    return fewest;
  }

  private static double threadsPerClientOnce(Function<Config, KubernetesClient> build)
      throws Exception {
    List<KubernetesClient> clients = new ArrayList<>();
    List<SharedIndexInformer<?>> informers = new ArrayList<>();
    try {
      // One client first, so the shared stack itself (event loops, executor) is in the baseline.
      KubernetesClient first = build.apply(server.adminConfig());
      clients.add(first);
      informers.add(first.configMaps().inAnyNamespace().inform());
      informers.add(first.secrets().inAnyNamespace().inform());
      waitSynced(informers);
      Set<Long> before = liveThreadIds();
      for (int i = 0; i < CLIENTS; i++) {
        KubernetesClient c = build.apply(server.adminConfig());
        clients.add(c);
        informers.add(c.configMaps().inAnyNamespace().inform());
        informers.add(c.secrets().inAnyNamespace().inform());
      }
      waitSynced(informers);
      Set<Long> added = liveThreadIds();
      added.removeAll(before);
      return added.size() / (double) CLIENTS;
    } finally {
      informers.forEach(SharedIndexInformer::close);
      clients.forEach(KubernetesClient::close);
    }
  }

  private static Set<Long> liveThreadIds() {
    Set<Long> ids = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      ids.add(t.getId());
    }
    return ids;
  }

  private static void waitSynced(List<SharedIndexInformer<?>> informers) throws Exception {
    for (SharedIndexInformer<?> informer : informers) {
      informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void eachAddedClusterConnectionCostsAtMostTwoThreadsOnTheSharedStack() throws Exception {
    List<RemoteClients> stacks = new ArrayList<>();
    double shared;
    try {
      shared = threadsPerClient(() -> {
        RemoteClients remote = new RemoteClients(KubeClients.DEFAULT_QPS,
            KubeClients.DEFAULT_BURST);
        stacks.add(remote);
        return remote::client;
      });
    } finally {
      stacks.forEach(RemoteClients::close);
    }
    double separate = threadsPerClient(
        () -> c -> new KubernetesClientBuilder().withConfig(c).build());
    System.out.printf("threads per added client with 2 informers: shared stack %.1f, "
        + "default fabric8 client %.1f%n", shared, separate);
    assertThat(shared).isLessThanOrEqualTo(2.0);
    assertThat(shared).as("the shared stack is cheaper than a stack per client")
        .isLessThan(separate);
  }
}

package io.kollect.core;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.InformerOptions;
import io.kollect.testing.TestApiServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What each added cluster costs the engine: threads, heap and open watches per cluster connection
 * at a fixed inventory (2 watched types, 10 Deployments and 10 ConfigMaps per cluster), for 1, 10
 * and 50 clusters. All clusters are names for one real API server, each with its own client; the
 * clients share one HTTP client factory (one Vert.x event loop), as a host serving a fleet should
 * build them (one Vert.x instance, one task executor). Not a test: it prints a table for {@code docs/benchmarks.md}. Run with
 *
 * <pre>
 * ./mvnw -o -q -B -ntp -pl kollect-core -am verify -Dtest=none -Dit.test=ClusterCostBench \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
 * </pre>
 */
class ClusterCostBench {

  @Test
  void threadsHeapAndWatchesPerAddedCluster() throws Exception {
    try (TestApiServer server = TestApiServer.start()) {
      server.namespace("cost");
      for (int i = 0; i < 10; i++) {
        server.admin().apps().deployments().inNamespace("cost").resource(new DeploymentBuilder()
            .withNewMetadata().withName("d" + i).endMetadata()
            .withNewSpec().withReplicas(1)
            .withNewSelector().addToMatchLabels("app", "d" + i).endSelector()
            .withNewTemplate().withNewMetadata().addToLabels("app", "d" + i).endMetadata()
            .withNewSpec().addNewContainer().withName("m").withImage("img:1").endContainer()
            .endSpec().endTemplate().endSpec().build()).create();
        server.admin().configMaps().inNamespace("cost").resource(new ConfigMapBuilder()
            .withNewMetadata().withName("c" + i).endMetadata().addToData("k", "v" + i).build())
            .create();
      }
      ProfileSpec profile = new ProfileSpec(List.of(
          new ResourceRule("apps", "v1", "Deployment", List.of(FieldRule.of("replicas",
              ".spec.replicas")), List.of(), List.of(), List.of(), false, false),
          new ResourceRule("", "v1", "ConfigMap", List.of(FieldRule.of("k", ".data.k")),
              List.of(), List.of(), List.of(), false, false)));
      HttpClient.Factory shared = sharedVertxFactory();
      java.util.concurrent.ExecutorService tasks = java.util.concurrent.Executors
          .newCachedThreadPool();
      StringBuilder table = new StringBuilder(
          "| clusters | threads | heap MiB | open watches | threads/cluster | heap KiB/cluster |"
              + " watches/cluster |\n|---|---|---|---|---|---|---|\n");
      for (int n : new int[] {1, 10, 50}) {
        Map<String, KubernetesClient> clients = new HashMap<>();
        for (int i = 0; i < n; i++) {
          clients.put("c" + i, new KubernetesClientBuilder().withConfig(server.adminConfig())
              .withHttpClientFactory(shared).withTaskExecutor(tasks).build());
        }
        KollectEngine engine = KollectEngine.builder(server.admin()).cluster("home")
            .informerOptions(InformerOptions.defaults().withCluster("home"))
            .clusterConnections(ClusterConnections.of(clients)).build();
        engine.putProfile("p", profile);
        engine.putSink(new RecordingSink("rec"), SinkOptions());
        engine.start();
        // the engine started, no other cluster open yet: the baseline
        clients.values().iterator().next().getKubernetesVersion();
        long[] before = measure();
        for (int i = 0; i < n; i++) {
          engine.putTarget(TargetSpec.builder(new TargetId("cost", "t" + i), "p")
              .scope(TargetScope.namespaces("cost")).sinkRefs(List.of("rec"))
              .clusters(List.of("c" + i)).build());
        }
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1))
            .until(() -> watches(engine) == 2 * n && engine.awaitIdle(Duration.ofSeconds(1)));
        long[] after = measure();
        int watches = watches(engine);
        if (n == 10) {
          Map<String, Integer> names = new java.util.TreeMap<>();
          Thread.getAllStackTraces().keySet().forEach(t ->
              names.merge(t.getName().replaceAll("[0-9]+", "#"), 1, Integer::sum));
          System.out.println("THREADS at 10 clusters: " + names);
        }
        table.append(String.format("| %d | %d → %d | %.1f → %.1f | %d | %.2f | %.0f | %.1f |%n", n,
            before[0], after[0], before[1] / 1048576.0, after[1] / 1048576.0, watches,
            (after[0] - before[0]) / (double) n, (after[1] - before[1]) / 1024.0 / n,
            watches / (double) n));
        engine.close();
        clients.values().forEach(KubernetesClient::close);
      }
      System.out.println("CLUSTER COST\n" + table);
    }
  }

  /**
   * One Vert.x instance for every client (fabric8's default factory makes one per client: an
   * event loop, a blocking pool and a checker thread each). Reflection: Vert.x is on the test
   * runtime classpath only.
   */
  private static HttpClient.Factory sharedVertxFactory() throws Exception {
    Class<?> vertxType = Class.forName("io.vertx.core.Vertx");
    Object vertx = vertxType.getMethod("vertx").invoke(null);
    return (HttpClient.Factory) Class.forName(
        "io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory")
        .getConstructor(vertxType).newInstance(vertx);
  }

  private static io.kollect.export.SinkOptions SinkOptions() {
    return io.kollect.export.SinkOptions.defaults();
  }

  private static int watches(KollectEngine engine) {
    int open = 0;
    for (ClusterHealth h : engine.clusterHealth()) {
      if (!h.cluster().equals("home")) {
        open += h.openWatches();
      }
    }
    return open;
  }

  /** Live threads, and heap used after a full collection. */
  private static long[] measure() throws InterruptedException {
    List<Long> heaps = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
      heaps.add(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return new long[] {ManagementFactory.getThreadMXBean().getThreadCount(),
        heaps.stream().mapToLong(Long::longValue).min().orElseThrow()};
  }
}

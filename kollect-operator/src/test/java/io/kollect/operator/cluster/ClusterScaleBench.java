package io.kollect.operator.cluster;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.core.ClusterHealth;
import io.kollect.operator.TestOperator;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.testing.TestApiServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Remote clusters benchmark (not part of the test suites: run it by name, see docs/benchmarks.md):
 * one operator reading 1, then 10, then 50 KollectClusters that point at the same 2 real API
 * servers under different names (each its own credential identity, so its own client and
 * informers), all selected by one target whose profile has 2 types. After each step, once every
 * cluster is connected and its informers synced: the JVM's threads, live heap after a full GC, and
 * the open watches over all clusters, printed with the cost per added cluster; then the same after
 * a minute without changes (idle).
 */
class ClusterScaleBench {

  @Test
  void threadsHeapAndWatchesPerAddedCluster() throws Exception {
    try (TestCluster home = TestCluster.start();
        TestApiServer east = TestApiServer.builder().tokenUser("east-t", "k", "system:masters")
            .start();
        TestApiServer west = TestApiServer.builder().tokenUser("west-t", "k", "system:masters")
            .start()) {
      home.namespace("kollect-system");
      home.namespace("fleet");
      for (TestApiServer s : List.of(east, west)) {
        s.namespace("apps");
        for (int i = 0; i < 20; i++) {
          s.admin().configMaps().inNamespace("apps").resource(new ConfigMapBuilder()
              .withNewMetadata().withName("cm-" + i).endMetadata()
              .withData(Map.of("v", "1")).build()).create();
        }
      }
      home.client().secrets().inNamespace("fleet").resource(new SecretBuilder().withNewMetadata()
          .withName("east").endMetadata().withStringData(Map.of("value",
              east.kubeconfigForToken("k", "east-t"))).build()).create();
      home.client().secrets().inNamespace("fleet").resource(new SecretBuilder().withNewMetadata()
          .withName("west").endMetadata().withStringData(Map.of("value",
              west.kubeconfigForToken("k", "west-t"))).build()).create();
      home.apply("""
          apiVersion: kollect.io/v1alpha1
          kind: KollectProfile
          metadata: {name: two-types}
          spec:
            resources:
              - {version: v1, kind: ConfigMap, fields: [{name: v, path: "{.data.v}"}]}
              - {version: v1, kind: Service, fields: [{name: type, path: "{.spec.type}"}]}
          ---
          apiVersion: kollect.io/v1alpha1
          kind: KollectTarget
          metadata: {name: all, namespace: fleet}
          spec:
            profileRef: two-types
            scope: {namespaces: [apps]}
            clusterSelector: {matchLabels: {bench: "yes"}}
          """);
      try (TestOperator operator = TestOperator.on(home).trusting("fleet").start()) {
        Sample before = null;
        Sample idleBefore = null;
        int made = 0;
        for (int n : new int[] {1, 10, 50}) {
          for (; made < n; made++) {
            KollectCluster c = home.client().getKubernetesSerialization().unmarshal("""
                apiVersion: kollect.io/v1alpha1
                kind: KollectCluster
                metadata: {name: c%d, namespace: fleet, labels: {bench: "yes"}}
                spec: {kubeConfig: {secretRef: {name: %s}}}
                """.formatted(made, made % 2 == 0 ? "east" : "west"), KollectCluster.class);
            home.client().resource(c).createOr(NonDeletingOperation::update);
          }
          int want = n;
          await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            List<ClusterHealth> h = operator.operator().engine().clusterHealth();
            return h.stream().filter(x -> !x.cluster().equals("it") && x.ready()
                && x.openWatches() >= 2).count() == want;
          });
          Sample now = Sample.take(n, watches(operator));
          System.out.println("connected " + now.describe(before));
          // Idle: the callback threads the initial lists woke end after a minute without work.
          Thread.sleep(Duration.ofSeconds(65).toMillis());
          Sample idle = Sample.take(n, watches(operator));
          System.out.println("idle      " + idle.describe(idleBefore));
          before = now;
          idleBefore = idle;
          System.out.println("threads by name at " + n + " clusters: " + threadsByName());
        }
      }
    }
  }

  /** Live threads grouped by name with digits dropped (where an added cluster's threads are). */
  private static Map<String, Long> threadsByName() {
    return Thread.getAllStackTraces().keySet().stream().collect(java.util.stream.Collectors
        .groupingBy(t -> t.getName().replaceAll("[0-9]+", "#"), java.util.TreeMap::new,
            java.util.stream.Collectors.counting()));
  }

  private static int watches(TestOperator operator) {
    return operator.operator().engine().clusterHealth().stream()
        .filter(x -> !x.cluster().equals("it")).mapToInt(ClusterHealth::openWatches).sum();
  }

  /** One measurement after {@code clusters} clusters are connected. */
  record Sample(int clusters, int threads, long heapBytes, int watches) {

    static Sample take(int clusters, int watches) throws InterruptedException {
      for (int i = 0; i < 3; i++) {
        System.gc();
        Thread.sleep(200);
      }
      return new Sample(clusters, ManagementFactory.getThreadMXBean().getThreadCount(),
          ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), watches);
    }

    String describe(Sample before) {
      String line = String.format("clusters %d: threads %d, live heap %.1f MiB, open watches %d",
          clusters, threads, heapBytes / 1048576.0, watches);
      if (before == null) {
        return line;
      }
      int added = clusters - before.clusters;
      return line + String.format(" | per added cluster: threads %.2f, heap %.2f MiB, "
          + "watches %.2f", (threads - before.threads) / (double) added,
          (heapBytes - before.heapBytes) / 1048576.0 / added,
          (watches - before.watches) / (double) added);
    }
  }
}

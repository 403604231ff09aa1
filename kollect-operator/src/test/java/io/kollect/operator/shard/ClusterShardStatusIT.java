package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kollect.core.Shard;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.ClusterSettings;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectClusterStatus;
import io.kollect.operator.crd.KollectTargetStatus.ClusterEntry;
import io.kollect.operator.crd.KollectTargetStatus.ShardEntry;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.targets.CrTranslation;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two operators split by cluster ({@code --shard-by=cluster}) over one API server that two
 * KollectClusters also name (so shard 0 owns one and shard 1 the other): the status rules of the
 * cluster split. The aggregator (shard 0) writes {@code clusters[]} from every shard's entry,
 * including the cluster only shard 1 reads; shard 0, which holds no part of a target of shard 1's
 * cluster, still writes a Ready entry with zero objects, so that target becomes Ready; and a
 * KollectCluster's status comes from the shard that reads it.
 */
class ClusterShardStatusIT {

  private static final String APPS = "apps";
  private static final String NS = "by-cluster";
  private static final int OBJECTS = 5;
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  private static TestCluster home;
  private static final List<TestOperator> running = new ArrayList<>();
  /** KollectCluster names owned by shard 0 and shard 1 of two, split by cluster. */
  private static String cluster0;
  private static String cluster1;

  @BeforeAll
  static void start() {
    home = TestCluster.start();
    cluster0 = owned(0);
    cluster1 = owned(1);
    home.namespace("kollect-system");
    home.namespace(APPS);
    home.namespace(NS);
    for (int i = 0; i < OBJECTS; i++) {
      home.client().configMaps().inNamespace(APPS).resource(new ConfigMapBuilder()
          .withNewMetadata().withName("cm-" + i).endMetadata().withData(Map.of("v", "" + i))
          .build()).create();
    }
    home.client().secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata()
        .withName("kubeconfig").endMetadata()
        .withStringData(Map.of("value", home.kubeconfigYaml())).build()).create();
    StringBuilder yaml = new StringBuilder(TestCluster.CONFIGMAP_PROFILE);
    for (String name : List.of(cluster0, cluster1)) {
      yaml.append("""
          apiVersion: kollect.io/v1alpha1
          kind: KollectCluster
          metadata: {name: %s, namespace: %s, labels: {fleet: "yes"}}
          spec:
            kubeConfig: {secretRef: {name: kubeconfig}}
          ---
          """.formatted(name, NS));
    }
    yaml.append("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: fleet, namespace: %s}
        spec:
          profileRef: configmaps
          clusterSelector: {matchLabels: {fleet: "yes"}}
          scope: {namespaces: [%s]}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: only-one, namespace: %s}
        spec:
          profileRef: configmaps
          clusterRef: {name: %s}
          scope: {namespaces: [%s]}
        """.formatted(NS, APPS, NS, cluster1, APPS));
    home.apply(yaml.toString());
    for (int i = 0; i < 2; i++) {
      Shard shard = new Shard(2, i, Shard.By.CLUSTER);
      running.add(TestOperator.on(home).trusting(NS)
          // the test server's admin kubeconfig names its CA by file: allowed as the flag allows it
          .configure(c -> c.toBuilder().shard(shard).statusWriteInterval(Duration.ofMillis(300))
              .clusters(new ClusterSettings(c.clusters().clusterName(),
                  c.clusters().secretNamespaces(), true, false, c.clusters().files()))
              .build())
          .stdout(new PrintStream(OutputStream.nullOutputStream(), true))
          .start());
    }
  }

  @AfterAll
  static void stop() {
    running.forEach(TestOperator::close);
    if (home != null) {
      home.close();
    }
  }

  /** The first name {@code remote-<k>} that shard {@code index} of two owns by cluster. */
  private static String owned(int index) {
    return IntStream.range(0, 20).mapToObj(k -> "remote-" + k)
        .filter(n -> new Shard(2, index, Shard.By.CLUSTER).ownsCluster(n)).findFirst()
        .orElseThrow();
  }

  private static KollectTargetStatus status(String target) {
    GenericKubernetesResource t = home.client()
        .genericKubernetesResources("kollect.io/v1alpha1", "KollectTarget").inNamespace(NS)
        .withName(target).get();
    Object status = t == null ? null : t.getAdditionalProperties().get("status");
    return status == null ? null
        : CrTranslation.lenient().convertValue(status, KollectTargetStatus.class);
  }

  private static boolean ready(KollectTargetStatus s) {
    return s != null && s.conditions() != null && s.conditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static ShardEntry entry(KollectTargetStatus s, int index) {
    return s.shards().stream().filter(e -> e.index() == index).findFirst().orElseThrow();
  }

  @Test
  void theTopLevelMergesEveryShardsClustersAndAShardWithNoPartIsReadyWithZeroObjects() {
    await().atMost(CONVERGE).untilAsserted(() -> {
      KollectTargetStatus fleet = status("fleet");
      assertThat(ready(fleet)).as("fleet Ready: %s", fleet).isTrue();
      // each remote cluster from its owner's entry alone; the top level has both, although
      // its writer (shard 0) reads only cluster0
      assertThat(entry(fleet, 0).clusters()).extracting(ClusterEntry::name)
          .containsExactly(cluster0);
      assertThat(entry(fleet, 1).clusters()).extracting(ClusterEntry::name)
          .containsExactly(cluster1);
      assertThat(fleet.clusters()).containsExactlyInAnyOrder(
          new ClusterEntry(cluster0, true, OBJECTS, entry(fleet, 0).clusters().get(0).message()),
          new ClusterEntry(cluster1, true, OBJECTS, entry(fleet, 1).clusters().get(0).message()));
      assertThat(fleet.objects()).isEqualTo(2 * OBJECTS);
    });
    await().atMost(CONVERGE).untilAsserted(() -> {
      KollectTargetStatus one = status("only-one");
      assertThat(ready(one)).as("only-one Ready: %s", one).isTrue();
      ShardEntry none = entry(one, 0);
      assertThat(none.ready()).isEqualTo("True");
      assertThat(none.objects()).isZero();
      assertThat(none.clusters()).isNull();
      assertThat(one.clusters()).extracting(ClusterEntry::name).containsExactly(cluster1);
      assertThat(one.objects()).isEqualTo(OBJECTS);
    });
    // each KollectCluster's status is its reader's view: the informers its owner opened on it
    for (String name : List.of(cluster0, cluster1)) {
      await().atMost(CONVERGE).untilAsserted(() -> {
        KollectCluster c = home.client().resources(KollectCluster.class).inNamespace(NS)
            .withName(name).get();
        KollectClusterStatus s = c.getStatus();
        assertThat(s).as(name).isNotNull();
        assertThat(s.watchedTypes()).as(name).contains("v1/ConfigMap");
      });
    }
  }
}

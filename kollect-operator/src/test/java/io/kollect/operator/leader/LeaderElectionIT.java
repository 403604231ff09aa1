package io.kollect.operator.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.TargetId;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.LineCapture;
import io.kollect.operator.OperatorConfig;
import io.kollect.operator.OperatorIT;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.http.InventoryAuth;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two operator instances on one API server: one leads and exports, the other stands by with warm
 * caches; when the leader stops, the standby takes over within the lease duration and continues
 * from the shared in-cluster checkpoint instead of re-sending everything.
 */
class LeaderElectionIT {

  private static final Duration LEASE = Duration.ofSeconds(4);
  private static TestCluster cluster;
  private static Path dir;

  private static Path sharedFile() {
    return dir.resolve("records.jsonl");
  }

  private static List<String> sharedFileLines() throws java.io.IOException {
    return Files.exists(sharedFile()) ? Files.readAllLines(sharedFile()) : List.of();
  }

  @BeforeAll
  static void startCluster() throws java.io.IOException {
    dir = Files.createTempDirectory("kollect-leader-it");
    cluster = TestCluster.start();
    cluster.namespace("apps");
    cluster.namespace("kollect-system");
    cluster.apply(TestCluster.deploymentsProfile() + """
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: shared-file, namespace: apps}
        spec:
          type: file
          file: {path: "%s"}
          batch: {linger: 100ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: all, namespace: apps}
        spec:
          profileRef: deployments
          sinkRefs: [shared-file]
          writeInventory: true
        """.formatted(sharedFile()));
    for (String name : List.of("one", "two", "three")) {
      cluster.apply(OperatorIT.deployment(name, 1).replace("namespace: shop", "namespace: apps"));
    }
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private record Instance(String identity, KubernetesClient client, KollectOperator operator,
      LineCapture records) implements AutoCloseable {
    @Override
    public void close() {
      operator.close();
      client.close();
    }
  }

  private static Instance start(String identity) throws Exception {
    LineCapture records = new LineCapture();
    PrintStream out = records.printStream();
    KubernetesClient client = cluster.newClient();
    OperatorConfig config = OperatorConfig.builder().clusterName("it").workers(2)
        .resyncPeriod(Duration.ofHours(1))
        .leaderElection(new LeaderElectionSettings(true, "kollect-system", "kollect-leader",
            identity, LEASE, Duration.ofSeconds(3), Duration.ofMillis(500)))
        .inventoryAuth(InventoryAuth.disabled()).operatorNamespace("kollect-system")
        .stdoutRecords(Optional.of(out))
        // not a tenancy test: the platform trusts the namespace of its targets
        .tenancy("default", Set.of("kollect-system", "apps")).build();
    KollectOperator operator = new KollectOperator(client, config);
    operator.start();
    return new Instance(identity, client, operator, records);
  }

  private static String holder() {
    Lease lease = cluster.client().leases().inNamespace("kollect-system")
        .withName("kollect-leader").get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  // The ConfigMap checkpoint format (parts, deltas, upgrade, torn objects) is tested in
  // ConfigMapCheckpointStoreIT.

  @Test
  void onlyTheLeaderExportsAndTheStandbyTakesOverWithoutResending() throws Exception {
    Instance a = start("instance-a");
    Instance b = null;
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> a.operator().isLeader());
      await().atMost(Duration.ofSeconds(60)).until(() -> a.records().lines().size() >= 3
          && sharedFileLines().size() >= 3);
      b = start("instance-b");
      Instance standby = b;
      await().atMost(Duration.ofSeconds(60)).until(() -> standby.operator().isReady());
      // The standby's caches are warm and it serves the inventory view, but it exports nothing.
      await().atMost(Duration.ofSeconds(20)).until(() ->
          standby.operator().engine().inventory().query(io.kollect.export.InventoryQuery.all())
              .size() == 3);
      // Those reconciles read all three objects; once the engines are idle they are over and
      // whatever they handed to a sink is delivered, so an export by the standby would show.
      await().atMost(Duration.ofSeconds(30)).until(() ->
          standby.operator().engine().awaitIdle(Duration.ofSeconds(5))
              && a.operator().engine().awaitIdle(Duration.ofSeconds(5)));
      assertThat(standby.operator().isLeader()).isFalse();
      assertThat(standby.records().lines()).isEmpty();
      assertThat(a.records().lines()).hasSize(3);
      assertThat(holder()).isEqualTo("instance-a");

      long stoppedAt = System.nanoTime();
      a.close();
      await().atMost(LEASE.plusSeconds(2)).until(() -> standby.operator().isLeader());
      assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(LEASE.plusSeconds(2));
      assertThat(holder()).isEqualTo("instance-b");

      // It converges from the checkpoint the old leader left: nothing unchanged is re-sent ...
      // lastExport is set only by a reconcile that handed the target's records to the exporter,
      // which the standby never did; once idle after it, what it handed over is delivered.
      TargetId all = new TargetId("apps", "all");
      await().atMost(Duration.ofSeconds(30)).until(() -> standby.operator().engine().status(all)
          .map(s -> s.lastExport() != null).orElse(false));
      await().atMost(Duration.ofSeconds(30)).until(() -> standby.operator().engine()
          .awaitIdle(Duration.ofSeconds(5)));
      assertThat(standby.records().lines()).isEmpty();
      assertThat(sharedFileLines()).as("the KollectSink received nothing again").hasSize(3);
      // ... and a change made now is exported exactly once, by the new leader.
      cluster.client().apps().deployments().inNamespace("apps").withName("two").edit(d -> {
        d.getSpec().setReplicas(7);
        return d;
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> standby.records().lines().size() >= 1);
      // A change of another object is the marker: its record comes from a later reconcile, so a
      // second record of the change would come before it or with it; idle, all that is delivered.
      cluster.client().apps().deployments().inNamespace("apps").withName("one").edit(d -> {
        d.getSpec().setReplicas(5);
        return d;
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> standby.records().lines().stream()
          .anyMatch(l -> l.contains("\"name\":\"one\"")));
      await().atMost(Duration.ofSeconds(30)).until(() -> standby.operator().engine()
          .awaitIdle(Duration.ofSeconds(5)));
      assertThat(standby.records().lines()).hasSize(2);
      assertThat(standby.records().lines().get(0)).contains("\"name\":\"two\"")
          .contains("\"replicas\":7");
      assertThat(standby.records().lines().get(1)).contains("\"name\":\"one\"")
          .contains("\"replicas\":5");
      assertThat(a.records().lines()).hasSize(3);
      assertThat(sharedFileLines()).hasSize(5);
      assertThat(sharedFileLines().get(3)).contains("\"name\":\"two\"");
      assertThat(sharedFileLines().get(4)).contains("\"name\":\"one\"");
    } finally {
      if (b != null) {
        b.close();
      }
      a.close();
    }
  }
}

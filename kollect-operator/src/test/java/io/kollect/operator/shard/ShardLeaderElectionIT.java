package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kollect.core.Shard;
import io.kollect.operator.LineCapture;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus.ShardEntry;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.leader.LeaderElectionSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With more replicas than shards, each shard elects its own leader on its own Lease;
 * a shard's standby takes over that shard only, and the other shard's leader is not affected.
 * Each shard's leader writes its part of the target's status, the new leader of a shard too.
 */
class ShardLeaderElectionIT {

  private static final Duration LEASE = Duration.ofSeconds(4);
  private static TestCluster cluster;
  private static final List<AutoCloseable> started = new ArrayList<>();

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start();
    cluster.namespace("kollect-system");
    cluster.namespace("apps");
    for (int i = 0; i < 10; i++) {
      cluster.client().configMaps().inNamespace("apps").resource(new ConfigMapBuilder()
          .withNewMetadata().withName("cm-" + i).endMetadata().withData(Map.of("v", "" + i))
          .build()).create();
    }
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: apps}
        spec:
          profileRef: configmaps
          scope: {namespaces: [apps]}
        """);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    for (AutoCloseable c : started) {
      c.close();
    }
    cluster.close();
  }

  private record Replica(TestOperator operator, LineCapture records) implements AutoCloseable {
    boolean leads() {
      return operator.operator().isLeader();
    }

    @Override
    public void close() {
      operator.close();
    }
  }

  private static Replica start(String identity, Shard shard) {
    LineCapture records = new LineCapture();
    TestOperator op = TestOperator.on(cluster).trusting("apps")
        .configure(c -> c.toBuilder()
            .leaderElection(new LeaderElectionSettings(true, "kollect-system", "kollect-leader",
                identity, LEASE, Duration.ofSeconds(3), Duration.ofMillis(500)))
            .stdoutRecords(Optional.empty()).shard(shard).build())
        .configure(c -> c.toBuilder().statusWriteInterval(Duration.ofMillis(300)).build())
        .stdout(records.printStream())
        .start();
    Replica r = new Replica(op, records);
    started.add(r);
    return r;
  }

  private static String holder(String lease) {
    Lease l = cluster.client().leases().inNamespace("kollect-system").withName(lease).get();
    return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
  }

  private static KollectTargetStatus targetStatus() {
    KollectTarget t = cluster.client().resources(KollectTarget.class).inNamespace("apps")
        .withName("t").get();
    return t == null ? null : t.getStatus();
  }

  private static ShardEntry entry(int index) {
    KollectTargetStatus s = targetStatus();
    return s == null || s.shards() == null ? null
        : s.shards().stream().filter(e -> e.index() == index).findFirst().orElse(null);
  }

  private static int ownedByShardZero() {
    return (int) cluster.client().configMaps().inNamespace("apps").list().getItems().stream()
        .filter(cm -> new Shard(2, 0).owns("it", "", "ConfigMap", "apps",
            cm.getMetadata().getName())).count();
  }

  @Test
  void eachShardElectsItsOwnLeaderAndAStandbyTakesOverOnlyItsShard() {
    Replica first0 = start("first-0", new Shard(2, 0));
    await().atMost(Duration.ofSeconds(20)).until(first0::leads);
    Replica second0 = start("second-0", new Shard(2, 0));
    Replica only1 = start("only-1", new Shard(2, 1));
    // two leaders at once, one per shard; the second replica of shard 0 stands by
    await().atMost(Duration.ofSeconds(20)).until(only1::leads);
    await().atMost(Duration.ofSeconds(60)).until(() -> second0.operator().operator().isReady());
    assertThat(holder("kollect-leader-shard-0")).isEqualTo("first-0");
    assertThat(holder("kollect-leader-shard-1")).isEqualTo("only-1");
    assertThat(cluster.client().leases().inNamespace("kollect-system").withName("kollect-leader")
        .get()).as("no unsharded Lease").isNull();
    assertThat(second0.leads()).isFalse();
    // both leaders exported their shard's objects; the standby nothing
    await().atMost(Duration.ofSeconds(60)).until(() -> first0.records().lines().size()
        + only1.records().lines().size() >= 10);
    assertThat(second0.records().lines()).isEmpty();
    // each shard's leader wrote its part; shard 0's the total
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(entry(0)).isNotNull();
      assertThat(entry(1)).isNotNull();
      assertThat(targetStatus().objects()).isEqualTo(10);
    });

    long stoppedAt = System.nanoTime();
    first0.close();
    await().atMost(LEASE.plusSeconds(2)).until(second0::leads);
    assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(LEASE.plusSeconds(2));
    assertThat(holder("kollect-leader-shard-0")).isEqualTo("second-0");
    assertThat(holder("kollect-leader-shard-1")).isEqualTo("only-1");
    assertThat(only1.leads()).isTrue();
    // the new leader of shard 0 writes its entry and the total: a new object of shard 0 counts
    String name = java.util.stream.IntStream.range(10, 1000).mapToObj(i -> "cm-" + i)
        .filter(n -> new Shard(2, 0).owns("it", "", "ConfigMap", "apps", n)).findFirst()
        .orElseThrow();
    cluster.client().configMaps().inNamespace("apps").resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).endMetadata().withData(Map.of("v", "new")).build())
        .create();
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(entry(0).objects()).isEqualTo(ownedByShardZero());
      assertThat(targetStatus().objects()).isEqualTo(11);
    });
  }
}

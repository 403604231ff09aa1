package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kollect.core.Shard;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: the top level of a sharded target does not go stale while shard 0 is down. When shard
 * 0's leader crashes (its Lease stays held), shard 1 becomes the aggregator once the Lease has
 * expired and writes the top level: not Ready, naming shard 0, shard 0's last counts still summed.
 * When shard 0 leads again it takes the top level back.
 */
class ShardZeroDownIT {

  private static final String NS = "apps";
  private static final int OBJECTS = 10;
  private static final Duration LEASE = Duration.ofSeconds(4);
  private static final Duration WRITE_INTERVAL = Duration.ofMillis(300);
  private static final String LEASE_0 = "kollect-leader-shard-0";
  private static final String LEASE_1 = "kollect-leader-shard-1";
  private static TestCluster cluster;
  private static TestOperator shard0;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start();
    cluster.namespace("kollect-system");
    cluster.namespace(NS);
    for (int i = 0; i < OBJECTS; i++) {
      cluster.client().configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
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
  static void stopCluster() {
    if (shard0 != null) {
      shard0.close();
    }
    cluster.close();
  }

  private static TestOperator start(String identity, Shard shard) {
    return TestOperator.on(cluster).trusting(NS)
        .configure(c -> new OperatorConfig(c.clusterName(), c.workers(), c.resyncPeriod(),
            c.metricsAddress(), c.probeAddress(), new LeaderElectionSettings(true,
                "kollect-system", "kollect-leader", identity, LEASE, Duration.ofSeconds(3),
                Duration.ofMillis(500)), c.includeNamespaces(), c.excludeNamespaces(),
            c.inventoryAuth(), c.checkpointDir(), c.operatorNamespace(), Optional.empty(),
            c.statusWriteInterval(), c.watchLiveness(), c.defaultServiceAccount(),
            c.clusterWideNamespaces(), c.digestKey(), c.listPageSize(),
            c.clusterWideThreshold(), c.guards(), c.clusters(), shard))
        .configure(c -> c.withStatusWriteInterval(WRITE_INTERVAL))
        .stdout(new PrintStream(OutputStream.nullOutputStream(), true))
        .start();
  }

  private static KollectTargetStatus status() {
    KollectTarget t = cluster.client().resources(KollectTarget.class).inNamespace(NS)
        .withName("t").get();
    return t == null ? null : t.getStatus();
  }

  private static Condition ready() {
    KollectTargetStatus s = status();
    return s == null || s.conditions() == null ? null : s.conditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
  }

  private static Lease lease(String name) {
    return cluster.client().leases().inNamespace("kollect-system").withName(name).get();
  }

  private static void awaitReady() {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(ready()).isNotNull();
      assertThat(ready().getStatus()).isEqualTo("True");
      assertThat(ready().getMessage()).isEqualTo(OBJECTS + " objects in scope in 2 shards");
    });
  }

  /** A crash: the client dies first, so the Lease is never released. */
  private static void crash(TestOperator shard) {
    shard.client().close();
    shard.close();
  }

  /** The Lease expires, plus the grace, the last renewal before the crash and the writes. */
  private static final Duration DETECTION = LEASE.plus(ShardLeases.SKEW_GRACE)
      .plus(WRITE_INTERVAL).plusSeconds(2);

  @Test
  void shardOneWritesTheTopLevelNamingShardZeroWhileShardZeroIsDownAndShardZeroTakesItBack() {
    shard0 = start("s0", new Shard(2, 0));
    TestOperator shard1 = start("s1", new Shard(2, 1));
    awaitReady();

    // ---- shard 0 crashes: only shard 1 can write now ------------------------------------------
    crash(shard0);
    long crashedAt = System.nanoTime();
    shard0 = null;
    assertThat(lease(LEASE_0).getSpec().getHolderIdentity()).as("a crash leaves the Lease held")
        .isEqualTo("s0");
    await().atMost(DETECTION).untilAsserted(() -> {
      assertThat(ready().getStatus()).isEqualTo("False");
      assertThat(ready().getReason()).isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
      assertThat(ready().getMessage()).matches("1 of 2 shards not ready: shard 0: no leader since "
          + "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\(Lease " + LEASE_0 + " expired\\), its "
          + "last counts still summed");
    });
    assertThat(Duration.ofNanos(System.nanoTime() - crashedAt))
        .as("not before shard 0's Lease could have expired").isGreaterThan(LEASE);
    assertThat(status().objects()).as("shard 0's last part still counts").isEqualTo(OBJECTS);
    assertThat(status().shards()).as("shard 0's entry stays, still Ready")
        .anyMatch(e -> e.index() == 0 && "True".equals(e.ready()));
    assertThat(lease(LEASE_0).getSpec().getHolderIdentity()).isEqualTo("s0");

    // ---- shard 0 leads again: Ready=True, which only shard 0 can have written (shard 1 writes
    // the top level only while it judges shard 0 down, and then Ready=False); and shard 0 keeps
    // aggregating: when shard 1 crashes next, shard 0, the only one left, names it ------------
    shard0 = start("s0-again", new Shard(2, 0));
    awaitReady();
    assertThat(lease(LEASE_0).getSpec().getHolderIdentity()).isEqualTo("s0-again");

    crash(shard1);
    assertThat(lease(LEASE_1).getSpec().getHolderIdentity()).isEqualTo("s1");
    await().atMost(DETECTION).untilAsserted(() -> {
      assertThat(ready().getStatus()).isEqualTo("False");
      assertThat(ready().getMessage()).startsWith("1 of 2 shards not ready: shard 1: no leader "
          + "since ").contains("(Lease " + LEASE_1 + " expired)");
    });
    assertThat(status().objects()).isEqualTo(OBJECTS);
  }
}

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
 * Issue 15: with leader election, shard 0 judges the other shards by their Leases. A shard whose
 * leader crashed (its Lease not released) makes the target not Ready, naming it, once the Lease
 * has expired, although its last {@code status.shards[]} entry still says Ready; a shard that
 * leads again makes it Ready again; a shard that stops cleanly (its Lease released, which fabric8
 * does by shortening it to one second) within seconds. No spec change is needed for any of it.
 */
class ShardLivenessIT {

  private static final String NS = "apps";
  private static final int OBJECTS = 10;
  private static final Duration LEASE = Duration.ofSeconds(4);
  private static final Duration WRITE_INTERVAL = Duration.ofMillis(300);
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

  private static Lease lease1() {
    return cluster.client().leases().inNamespace("kollect-system").withName(LEASE_1).get();
  }

  private static void awaitReady() {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(ready()).isNotNull();
      assertThat(ready().getStatus()).isEqualTo("True");
      assertThat(ready().getMessage()).isEqualTo(OBJECTS + " objects in scope in 2 shards");
    });
  }

  @Test
  void aShardWithoutLeaderMakesTheTargetNotReadyWithinItsLeaseAndReadyAgainWhenItLeads() {
    shard0 = start("s0", new Shard(2, 0));
    TestOperator shard1 = start("s1", new Shard(2, 1));
    awaitReady();

    // ---- shard 1 crashes: its client dies first, so its Lease is never released ---------------
    shard1.client().close();
    long crashedAt = System.nanoTime();
    shard1.close();
    assertThat(lease1().getSpec().getHolderIdentity()).as("a crash leaves the Lease held")
        .isEqualTo("s1");
    Duration bound = LEASE.plus(ShardLeases.SKEW_GRACE).plus(WRITE_INTERVAL)
        .plusSeconds(2); // the last renewal (every 500 ms) before the crash, and the writes
    await().atMost(bound).untilAsserted(() -> {
      assertThat(ready().getStatus()).isEqualTo("False");
      assertThat(ready().getReason()).isEqualTo(ShardStatuses.REASON_SHARDS_NOT_READY);
      assertThat(ready().getMessage()).matches("1 of 2 shards not ready: shard 1: no leader since "
          + "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\(Lease " + LEASE_1 + " expired\\), its "
          + "last counts still summed");
    });
    Duration detected = Duration.ofNanos(System.nanoTime() - crashedAt);
    assertThat(detected).as("not before the Lease could have expired")
        .isGreaterThan(LEASE);
    assertThat(status().shards()).as("shard 1's entry stays, still Ready")
        .anyMatch(e -> e.index() == 1 && "True".equals(e.ready()));
    assertThat(status().objects()).as("shard 1's last part still counts").isEqualTo(OBJECTS);
    assertThat(lease1().getSpec().getHolderIdentity()).isEqualTo("s1");

    // ---- shard 1 leads again (a new pod): Ready without a spec change -------------------------
    TestOperator again = start("s1-again", new Shard(2, 1));
    awaitReady();
    assertThat(lease1().getSpec().getHolderIdentity()).isEqualTo("s1-again");

    // ---- a clean stop releases the Lease: fabric8 keeps the holder but shortens the Lease to
    // one second from the release, so the shard is down much sooner than after a crash ---------
    again.close();
    assertThat(lease1().getSpec().getLeaseDurationSeconds()).as("released").isEqualTo(1);
    await().atMost(Duration.ofSeconds(1).plus(ShardLeases.SKEW_GRACE).plus(WRITE_INTERVAL)
        .plusSeconds(1)).untilAsserted(() -> {
          assertThat(ready().getStatus()).isEqualTo("False");
          assertThat(ready().getMessage()).startsWith("1 of 2 shards not ready: shard 1: no leader "
              + "since ").contains("(Lease " + LEASE_1 + " expired)");
        });
  }
}

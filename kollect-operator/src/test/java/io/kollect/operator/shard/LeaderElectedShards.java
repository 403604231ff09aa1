package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kollect.core.Shard;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.leader.LeaderElectionSettings;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the shard-liveness tests run against, for one IT class (a JUnit extension: register it as
 * a static field): one API server, {@value #OBJECTS} ConfigMaps in {@value #NS} read by target
 * {@code apps/t}, and sharded operators with leader election on short Leases ({@link #LEASE}), so
 * a crashed shard's Lease expires within seconds. The operators it starts are stopped with it
 * (stopping one twice is harmless).
 */
final class LeaderElectedShards implements BeforeAllCallback, AfterAllCallback {

  static final String NS = "apps";
  static final int OBJECTS = 10;
  static final Duration LEASE = Duration.ofSeconds(4);
  static final Duration WRITE_INTERVAL = Duration.ofMillis(300);
  /**
   * How long a crashed shard takes to be named: its Lease expires, plus the grace, the last
   * renewal (every 500 ms) before the crash, and the status writes.
   */
  static final Duration DETECTION = LEASE.plus(ShardLeases.SKEW_GRACE).plus(WRITE_INTERVAL)
      .plusSeconds(2);

  private final List<TestOperator> operators = new ArrayList<>();
  private TestCluster cluster;

  @Override
  public void beforeAll(ExtensionContext context) {
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

  /** An operator of {@code shard}, leader-elected as {@code identity}. */
  TestOperator shard(String identity, Shard shard) {
    TestOperator operator = TestOperator.on(cluster).trusting(NS)
        .configure(c -> c.toBuilder()
            .leaderElection(new LeaderElectionSettings(true, "kollect-system", "kollect-leader",
                identity, LEASE, Duration.ofSeconds(3), Duration.ofMillis(500)))
            .stdoutRecords(Optional.empty()).shard(shard).build())
        .configure(c -> c.toBuilder().statusWriteInterval(WRITE_INTERVAL).build())
        .stdout(new PrintStream(OutputStream.nullOutputStream(), true));
    operators.add(operator);
    return operator.start();
  }

  /** A crash: the client dies first, so the Lease is never released. */
  static void crash(TestOperator shard) {
    shard.client().close();
    shard.close();
  }

  KollectTargetStatus status() {
    KollectTarget t = cluster.client().resources(KollectTarget.class).inNamespace(NS)
        .withName("t").get();
    return t == null ? null : t.getStatus();
  }

  Condition ready() {
    KollectTargetStatus s = status();
    return s == null || s.conditions() == null ? null : s.conditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
  }

  /** Shard {@code index}'s Lease. */
  Lease lease(int index) {
    return cluster.client().leases().inNamespace("kollect-system").withName(leaseName(index))
        .get();
  }

  static String leaseName(int index) {
    return "kollect-leader-shard-" + index;
  }

  /** Waits until the target is Ready with every object of both shards. */
  void awaitReady() {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(ready()).isNotNull();
      assertThat(ready().getStatus()).isEqualTo("True");
      assertThat(ready().getMessage()).isEqualTo(OBJECTS + " objects in scope in 2 shards");
    });
  }

  @Override
  public void afterAll(ExtensionContext context) {
    operators.forEach(TestOperator::close);
    if (cluster != null) {
      cluster.close();
    }
  }
}

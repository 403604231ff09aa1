package io.kollect.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.http.InventoryAuth;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * An operator for an IT: the usual test configuration (no HTTP listeners, no leader election,
 * checkpoints in ConfigMaps of {@code kollect-system}, one-hour resync) with its
 * own client, started on {@link #start}, stopped with its client on {@link #close}. A test states
 * only what it changes, e.g. {@code TestOperator.on(cluster).configure(c ->
 * c.toBuilder().tenancy(...).build())}.
 */
public final class TestOperator implements AutoCloseable {

  private final TestCluster cluster;
  private OperatorConfig config;
  private KubernetesClient client;
  private KollectOperator operator;
  /** Requests per second and burst of the operator's client; unlimited when null. */
  private double[] rateLimit;
  /** Makes the operator's client; the cluster's admin credentials when null. */
  private Function<TestCluster, KubernetesClient> clientOf;

  private TestOperator(TestCluster cluster, OperatorConfig config) {
    this.cluster = cluster;
    this.config = config;
  }

  /** The test defaults: cluster {@code it}, one worker, listeners off. */
  public static TestOperator on(TestCluster cluster) {
    return new TestOperator(cluster, OperatorConfig.builder().clusterName("it").workers(1)
        .resyncPeriod(Duration.ofHours(1)).inventoryAuth(InventoryAuth.disabled())
        .operatorNamespace("kollect-system").build());
  }

  /** The platform trusts these namespaces' targets (tests not about the tenant boundary). */
  public TestOperator trusting(String... namespaces) {
    Set<String> trusted = new java.util.HashSet<>(Set.of(namespaces));
    trusted.add("kollect-system");
    return configure(c -> c.toBuilder().tenancy("default", trusted).build());
  }

  /** Changes the configuration before the start. */
  public TestOperator configure(UnaryOperator<OperatorConfig> change) {
    config = change.apply(config);
    return this;
  }

  /** Records also go to {@code out} as JSON lines ({@code --stdout}). */
  public TestOperator stdout(PrintStream out) {
    return configure(c -> c.toBuilder().stdoutRecords(Optional.of(out)).build());
  }

  /** Checkpoints in files under {@code dir} ({@code --checkpoint-dir}). */
  public TestOperator checkpointDir(Path dir) {
    return configure(c -> c.toBuilder().checkpointDir(Optional.of(dir)).build());
  }

  /** The operator's client is limited as {@code --kube-api-qps}/{@code --kube-api-burst} do. */
  TestOperator rateLimited(double qps, int burst) {
    rateLimit = new double[] {qps, burst};
    return this;
  }

  /** The operator's client is made by {@code clientOf} (e.g. with a token of fewer rights). */
  public TestOperator clientFrom(Function<TestCluster, KubernetesClient> clientOf) {
    this.clientOf = clientOf;
    return this;
  }

  OperatorConfig config() {
    return config;
  }

  /** Builds the operator on a client of its own and starts it. */
  public TestOperator start() {
    client = newClient();
    operator = new KollectOperator(client, config);
    try {
      operator.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** Builds the operator without starting it (a test that checks the state before the start). */
  KollectOperator build() {
    client = newClient();
    operator = new KollectOperator(client, config);
    return operator;
  }

  private KubernetesClient newClient() {
    if (clientOf != null) {
      return clientOf.apply(cluster);
    }
    if (rateLimit == null) {
      return cluster.newClient();
    }
    try {
      Path dir = java.nio.file.Files.createTempDirectory("kollect-test-operator");
      return KubeClients.create(Optional.of(cluster.writeKubeconfig(dir)), Optional.empty(),
          rateLimit[0], (int) rateLimit[1]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public KollectOperator operator() {
    return operator;
  }

  /** The operator's own client. */
  public KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    if (operator != null) {
      operator.close();
      operator = null;
    }
    if (client != null) {
      client.close();
      client = null;
    }
  }
}

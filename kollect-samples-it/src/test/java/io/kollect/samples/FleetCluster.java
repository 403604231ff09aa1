package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the fleet ITs run the packaged operator on: a real API server with the Kollect CRDs, the
 * namespace {@value #OPERATOR_NAMESPACE} (checkpoints), the cluster-scoped profile {@code
 * configmaps} (field {@code v} = {@code data.v}), and a work directory {@code target/<name>},
 * emptied first, holding the admin kubeconfig and the operator processes' output. Also the
 * burst-then-kill arrangement the crash scenarios share.
 */
final class FleetCluster implements AutoCloseable {

  static final String OPERATOR_NAMESPACE = "kollect-system";
  /** How long an operator process may take to get ready, and a mid-burst state to be reached. */
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  /** The pace of a burst: about 10 changes a second, so a kill falls in its middle. */
  private static final long BURST_PACE_MILLIS = 100;

  private final ApiServer server;
  private final Path work;
  private final Path kubeconfig;

  private FleetCluster(ApiServer server, Path work, Path kubeconfig) {
    this.server = server;
    this.work = work;
    this.kubeconfig = kubeconfig;
  }

  /** Starts the API server and prepares it and {@code target/<workName>}. */
  static FleetCluster start(String workName) {
    Path work = SamplePaths.emptyWorkDir(workName);
    ApiServer server = ApiServer.start();
    try {
      FleetCluster fleet = new FleetCluster(server, work,
          server.writeAdminKubeConfig(work.resolve("kubeconfig")));
      Fixtures.ensureNamespace(fleet.admin(), OPERATOR_NAMESPACE);
      Fixtures.installCrdDir(fleet.admin(), SamplePaths.repoRoot().resolve("deploy/crds"));
      fleet.apply("""
          apiVersion: kollect.io/v1alpha1
          kind: KollectProfile
          metadata: {name: configmaps}
          spec:
            resources:
              - version: v1
                kind: ConfigMap
                fields: [{name: v, path: "{.data.v}"}]
          """);
      return fleet;
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  KubernetesClient admin() {
    return server.admin();
  }

  /** Applies the YAML document {@code yaml} as the admin. */
  void apply(String yaml) {
    try {
      Fixtures.apply(admin(), Sample.YAML.readTree(yaml));
    } catch (IOException e) {
      throw new IllegalArgumentException(yaml, e);
    }
  }

  /**
   * In {@code ns}: the KollectSink {@code fleet} whose {@code spec} is the YAML block {@code
   * sinkSpec}, and the KollectTarget {@code cms} that sends the namespace's ConfigMaps to it.
   */
  void sinkAndTarget(String ns, String sinkSpec) {
    apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: fleet, namespace: %s}
        spec:
        %s
        """.formatted(ns, sinkSpec.indent(2)));
    apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: cms, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%1$s]}
          sinkRefs: [fleet]
        """.formatted(ns));
  }

  /** Creates or updates the ConfigMap {@code ns/name} with {@code data.v} = {@code v}. */
  void put(String ns, String name, String v) {
    admin().configMaps().inNamespace(ns).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).endMetadata().withData(Map.of("v", v)).build())
        .createOr(NonDeletingOperation::update);
  }

  /**
   * The arguments of {@code kollect run} on this server as cluster {@code clusterName}, reading
   * and trusting {@code namespaces} (comma-separated; not a tenancy test), checkpointing in
   * {@value #OPERATOR_NAMESPACE} (no leader election: one process per shard), status every second.
   */
  List<String> runArgs(String clusterName, String namespaces) {
    return List.of(
        "--kubeconfig", kubeconfig.toString(),
        "--cluster-name", clusterName,
        "--namespaces", namespaces,
        "--cluster-wide-namespaces", namespaces,
        "--leader-elect-namespace", OPERATOR_NAMESPACE,
        "--status-write-interval", "1s",
        "--log-format", "text");
  }

  /** Starts the packaged operator {@code name} with {@code runArgs}, not waiting for it. */
  OperatorProcess startOperator(String name, List<String> runArgs) {
    return OperatorProcess.start(work, name, runArgs);
  }

  /** Waits until {@code p} answers ready; fails with its stderr if it exits or never does. */
  static void awaitReady(OperatorProcess p) {
    try {
      await().atMost(CONVERGE).pollInterval(Duration.ofMillis(300))
          .failFast("the operator process exited", () -> !p.isAlive())
          // connection refused until the process listens
          .ignoreExceptionsInstanceOf(UncheckedIOException.class)
          .untilAsserted(() -> assertThat(p.getProbe("/readyz").statusCode()).isEqualTo(200));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("operator not ready; its stderr:\n" + p.stderrText(), e);
    }
  }

  /**
   * Sets {@code data.v} of cm-0..cm-(size-1) of {@code ns} to {@code burst-<i>}, in that order,
   * about ten a second, on another thread.
   */
  CompletableFuture<Void> burst(String ns, int size) {
    return CompletableFuture.runAsync(() -> {
      for (int i = 0; i < size; i++) {
        put(ns, "cm-" + i, "burst-" + i);
        pace(BURST_PACE_MILLIS);
      }
    });
  }

  /**
   * Runs a {@link #burst} of {@code size} in {@code ns}, kills {@code operator} with SIGKILL once
   * {@code midway} holds (most of the burst so far delivered: the kill falls mid-stream), and
   * returns when the burst is over, with the time of the kill (epoch ms).
   */
  long killMidBurst(OperatorProcess operator, String ns, int size, Callable<Boolean> midway)
      throws ExecutionException, InterruptedException {
    CompletableFuture<Void> changes = burst(ns, size);
    await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200)).until(midway);
    operator.killHard();
    long killedAt = System.currentTimeMillis();
    changes.get();
    return killedAt;
  }

  private static void pace(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}

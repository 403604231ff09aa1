package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.operator.LineCapture;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.cluster.TestCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kollect run --total-shards-from-statefulset NAME} reads the StatefulSet's
 * {@code spec.replicas} from a real API server; a missing StatefulSet or a shard it cannot have
 * exits 2 with one line naming the flag.
 */
class ShardFlagsIT {

  private static TestCluster cluster;

  @TempDir static Path tmp;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start();
    cluster.namespace("kollect-system");
    cluster.apply("""
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: kollect, namespace: kollect-system}
        spec:
          replicas: 3
          serviceName: kollect-shards
          selector: {matchLabels: {app: kollect}}
          template:
            metadata: {labels: {app: kollect}}
            spec:
              containers:
                - name: kollect
                  image: example.org/kollect:1.0
        """);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private record Result(int exit, String err) {}

  private static Result run(String... extra) {
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    List<String> args = new ArrayList<>(List.of("run", "--kubeconfig",
        cluster.writeKubeconfig(tmp).toString(), "--metrics-bind-address", "0",
        "--health-probe-bind-address", "0", "--cluster-name", "it", "--log-format", "text",
        "--leader-elect-namespace", "kollect-system", "--checkpoint-dir",
        tmp.resolve("checkpoints-" + System.nanoTime()).toString()));
    args.addAll(List.of(extra));
    int exit = KollectCommand.execute(out.printStream(), err.printStream(),
        args.toArray(String[]::new));
    return new Result(exit, err.text());
  }

  @Test
  void theTotalComesFromTheStatefulSetsReplicas() {
    Result r = run("--total-shards-from-statefulset", "kollect", "--shard", "2",
        "--duration", "2s");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("shard 2/3");
  }

  @Test
  void aMissingStatefulSetExitsTwoNamingTheFlag() {
    Result r = run("--total-shards-from-statefulset", "missing", "--shard", "0");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("kollect: --total-shards-from-statefulset: StatefulSet "
        + "'missing' not found in the operator's namespace");
  }

  @Test
  void aShardNotBelowTheReplicasExitsTwoNamingTheFlag() {
    Result r = run("--total-shards-from-statefulset", "kollect", "--shard", "3");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("kollect: --shard: must be below the total shards (3), got 3");
  }
}

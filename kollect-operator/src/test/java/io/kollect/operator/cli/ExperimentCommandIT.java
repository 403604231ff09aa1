package io.kollect.operator.cli;

import static io.kollect.operator.profile.LifecycleFixture.BASELINE;
import static io.kollect.operator.profile.LifecycleFixture.CANDIDATE;
import static io.kollect.operator.profile.LifecycleFixture.revision;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.operator.TestOperator;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.profile.LifecycleFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kollect experiment} against a real API server with an operator running. */
class ExperimentCommandIT {

  private static TestCluster cluster;
  private static LifecycleFixture fx;
  private static TestOperator operator;
  private static Path kubeconfig;
  private static Path candidateFile;

  @TempDir static Path tmp;

  record Run(int code, String out, String err) {}

  private static Run kollect(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = KollectCommand.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), args);
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start();
    fx = new LifecycleFixture(cluster);
    operator = TestOperator.on(cluster).trusting("cli").start();
    kubeconfig = cluster.writeKubeconfig(tmp);
    candidateFile = tmp.resolve("candidate.yaml");
    Files.writeString(candidateFile, """
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: cli}
        spec:
        """ + LifecycleFixture.CANDIDATE_YAML.indent(2));
    fx.setUp("cli", "cli");
    fx.awaitBaseline("cli", "cli");
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (fx != null) {
      fx.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void anExperimentIsStartedInspectedRejectedAndStoppedFromTheCommandLine() {
    String kc = kubeconfig.toString();
    Run start = kollect("experiment", "start", "cli", "--file", candidateFile.toString(),
        "--id", "c1", "--mode", "live", "--timeout", "10m", "--kubeconfig", kc);
    assertThat(start.code()).as(start.err()).isZero();
    assertThat(start.out()).contains("experiment c1 started on cli (live")
        .contains(revision("cli", BASELINE)).contains(revision("cli", CANDIDATE));
    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("cli", CANDIDATE).equals(fx.status("cli").currentRevision()));

    Run status = kollect("experiment", "status", "cli", "--kubeconfig", kc);
    assertThat(status.code()).isZero();
    assertThat(status.out()).contains("currentRevision: " + revision("cli", CANDIDATE))
        .contains("phase: running").contains("mode: live");

    Run again = kollect("experiment", "start", "cli", "--file", candidateFile.toString(),
        "--id", "c2", "--kubeconfig", kc);
    assertThat(again.code()).isEqualTo(2);
    assertThat(again.err().strip()).isEqualTo(
        "kollect: experiment c1 is running (started " + fx.status("cli").experiment().startedAt()
            + "): promote or stop it first");

    Run wrongId = kollect("experiment", "promote", "cli", "--id", "nope", "--kubeconfig", kc);
    assertThat(wrongId.code()).isEqualTo(2);
    assertThat(wrongId.err().strip()).isEqualTo("kollect: cannot promote experiment nope: the "
        + "profile's experiment is c1 (phase running)");

    Run stop = kollect("experiment", "stop", "cli", "--id", "c1", "--kubeconfig", kc);
    assertThat(stop.code()).as(stop.err()).isZero();
    assertThat(stop.out()).contains("rolled back to " + revision("cli", BASELINE));
    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("cli", BASELINE).equals(fx.status("cli").currentRevision()));

    Run wrongPhase = kollect("experiment", "promote", "cli", "--id", "c1", "--kubeconfig", kc);
    assertThat(wrongPhase.code()).isEqualTo(2);
    assertThat(wrongPhase.err()).contains("it is rollback, not running");
  }

  @Test
  void badInputIsOneLineAndExitCode2() throws Exception {
    String kc = kubeconfig.toString();
    Path invalid = tmp.resolve("invalid.yaml");
    Files.writeString(invalid, "resources:\n  - {version: v1, kind: ConfigMap, paht: x}\n");

    Run missingProfile = kollect("experiment", "status", "nope", "--kubeconfig", kc);
    Run invalidCandidate = kollect("experiment", "start", "cli", "--file", invalid.toString(),
        "--id", "x", "--kubeconfig", kc);
    Run badMode = kollect("experiment", "start", "cli", "--file", candidateFile.toString(),
        "--id", "x", "--mode", "canary", "--kubeconfig", kc);
    Run noKubeconfig = kollect("experiment", "status", "cli", "--kubeconfig",
        tmp.resolve("absent").toString());

    for (Run r : new Run[] {missingProfile, invalidCandidate, badMode, noKubeconfig}) {
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err().strip().lines()).hasSize(1);
    }
    assertThat(missingProfile.err()).contains("KollectProfile nope does not exist");
    assertThat(invalidCandidate.err()).contains("--file").contains("paht");
    assertThat(badMode.err()).contains("--mode").contains("canary");
    assertThat(noKubeconfig.err()).contains("--kubeconfig");
  }
}

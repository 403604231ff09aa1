package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kollect run --cluster NAME=KUBECONFIG_FILE}: a bad value is exit 2 and one line. */
class ClusterFlagsTest {

  private static final String KUBECONFIG = """
      apiVersion: v1
      kind: Config
      current-context: c
      contexts: [{name: c, context: {cluster: k, user: u}}]
      clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]
      users: [{name: u, user: {token: t}}]
      """;

  @TempDir Path dir;

  private CliRun run(String... clusterArgs) {
    String[] args = new String[clusterArgs.length + 3];
    args[0] = "run";
    args[1] = "--kubeconfig";
    args[2] = dir.resolve("no-kubeconfig").toString();
    System.arraycopy(clusterArgs, 0, args, 3, clusterArgs.length);
    return CliRun.of(args);
  }

  @Test
  void aValueWithoutNameAndFileIsExit2NamingTheFlag() {
    CliRun r = run("--cluster", "east");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("kollect: --cluster: 'east' is not NAME=KUBECONFIG_FILE\n");
  }

  @Test
  void aMissingFileIsExit2NamingTheFlagAndTheFile() {
    Path missing = dir.resolve("east.yaml");
    CliRun r = run("--cluster", "east=" + missing);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("kollect: --cluster: east: " + missing
        + " does not exist or is not readable\n");
  }

  @Test
  void aNameTwiceOrABadNameOrABrokenKubeconfigIsExit2() throws Exception {
    Path ok = Files.writeString(dir.resolve("ok.yaml"), KUBECONFIG);
    CliRun twice = run("--cluster", "east=" + ok, "--cluster", "east=" + ok);
    assertThat(twice.exitCode()).isEqualTo(2);
    assertThat(twice.err()).isEqualTo("kollect: --cluster: east is given twice\n");

    CliRun slash = run("--cluster", "a/b=" + ok);
    assertThat(slash.exitCode()).isEqualTo(2);
    assertThat(slash.err()).startsWith("kollect: --cluster: 'a/b' is not a cluster name");

    Path broken = Files.writeString(dir.resolve("broken.yaml"),
        KUBECONFIG.replace("current-context: c", "current-context: nope"));
    CliRun bad = run("--cluster", "east=" + broken);
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).isEqualTo("kollect: --cluster: east: " + broken
        + ": current-context: context \"nope\" is not defined\n");
  }

  @Test
  void theOperatorsOwnClusterNameIsReserved() throws Exception {
    Path ok = Files.writeString(dir.resolve("ok.yaml"), KUBECONFIG);
    CliRun r = run("--cluster", "default=" + ok);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--cluster: 'default' is the operator's own cluster");
  }
}

package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guards' flags are checked before anything runs, in one line, exit 2. */
class GuardFlagsTest {

  @TempDir Path dir;

  private CliRun run(String... flags) throws Exception {
    String[] args = new String[flags.length + 3];
    args[0] = "run";
    args[1] = "--kubeconfig";
    args[2] = dir.resolve("no-kubeconfig").toString();
    System.arraycopy(flags, 0, args, 3, flags.length);
    return CliRun.of(args);
  }

  @Test
  void aWarningThresholdBelowOneIsRefusedNamingTheFlag() throws Exception {
    CliRun r = run("--warn-objects-per-target", "0");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("kollect: --warn-objects-per-target must be at least 1, got 0\n");
  }

  @Test
  void aNegativeFailureCountIsRefusedNamingTheFlag() throws Exception {
    CliRun r = run("--circuit-breaker-failures", "-1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--circuit-breaker-failures must be zero (off) or positive");
  }

  @Test
  void aZeroCooldownCapIsRefusedNamingTheFlag() throws Exception {
    CliRun r = run("--circuit-breaker-max-cooldown", "0s");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--circuit-breaker-max-cooldown: must be a positive duration");
  }
}

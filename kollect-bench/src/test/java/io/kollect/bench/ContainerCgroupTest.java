package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerCgroupTest {

  @Test
  void aCpuLimitBecomesAQuotaPerPeriod() {
    assertThat(ContainerCgroup.quotaMicros(1.0)).isEqualTo(100_000);
    assertThat(ContainerCgroup.quotaMicros(0.25)).isEqualTo(25_000);
    assertThat(ContainerCgroup.quotaMicros(1.5)).isEqualTo(150_000);
  }

  @Test
  void theGroupCarriesTheLimitsAndTheCommandJoinsItBeforeItRuns(@TempDir Path root) throws Exception {
    // a directory tree in place of /sys/fs/cgroup: the files the kernel makes and reads are plain files
    for (String hierarchy : List.of("cpu", "memory")) {
      Files.createDirectories(root.resolve(hierarchy).resolve("run-1"));
      Files.createFile(root.resolve(hierarchy).resolve("run-1").resolve("cgroup.procs"));
    }
    ContainerCgroup group = ContainerCgroup.create(root, "run-1",
        new DeployJvmOptions.Limits(1.0, 536_870_912L));
    assertThat(Files.readString(root.resolve("cpu/run-1/cpu.cfs_quota_us"))).isEqualTo("100000");
    assertThat(Files.readString(root.resolve("cpu/run-1/cpu.cfs_period_us"))).isEqualTo("100000");
    assertThat(Files.readString(root.resolve("memory/run-1/memory.limit_in_bytes"))).isEqualTo("536870912");

    // the wrapped command is the same process (exec), so the pid it prints is the one that joined
    Process p = new ProcessBuilder(group.wrap(List.of("/bin/sh", "-c", "echo $$"))).start();
    String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor()).isZero();
    assertThat(printed).isEqualTo(Long.toString(p.pid()));
    assertThat(Files.readString(root.resolve("cpu/run-1/cgroup.procs")).trim()).isEqualTo(printed);
    assertThat(Files.readString(root.resolve("memory/run-1/cgroup.procs")).trim()).isEqualTo(printed);
  }

  @Test
  void aDirectoryThatIsNoControlGroupIsRefusedByName(@TempDir Path root) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ContainerCgroup.create(root, "run-1",
            new DeployJvmOptions.Limits(1.0, null)))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("is not a control group");
  }
}

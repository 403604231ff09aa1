package io.kollect.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * How the runner starts the packaged operator: the JVM options of the shipped Deployment plus its
 * container limits as JVM options ({@code -XX:MaxRAM=512m -XX:ActiveProcessorCount=1}, since there
 * is no container runtime here; see {@link DeployJvmOptions#containerLimits}), or a default JVM for
 * comparison; {@code kollect run} against the runner's API server, trusting the control
 * namespace, records also on stdout, a fresh file checkpoint per run, no HTTP listeners. With
 * {@code enforced} limits, each run is also held to them by a control group of its own
 * ({@link ContainerCgroup}).
 */
record OperatorLauncher(Path jar, List<String> jvmOptions, Path workDir, List<String> extraRunArgs,
    DeployJvmOptions.Limits enforced) {

  enum Jvm { shipped, defaults }

  /** How {@link #of} builds a launcher: the JVM, extra options and arguments, limits enforced or not. */
  record Settings(Jvm jvm, List<String> extraJvm, List<String> extraRunArgs, boolean enforceLimits) {}

  static OperatorLauncher of(Path repo, Path jar, Path workDir, Settings settings) throws IOException {
    List<String> options = new ArrayList<>();
    Path deployment = repo.resolve("deploy/manager/deployment.yaml");
    if (settings.jvm() == Jvm.shipped) {
      options.addAll(DeployJvmOptions.read(deployment));
      options.addAll(DeployJvmOptions.containerLimits(deployment));
    }
    options.addAll(settings.extraJvm());
    return new OperatorLauncher(jar, List.copyOf(options), workDir, List.copyOf(settings.extraRunArgs()),
        settings.enforceLimits() ? DeployJvmOptions.limits(deployment) : null);
  }

  /** Where a run's stderr, checkpoint and recordings go. */
  Path runDir(String runName) {
    return workDir.resolve(runName);
  }

  OperatorChild start(String runName, Path kubeconfig, BiConsumer<String, Long> onStdoutLine) throws IOException {
    return start(runName, kubeconfig, onStdoutLine, List.of());
  }

  /** Starts a run with {@code runJvmOptions} added (e.g. a flight recording into the run's directory). */
  OperatorChild start(String runName, Path kubeconfig, BiConsumer<String, Long> onStdoutLine,
      List<String> runJvmOptions) throws IOException {
    return start(runName, kubeconfig, onStdoutLine, runJvmOptions, List.of());
  }

  /** Starts a run with {@code runArgs} added to {@code kollect run} (e.g. one shard's flags). */
  OperatorChild start(String runName, Path kubeconfig, BiConsumer<String, Long> onStdoutLine,
      List<String> runJvmOptions, List<String> runArgs) throws IOException {
    Path dir = runDir(runName);
    Files.createDirectories(dir);
    Path checkpoints = Files.createTempDirectory(dir, "checkpoint");
    List<String> args = new ArrayList<>(List.of(
        "--kubeconfig", kubeconfig.toString(),
        "--cluster-wide-namespaces", Fixture.CONTROL_NAMESPACE,
        "--stdout",
        "--checkpoint-dir", checkpoints.toString(),
        "--metrics-bind-address", "0",
        "--health-probe-bind-address", "0",
        "--log-format", "text"));
    args.addAll(extraRunArgs);
    args.addAll(runArgs);
    List<String> jvm = new ArrayList<>(jvmOptions);
    jvm.addAll(runJvmOptions);
    ContainerCgroup cgroup = enforced == null ? null
        : ContainerCgroup.create("kollect-bench-" + ProcessHandle.current().pid() + "-" + runName, enforced);
    try {
      return OperatorChild.start(jar, jvm, args, dir.resolve("operator.err"), onStdoutLine, cgroup);
    } catch (IOException e) {
      if (cgroup != null) {
        cgroup.close();
      }
      throw e;
    }
  }
}

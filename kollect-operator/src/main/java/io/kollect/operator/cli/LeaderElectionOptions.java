package io.kollect.operator.cli;

import io.kollect.operator.leader.LeaderElectionSettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The leader election flags of {@code kollect run}: they make its {@link LeaderElectionSettings}. */
final class LeaderElectionOptions {

  @Option(names = "--leader-elect", arity = "0..1", paramLabel = "BOOL", defaultValue = "false",
      fallbackValue = "true",
      description = "Elect a leader on a Lease; only the leader exports and writes status (default: ${DEFAULT-VALUE}).")
  boolean leaderElect;

  @Option(names = "--leader-elect-lease-duration", paramLabel = "DURATION", defaultValue = "15s",
      converter = Converters.GoDuration.class,
      description = "How long standbys wait after the last renewal before taking over (default: ${DEFAULT-VALUE}).")
  Duration leaseDuration;

  @Option(names = "--leader-elect-renew-deadline", paramLabel = "DURATION", defaultValue = "10s",
      converter = Converters.GoDuration.class,
      description = "How long the leader tries to renew before giving up (default: ${DEFAULT-VALUE}).")
  Duration renewDeadline;

  @Option(names = "--leader-elect-retry-period", paramLabel = "DURATION", defaultValue = "2s",
      converter = Converters.GoDuration.class,
      description = "Wait between acquire/renew attempts (default: ${DEFAULT-VALUE}).")
  Duration retryPeriod;

  @Option(names = "--leader-elect-namespace", paramLabel = "NAMESPACE",
      description = "Namespace of the Lease and of the checkpoint ConfigMaps "
          + "(default: the pod's namespace in a cluster, else the kubeconfig's namespace).")
  String leaderElectNamespace;

  @Option(names = "--leader-elect-id", paramLabel = "NAME", defaultValue = "kollect-leader",
      description = "Name of the Lease (default: ${DEFAULT-VALUE}).")
  String leaderElectId;

  /** Whether {@code --leader-elect} is on. */
  boolean enabled() {
    return leaderElect;
  }

  /** The Lease's namespace, when {@code --leader-elect-namespace} names one. */
  String namespace() {
    return leaderElectNamespace;
  }

  /**
   * The settings, the Lease in {@code namespace} held as {@code identity}.
   *
   * @throws IllegalArgumentException one line naming the flag
   */
  LeaderElectionSettings settings(String namespace, String identity) {
    return leaderElect
        ? new LeaderElectionSettings(true, namespace, leaderElectId, identity, leaseDuration,
            renewDeadline, retryPeriod)
        : LeaderElectionSettings.disabled();
  }
}

package io.kollect.operator.cli;

import io.kollect.operator.WatchSettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The informer flags of {@code kollect run}: they make its {@link WatchSettings}. */
final class WatchOptions {

  @Option(names = "--resync-period", paramLabel = "DURATION", defaultValue = "10h",
      converter = Converters.GoDuration.class,
      description = "Informer resync, a correctness backstop only; 0s turns it off (default: ${DEFAULT-VALUE}).")
  Duration resyncPeriod;

  @Option(names = "--list-page-size", paramLabel = "N", defaultValue = "500",
      description = "Objects per page when an informer lists a type; a list is never held whole "
          + "(default: ${DEFAULT-VALUE}).")
  int listPageSize;

  @Option(names = "--informer-cluster-wide-threshold", paramLabel = "N", defaultValue = "8",
      description = "Past this many namespaces read of one type, one cluster-wide informer serves "
          + "it instead of one per namespace, when the operator may list it cluster-wide "
          + "(default: ${DEFAULT-VALUE}).")
  int clusterWideThreshold;

  @Option(names = "--watch-liveness", paramLabel = "DURATION", defaultValue = "60s",
      converter = Converters.GoDuration.class,
      description = "A watch or request silent for longer is replaced; bounds how long a dead "
          + "connection goes unnoticed (default: ${DEFAULT-VALUE}).")
  Duration watchLiveness;

  /** The settings; a value out of range is bad input (exit 2). */
  WatchSettings settings() {
    try {
      return new WatchSettings(resyncPeriod, watchLiveness, listPageSize, clusterWideThreshold);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }
}

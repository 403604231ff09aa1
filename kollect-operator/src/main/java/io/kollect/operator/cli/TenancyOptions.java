package io.kollect.operator.cli;

import io.kollect.operator.TenancySettings;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * The tenant boundary flags of {@code kollect run}, whom a target reads as and who is trusted: they
 * make its {@link TenancySettings}.
 */
final class TenancyOptions {

  @Option(names = "--default-service-account", paramLabel = "NAME", defaultValue = "default",
      description = "ServiceAccount (in the target's namespace) a KollectTarget reads as when it "
          + "sets no spec.serviceAccountName (default: ${DEFAULT-VALUE}).")
  String defaultServiceAccount;

  @Option(names = "--cluster-wide-namespaces", paramLabel = "NS", split = ",",
      description = "Targets in these namespaces are trusted: not checked against their "
          + "ServiceAccount (default: the operator's own namespace).")
  List<String> clusterWideNamespaces = List.of();

  /** The settings; a name that is not one is bad input (exit 2). */
  TenancySettings settings() {
    try {
      return new TenancySettings(defaultServiceAccount, Set.copyOf(clusterWideNamespaces));
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }
}

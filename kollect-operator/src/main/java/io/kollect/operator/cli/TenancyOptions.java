package io.kollect.operator.cli;

import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;

/** The tenant boundary flags of {@code kollect run}: whom a target reads as, and who is trusted. */
final class TenancyOptions {

  @Option(names = "--default-service-account", paramLabel = "NAME", defaultValue = "default",
      description = "ServiceAccount (in the target's namespace) a KollectTarget reads as when it "
          + "sets no spec.serviceAccountName (default: ${DEFAULT-VALUE}).")
  String defaultServiceAccount;

  @Option(names = "--cluster-wide-namespaces", paramLabel = "NS", split = ",",
      description = "Targets in these namespaces are trusted: not checked against their "
          + "ServiceAccount (default: the operator's own namespace).")
  List<String> clusterWideNamespaces = List.of();

  String defaultServiceAccount() {
    return defaultServiceAccount;
  }

  Set<String> clusterWideNamespaces() {
    return Set.copyOf(clusterWideNamespaces);
  }
}

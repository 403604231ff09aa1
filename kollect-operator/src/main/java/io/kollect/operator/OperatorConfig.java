package io.kollect.operator;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * How a {@link KollectOperator} runs; the {@code kollect run} flags map onto these one to one
 * (see {@code docs/operations.md}).
 *
 * @param clusterName the {@code cluster} of every record
 * @param workers reconcile worker threads
 * @param resyncPeriod informer resync period (a correctness backstop, not a freshness knob)
 * @param metricsAddress where {@code /metrics} and {@code /inventory} are served
 * @param probeAddress where {@code /healthz} and {@code /readyz} are served
 * @param leaderElection leader election
 * @param includeNamespaces only these namespaces (all when empty)
 * @param excludeNamespaces never these namespaces
 * @param inventoryAuth who may read {@code /inventory}
 * @param checkpointDir export checkpoints in files here; empty: in ConfigMaps in {@code
 *     operatorNamespace}
 * @param operatorNamespace the namespace the operator keeps its own state in (checkpoints)
 * @param stdoutRecords when present, every target's records also go here as JSON lines
 */
public record OperatorConfig(
    String clusterName,
    int workers,
    Duration resyncPeriod,
    BindAddress metricsAddress,
    BindAddress probeAddress,
    LeaderElectionSettings leaderElection,
    Set<String> includeNamespaces,
    Set<String> excludeNamespaces,
    InventoryAuth inventoryAuth,
    Optional<Path> checkpointDir,
    String operatorNamespace,
    Optional<PrintStream> stdoutRecords) {

  public OperatorConfig {
    Objects.requireNonNull(clusterName, "clusterName");
    if (workers < 1) {
      throw new IllegalArgumentException("--workers must be at least 1");
    }
    includeNamespaces = Set.copyOf(includeNamespaces);
    excludeNamespaces = Set.copyOf(excludeNamespaces);
    Objects.requireNonNull(inventoryAuth, "inventoryAuth");
    Objects.requireNonNull(operatorNamespace, "operatorNamespace");
  }

  /** Whether objects (and Kollect resources) in a namespace are handled at all. */
  public Predicate<String> namespaceFilter() {
    Set<String> include = includeNamespaces;
    Set<String> exclude = excludeNamespaces;
    return ns -> ns == null
        || (!exclude.contains(ns) && (include.isEmpty() || include.contains(ns)));
  }
}

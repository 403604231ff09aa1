package io.kollect.operator;

import io.kollect.core.Shard;
import io.kollect.informers.InformerOptions;
import io.kollect.operator.cluster.ClusterSettings;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.leader.LeaderElectionSettings;
import io.kollect.operator.shard.ShardNames;
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
 * @param statusWriteInterval a target's status is written at most once per this interval
 *     (changes in between are coalesced into the next write); {@code --status-write-interval}
 * @param watchLiveness the liveness bound of every watch and request ({@code --watch-liveness})
 * @param defaultServiceAccount the ServiceAccount a target reads as when it names none ({@code
 *     --default-service-account})
 * @param clusterWideNamespaces namespaces whose targets are trusted and not checked against their
 *     ServiceAccount; empty means {@code operatorNamespace} ({@code --cluster-wide-namespaces})
 * @param digestKey where the key of Secret value digests comes from ({@code --digest-key-secret}
 *     or {@code --digest-key-file}); {@link DigestKeySource#none()} for names and lengths only
 * @param listPageSize objects per page of an informer's list ({@code --list-page-size}): a list is
 *     never held whole in memory
 * @param clusterWideThreshold past this many namespaces (the union over the targets reading a
 *     type), one cluster-wide informer serves the type instead of one per namespace, when the
 *     operator may list it cluster-wide ({@code --informer-cluster-wide-threshold})
 * @param guards the circuit breaker and the cardinality warning ({@code
 *     --circuit-breaker-failures}, {@code --circuit-breaker-max-cooldown}, {@code
 *     --warn-objects-per-target})
 * @param clusters other clusters: {@code --cluster}, {@code --cluster-secret-namespaces} and the
 *     kubeconfig policy flags
 * @param shard this replica's part of the objects ({@code --total-shards}, {@code --shard} or
 *     {@code --shard-from-pod-name}); {@link Shard#NONE} when the work is not split. When split,
 *     the Lease, the checkpoint ConfigMaps and the KollectInventory objects carry the shard
 *     index ({@link ShardNames})
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
    Optional<PrintStream> stdoutRecords,
    Duration statusWriteInterval,
    Duration watchLiveness,
    String defaultServiceAccount,
    Set<String> clusterWideNamespaces,
    DigestKeySource digestKey,
    int listPageSize,
    int clusterWideThreshold,
    GuardSettings guards,
    ClusterSettings clusters,
    Shard shard) {

  /** Informers list in pages of 500 objects (as client-go's pager). */
  public static final int DEFAULT_LIST_PAGE_SIZE = 500;

  /** Status writes per target at most every 10 s. */
  public static final Duration DEFAULT_STATUS_WRITE_INTERVAL = Duration.ofSeconds(10);
  /** A dead watch is noticed within 60 s. */
  public static final Duration DEFAULT_WATCH_LIVENESS = Duration.ofSeconds(60);
  /** As Flux: a target without {@code serviceAccountName} reads as {@code default}. */
  public static final String DEFAULT_SERVICE_ACCOUNT = "default";

  /** The settings before issue 12, with the defaults of every later one. */
  public OperatorConfig(String clusterName, int workers, Duration resyncPeriod,
      BindAddress metricsAddress, BindAddress probeAddress, LeaderElectionSettings leaderElection,
      Set<String> includeNamespaces, Set<String> excludeNamespaces, InventoryAuth inventoryAuth,
      Optional<Path> checkpointDir, String operatorNamespace, Optional<PrintStream> stdoutRecords) {
    this(clusterName, workers, resyncPeriod, metricsAddress, probeAddress, leaderElection,
        includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir, operatorNamespace,
        stdoutRecords, DEFAULT_STATUS_WRITE_INTERVAL, DEFAULT_WATCH_LIVENESS,
        DEFAULT_SERVICE_ACCOUNT, Set.of(), DigestKeySource.none(), DEFAULT_LIST_PAGE_SIZE,
        InformerOptions.DEFAULT_CLUSTER_WIDE_THRESHOLD, GuardSettings.defaults(),
        ClusterSettings.defaults());
  }

  /** The settings of issue 13: the default guards, no other clusters. */
  public OperatorConfig(String clusterName, int workers, Duration resyncPeriod,
      BindAddress metricsAddress, BindAddress probeAddress, LeaderElectionSettings leaderElection,
      Set<String> includeNamespaces, Set<String> excludeNamespaces, InventoryAuth inventoryAuth,
      Optional<Path> checkpointDir, String operatorNamespace, Optional<PrintStream> stdoutRecords,
      Duration statusWriteInterval, Duration watchLiveness, String defaultServiceAccount,
      Set<String> clusterWideNamespaces, DigestKeySource digestKey, int listPageSize,
      int clusterWideThreshold) {
    this(clusterName, workers, resyncPeriod, metricsAddress, probeAddress, leaderElection,
        includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir, operatorNamespace,
        stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold,
        GuardSettings.defaults(), ClusterSettings.defaults());
  }

  /** The settings of issue 12, with the default list page size. */
  public OperatorConfig(String clusterName, int workers, Duration resyncPeriod,
      BindAddress metricsAddress, BindAddress probeAddress, LeaderElectionSettings leaderElection,
      Set<String> includeNamespaces, Set<String> excludeNamespaces, InventoryAuth inventoryAuth,
      Optional<Path> checkpointDir, String operatorNamespace, Optional<PrintStream> stdoutRecords,
      Duration statusWriteInterval, Duration watchLiveness, String defaultServiceAccount,
      Set<String> clusterWideNamespaces, DigestKeySource digestKey) {
    this(clusterName, workers, resyncPeriod, metricsAddress, probeAddress, leaderElection,
        includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir, operatorNamespace,
        stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, DEFAULT_LIST_PAGE_SIZE,
        InformerOptions.DEFAULT_CLUSTER_WIDE_THRESHOLD, GuardSettings.defaults(),
        ClusterSettings.defaults());
  }

  /** The settings of issue 14: one shard (the whole). */
  public OperatorConfig(String clusterName, int workers, Duration resyncPeriod,
      BindAddress metricsAddress, BindAddress probeAddress, LeaderElectionSettings leaderElection,
      Set<String> includeNamespaces, Set<String> excludeNamespaces, InventoryAuth inventoryAuth,
      Optional<Path> checkpointDir, String operatorNamespace, Optional<PrintStream> stdoutRecords,
      Duration statusWriteInterval, Duration watchLiveness, String defaultServiceAccount,
      Set<String> clusterWideNamespaces, DigestKeySource digestKey, int listPageSize,
      int clusterWideThreshold, GuardSettings guards, ClusterSettings clusters) {
    this(clusterName, workers, resyncPeriod, metricsAddress, probeAddress, leaderElection,
        includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir, operatorNamespace,
        stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, guards, clusters,
        Shard.NONE);
  }

  public OperatorConfig {
    Objects.requireNonNull(clusterName, "clusterName");
    if (workers < 1) {
      throw new IllegalArgumentException("--workers must be at least 1");
    }
    includeNamespaces = Set.copyOf(includeNamespaces);
    excludeNamespaces = Set.copyOf(excludeNamespaces);
    Objects.requireNonNull(inventoryAuth, "inventoryAuth");
    Objects.requireNonNull(operatorNamespace, "operatorNamespace");
    requirePositive(statusWriteInterval, "--status-write-interval");
    requirePositive(watchLiveness, "--watch-liveness");
    if (defaultServiceAccount == null || !DNS_SUBDOMAIN.matcher(defaultServiceAccount).matches()) {
      throw new IllegalArgumentException("--default-service-account: '" + defaultServiceAccount
          + "' is not a ServiceAccount name (lower-case letters, digits, '-' and '.')");
    }
    clusterWideNamespaces = Set.copyOf(clusterWideNamespaces);
    for (String ns : clusterWideNamespaces) {
      if (!DNS_LABEL.matcher(ns).matches()) {
        throw new IllegalArgumentException("--cluster-wide-namespaces: '" + ns
            + "' is not a namespace name (lower-case letters, digits and '-')");
      }
    }
    Objects.requireNonNull(digestKey, "digestKey");
    if (listPageSize < 1) {
      throw new IllegalArgumentException("--list-page-size must be at least 1, got " + listPageSize);
    }
    if (clusterWideThreshold < 0) {
      throw new IllegalArgumentException("--informer-cluster-wide-threshold must be zero or "
          + "positive, got " + clusterWideThreshold);
    }
    Objects.requireNonNull(guards, "guards");
    clusters = clusters == null ? ClusterSettings.defaults() : clusters;
    shard = shard == null ? Shard.NONE : shard;
    if (clusters.files().containsKey(clusterName)) {
      throw new IllegalArgumentException("--cluster: '" + clusterName + "' is the operator's own "
          + "cluster (--cluster-name); choose another name");
    }
  }

  private static final java.util.regex.Pattern DNS_LABEL =
      java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final java.util.regex.Pattern DNS_SUBDOMAIN =
      java.util.regex.Pattern.compile("(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private static void requirePositive(Duration d, String flag) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(flag + ": must be a positive duration, got " + d);
    }
  }

  /** This configuration with another status write interval (tests shorten it). */
  public OperatorConfig withStatusWriteInterval(Duration interval) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, interval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, guards,
        clusters, shard);
  }

  /** This configuration with another watch liveness window. */
  public OperatorConfig withWatchLiveness(Duration window) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, window, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, guards,
        clusters, shard);
  }

  /** This configuration with the tenancy settings of issue 12 item 5. */
  public OperatorConfig withTenancy(String serviceAccount, Set<String> trustedNamespaces) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness, serviceAccount,
        trustedNamespaces, digestKey, listPageSize, clusterWideThreshold, guards,
        clusters, shard);
  }

  /** This configuration with a digest key source. */
  public OperatorConfig withDigestKey(DigestKeySource source) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness,
        defaultServiceAccount, clusterWideNamespaces, source, listPageSize, clusterWideThreshold,
        guards, clusters, shard);
  }

  /** This configuration listing in pages of {@code size} objects ({@code --list-page-size}). */
  public OperatorConfig withListPageSize(int size) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, size, clusterWideThreshold, guards,
        clusters, shard);
  }

  /** This configuration with another {@code --informer-cluster-wide-threshold}. */
  public OperatorConfig withClusterWideThreshold(int namespaces) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, namespaces, guards,
        clusters, shard);
  }

  /** This configuration printing records to {@code out} ({@code --stdout}), or not. */
  public OperatorConfig withStdout(Optional<PrintStream> out) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, out, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, guards,
        clusters, shard);
  }

  /** This configuration keeping checkpoints in files under {@code dir} ({@code --checkpoint-dir}). */
  public OperatorConfig withCheckpointDir(Optional<Path> dir) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, dir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, guards,
        clusters, shard);
  }

  /** This configuration with other guard settings (issue "Safe change"). */
  public OperatorConfig withGuards(GuardSettings settings) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, settings, clusters,
        shard);
  }

  /** This configuration with other clusters' settings ({@code --cluster} and friends). */
  public OperatorConfig withClusters(ClusterSettings settings) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, guards, settings,
        shard);
  }

  /**
   * This configuration as shard {@code shard} ({@code --total-shards}/{@code --shard}): the engine
   * keeps only that shard's objects, and the Lease, checkpoints and inventory objects are the
   * shard's own.
   */
  public OperatorConfig withShard(Shard shard) {
    return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
        leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
        operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness, defaultServiceAccount,
        clusterWideNamespaces, digestKey, listPageSize, clusterWideThreshold, guards, clusters,
        shard);
  }

  /**
   * The namespaces whose targets are not checked against their ServiceAccount: {@code
   * --cluster-wide-namespaces}, or the operator's own namespace when none are given.
   */
  public Set<String> trustedNamespaces() {
    return clusterWideNamespaces.isEmpty() ? Set.of(operatorNamespace) : clusterWideNamespaces;
  }

  /** Whether objects (and Kollect resources) in a namespace are handled at all. */
  public Predicate<String> namespaceFilter() {
    Set<String> include = includeNamespaces;
    Set<String> exclude = excludeNamespaces;
    return ns -> ns == null
        || (!exclude.contains(ns) && (include.isEmpty() || include.contains(ns)));
  }
}

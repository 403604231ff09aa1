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

  /** A builder with every setting at its default; {@code clusterName} has none and must be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's settings, to change some. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.clusterName = clusterName;
    b.workers = workers;
    b.resyncPeriod = resyncPeriod;
    b.metricsAddress = metricsAddress;
    b.probeAddress = probeAddress;
    b.leaderElection = leaderElection;
    b.includeNamespaces = includeNamespaces;
    b.excludeNamespaces = excludeNamespaces;
    b.inventoryAuth = inventoryAuth;
    b.checkpointDir = checkpointDir;
    b.operatorNamespace = operatorNamespace;
    b.stdoutRecords = stdoutRecords;
    b.statusWriteInterval = statusWriteInterval;
    b.watchLiveness = watchLiveness;
    b.defaultServiceAccount = defaultServiceAccount;
    b.clusterWideNamespaces = clusterWideNamespaces;
    b.digestKey = digestKey;
    b.listPageSize = listPageSize;
    b.clusterWideThreshold = clusterWideThreshold;
    b.guards = guards;
    b.clusters = clusters;
    b.shard = shard;
    return b;
  }

  /**
   * Builds an {@link OperatorConfig} one setting at a time; the per-feature settings ({@link
   * LeaderElectionSettings}, {@link GuardSettings}, {@link ClusterSettings}, {@link Shard}, {@link
   * DigestKeySource}) come validated from where they were built, and {@link #build()} checks the
   * rest once.
   */
  public static final class Builder {
    private String clusterName;
    private int workers = 1;
    private Duration resyncPeriod = Duration.ofHours(10);
    private BindAddress metricsAddress = BindAddress.off();
    private BindAddress probeAddress = BindAddress.off();
    private LeaderElectionSettings leaderElection = LeaderElectionSettings.disabled();
    private Set<String> includeNamespaces = Set.of();
    private Set<String> excludeNamespaces = Set.of();
    private InventoryAuth inventoryAuth = InventoryAuth.none();
    private Optional<Path> checkpointDir = Optional.empty();
    private String operatorNamespace = "default";
    private Optional<PrintStream> stdoutRecords = Optional.empty();
    private Duration statusWriteInterval = DEFAULT_STATUS_WRITE_INTERVAL;
    private Duration watchLiveness = DEFAULT_WATCH_LIVENESS;
    private String defaultServiceAccount = DEFAULT_SERVICE_ACCOUNT;
    private Set<String> clusterWideNamespaces = Set.of();
    private DigestKeySource digestKey = DigestKeySource.none();
    private int listPageSize = DEFAULT_LIST_PAGE_SIZE;
    private int clusterWideThreshold = InformerOptions.DEFAULT_CLUSTER_WIDE_THRESHOLD;
    private GuardSettings guards = GuardSettings.defaults();
    private ClusterSettings clusters = ClusterSettings.defaults();
    private Shard shard = Shard.NONE;

    private Builder() {
    }

    /** The {@code cluster} of every record ({@code --cluster-name}). */
    public Builder clusterName(String clusterName) {
      this.clusterName = clusterName;
      return this;
    }

    /** Reconcile worker threads ({@code --workers}). */
    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    /** The informer resync period ({@code --resync-period}). */
    public Builder resyncPeriod(Duration resyncPeriod) {
      this.resyncPeriod = resyncPeriod;
      return this;
    }

    /** Where {@code /metrics} and {@code /inventory} are served; off by default. */
    public Builder metricsAddress(BindAddress metricsAddress) {
      this.metricsAddress = metricsAddress;
      return this;
    }

    /** Where {@code /healthz} and {@code /readyz} are served; off by default. */
    public Builder probeAddress(BindAddress probeAddress) {
      this.probeAddress = probeAddress;
      return this;
    }

    /** Leader election; disabled by default. */
    public Builder leaderElection(LeaderElectionSettings leaderElection) {
      this.leaderElection = leaderElection;
      return this;
    }

    /** Only these namespaces (all when empty). */
    public Builder includeNamespaces(Set<String> includeNamespaces) {
      this.includeNamespaces = includeNamespaces;
      return this;
    }

    /** Never these namespaces. */
    public Builder excludeNamespaces(Set<String> excludeNamespaces) {
      this.excludeNamespaces = excludeNamespaces;
      return this;
    }

    /** Who may read {@code /inventory}; nobody by default. */
    public Builder inventoryAuth(InventoryAuth inventoryAuth) {
      this.inventoryAuth = inventoryAuth;
      return this;
    }

    /** Checkpoints in files here; empty (the default): in ConfigMaps. */
    public Builder checkpointDir(Optional<Path> checkpointDir) {
      this.checkpointDir = checkpointDir;
      return this;
    }

    /** The namespace of the operator's own state. */
    public Builder operatorNamespace(String operatorNamespace) {
      this.operatorNamespace = operatorNamespace;
      return this;
    }

    /** Every record also here as a JSON line ({@code --stdout}). */
    public Builder stdoutRecords(Optional<PrintStream> stdoutRecords) {
      this.stdoutRecords = stdoutRecords;
      return this;
    }

    /** A target's status at most once per this interval (tests shorten it). */
    public Builder statusWriteInterval(Duration statusWriteInterval) {
      this.statusWriteInterval = statusWriteInterval;
      return this;
    }

    /** The liveness bound of every watch and request. */
    public Builder watchLiveness(Duration watchLiveness) {
      this.watchLiveness = watchLiveness;
      return this;
    }

    /** The ServiceAccount of a target that names none. */
    public Builder defaultServiceAccount(String defaultServiceAccount) {
      this.defaultServiceAccount = defaultServiceAccount;
      return this;
    }

    /** Namespaces whose targets are trusted. */
    public Builder clusterWideNamespaces(Set<String> clusterWideNamespaces) {
      this.clusterWideNamespaces = clusterWideNamespaces;
      return this;
    }

    /** Where the Secret digest key comes from. */
    public Builder digestKey(DigestKeySource digestKey) {
      this.digestKey = digestKey;
      return this;
    }

    /** Objects per page of an informer's list. */
    public Builder listPageSize(int listPageSize) {
      this.listPageSize = listPageSize;
      return this;
    }

    /** Namespaces past which one cluster-wide informer serves a type. */
    public Builder clusterWideThreshold(int clusterWideThreshold) {
      this.clusterWideThreshold = clusterWideThreshold;
      return this;
    }

    /** The circuit breaker and the cardinality warning. */
    public Builder guards(GuardSettings guards) {
      this.guards = guards;
      return this;
    }

    /** Other clusters. */
    public Builder clusters(ClusterSettings clusters) {
      this.clusters = clusters;
      return this;
    }

    /** This replica's shard. */
    public Builder shard(Shard shard) {
      this.shard = shard;
      return this;
    }

    /**
     * The tenant boundary ({@code --default-service-account}, {@code --cluster-wide-namespaces}).
     */
    public Builder tenancy(String defaultServiceAccount, Set<String> clusterWideNamespaces) {
      return defaultServiceAccount(defaultServiceAccount)
          .clusterWideNamespaces(clusterWideNamespaces);
    }

    /**
     * The configuration.
     *
     * @throws IllegalArgumentException naming the flag of a setting that is out of range
     */
    public OperatorConfig build() {
      return new OperatorConfig(clusterName, workers, resyncPeriod, metricsAddress, probeAddress,
          leaderElection, includeNamespaces, excludeNamespaces, inventoryAuth, checkpointDir,
          operatorNamespace, stdoutRecords, statusWriteInterval, watchLiveness,
          defaultServiceAccount, clusterWideNamespaces, digestKey, listPageSize,
          clusterWideThreshold, guards, clusters, shard);
    }
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

package io.kollect.operator;

import io.kollect.core.Shard;
import io.kollect.operator.cluster.ClusterSettings;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.HttpSettings;
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
 * How a {@link KollectOperator} runs: one settings record per feature, each validated where it is
 * built; the {@code kollect run} flags of one feature make its record (see {@code
 * docs/operations.md}). Nothing here checks a setting again.
 *
 * @param clusters the own cluster's name and the other clusters ({@code --cluster-name}, {@code
 *     --cluster}, {@code --cluster-secret-namespaces} and the kubeconfig policy flags)
 * @param operatorNamespace the namespace the operator keeps its own state in (the Lease, the
 *     checkpoint ConfigMaps); trusted when {@code tenancy} names no namespace
 * @param reconcile workers and the status write interval
 * @param watch how the informers watch (resync, liveness, list pages, cluster-wide informers)
 * @param namespaces which namespaces are read at all
 * @param tenancy whom a target reads as, and whose targets are trusted
 * @param http the metrics, probe and {@code /inventory} listeners
 * @param export where checkpoints are kept and whether records also go to standard output
 * @param leaderElection leader election
 * @param guards the circuit breaker and the cardinality warning
 * @param digestKey where the key of Secret value digests comes from; {@link
 *     DigestKeySource#none()} for names and lengths only
 * @param shard this replica's part of the objects; {@link Shard#NONE} when the work is not split.
 *     When split, the Lease, the checkpoint ConfigMaps and the KollectInventory objects carry the
 *     shard index ({@link ShardNames})
 */
public record OperatorConfig(
    ClusterSettings clusters,
    String operatorNamespace,
    ReconcileSettings reconcile,
    WatchSettings watch,
    NamespaceScope namespaces,
    TenancySettings tenancy,
    HttpSettings http,
    ExportSettings export,
    LeaderElectionSettings leaderElection,
    GuardSettings guards,
    DigestKeySource digestKey,
    Shard shard) {

  /** Status writes per target at most every 10 s. */
  public static final Duration DEFAULT_STATUS_WRITE_INTERVAL =
      ReconcileSettings.DEFAULT_STATUS_WRITE_INTERVAL;
  /** As Flux: a target without {@code serviceAccountName} reads as {@code default}. */
  public static final String DEFAULT_SERVICE_ACCOUNT = TenancySettings.DEFAULT_SERVICE_ACCOUNT;

  public OperatorConfig {
    Objects.requireNonNull(clusters, "clusters");
    Objects.requireNonNull(operatorNamespace, "operatorNamespace");
    Objects.requireNonNull(reconcile, "reconcile");
    Objects.requireNonNull(watch, "watch");
    Objects.requireNonNull(namespaces, "namespaces");
    Objects.requireNonNull(tenancy, "tenancy");
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(export, "export");
    Objects.requireNonNull(leaderElection, "leaderElection");
    Objects.requireNonNull(guards, "guards");
    Objects.requireNonNull(digestKey, "digestKey");
    Objects.requireNonNull(shard, "shard");
  }

  /** The {@code cluster} of every record: the own cluster's name. */
  public String clusterName() {
    return clusters.clusterName();
  }

  /**
   * The namespaces whose targets are not checked against their ServiceAccount: {@code
   * --cluster-wide-namespaces}, or the operator's own namespace when none are given.
   */
  public Set<String> trustedNamespaces() {
    return tenancy.trustedNamespaces(operatorNamespace);
  }

  /** Whether objects (and Kollect resources) in a namespace are handled at all. */
  public Predicate<String> namespaceFilter() {
    return namespaces.filter();
  }

  /** A builder with every setting at its default; the cluster name has none and must be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's settings, to change some. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.clusters = clusters;
    b.operatorNamespace = operatorNamespace;
    b.reconcile = reconcile;
    b.watch = watch;
    b.namespaces = namespaces;
    b.tenancy = tenancy;
    b.http = http;
    b.export = export;
    b.leaderElection = leaderElection;
    b.guards = guards;
    b.digestKey = digestKey;
    b.shard = shard;
    return b;
  }

  /**
   * Builds an {@link OperatorConfig} one feature at a time. Each feature's settings record is
   * validated where it is constructed; the shorthands for single values ({@link #workers}, {@link
   * #statusWriteInterval}, ...) construct the feature's record anew with that one value changed.
   */
  public static final class Builder {
    private String clusterName;
    private ClusterSettings clusters;
    private String operatorNamespace = "default";
    private ReconcileSettings reconcile = ReconcileSettings.defaults();
    private WatchSettings watch = WatchSettings.defaults();
    private NamespaceScope namespaces = NamespaceScope.all();
    private TenancySettings tenancy = TenancySettings.defaults();
    // Listeners off; /inventory, were it served, open: the settings of embedders and tests.
    private HttpSettings http =
        new HttpSettings(BindAddress.off(), BindAddress.off(), InventoryAuth.none());
    private ExportSettings export = ExportSettings.defaults();
    private LeaderElectionSettings leaderElection = LeaderElectionSettings.disabled();
    private GuardSettings guards = GuardSettings.defaults();
    private DigestKeySource digestKey = DigestKeySource.none();
    private Shard shard = Shard.NONE;

    private Builder() {
    }

    /** The own cluster and the others (the cluster name included). */
    public Builder clusters(ClusterSettings clusters) {
      this.clusters = clusters;
      this.clusterName = null;
      return this;
    }

    /** The {@code cluster} of every record ({@code --cluster-name}); the other clusters stay. */
    public Builder clusterName(String clusterName) {
      this.clusterName = clusterName;
      return this;
    }

    /** The namespace of the operator's own state. */
    public Builder operatorNamespace(String operatorNamespace) {
      this.operatorNamespace = operatorNamespace;
      return this;
    }

    /** Workers and the status write interval. */
    public Builder reconcile(ReconcileSettings reconcile) {
      this.reconcile = reconcile;
      return this;
    }

    /** How the informers watch. */
    public Builder watch(WatchSettings watch) {
      this.watch = watch;
      return this;
    }

    /** Which namespaces are read. */
    public Builder namespaces(NamespaceScope namespaces) {
      this.namespaces = namespaces;
      return this;
    }

    /** The tenant boundary. */
    public Builder tenancy(TenancySettings tenancy) {
      this.tenancy = tenancy;
      return this;
    }

    /** The HTTP listeners; all off by default. */
    public Builder http(HttpSettings http) {
      this.http = http;
      return this;
    }

    /** Checkpoints and standard output. */
    public Builder export(ExportSettings export) {
      this.export = export;
      return this;
    }

    /** Leader election; disabled by default. */
    public Builder leaderElection(LeaderElectionSettings leaderElection) {
      this.leaderElection = leaderElection;
      return this;
    }

    /** The circuit breaker and the cardinality warning. */
    public Builder guards(GuardSettings guards) {
      this.guards = guards;
      return this;
    }

    /** Where the Secret digest key comes from. */
    public Builder digestKey(DigestKeySource digestKey) {
      this.digestKey = digestKey;
      return this;
    }

    /** This replica's shard. */
    public Builder shard(Shard shard) {
      this.shard = shard;
      return this;
    }

    /** Shorthand: reconcile worker threads ({@code --workers}). */
    public Builder workers(int workers) {
      return reconcile(new ReconcileSettings(workers, reconcile.statusWriteInterval(),
          reconcile.timings()));
    }

    /** Shorthand: a target's status at most once per this interval (tests shorten it). */
    public Builder statusWriteInterval(Duration statusWriteInterval) {
      return reconcile(new ReconcileSettings(reconcile.workers(), statusWriteInterval,
          reconcile.timings()));
    }

    /** Shorthand: the intervals no flag sets ({@link ReconcileSettings.Timings}; tests). */
    public Builder timings(ReconcileSettings.Timings timings) {
      return reconcile(new ReconcileSettings(reconcile.workers(),
          reconcile.statusWriteInterval(), timings));
    }

    /** Shorthand: the informer resync period ({@code --resync-period}). */
    public Builder resyncPeriod(Duration resyncPeriod) {
      return watch(new WatchSettings(resyncPeriod, watch.watchLiveness(), watch.listPageSize(),
          watch.clusterWideThreshold()));
    }

    /** Shorthand: objects per page of an informer's list. */
    public Builder listPageSize(int listPageSize) {
      return watch(new WatchSettings(watch.resyncPeriod(), watch.watchLiveness(), listPageSize,
          watch.clusterWideThreshold()));
    }

    /** Shorthand: namespaces past which one cluster-wide informer serves a type. */
    public Builder clusterWideThreshold(int clusterWideThreshold) {
      return watch(new WatchSettings(watch.resyncPeriod(), watch.watchLiveness(),
          watch.listPageSize(), clusterWideThreshold));
    }

    /** Shorthand: the tenant boundary. */
    public Builder tenancy(String defaultServiceAccount, Set<String> clusterWideNamespaces) {
      return tenancy(new TenancySettings(defaultServiceAccount, clusterWideNamespaces));
    }

    /** Shorthand: where {@code /metrics} and {@code /inventory} are served. */
    public Builder metricsAddress(BindAddress metricsAddress) {
      return http(new HttpSettings(metricsAddress, http.probeAddress(), http.inventoryAuth()));
    }

    /** Shorthand: where {@code /healthz} and {@code /readyz} are served. */
    public Builder probeAddress(BindAddress probeAddress) {
      return http(new HttpSettings(http.metricsAddress(), probeAddress, http.inventoryAuth()));
    }

    /** Shorthand: who may read {@code /inventory}. */
    public Builder inventoryAuth(InventoryAuth inventoryAuth) {
      return http(new HttpSettings(http.metricsAddress(), http.probeAddress(), inventoryAuth));
    }

    /** Shorthand: checkpoints in files here; empty: in ConfigMaps. */
    public Builder checkpointDir(Optional<Path> checkpointDir) {
      return export(new ExportSettings(checkpointDir, export.stdoutRecords()));
    }

    /** Shorthand: every record also here as a JSON line ({@code --stdout}). */
    public Builder stdoutRecords(Optional<PrintStream> stdoutRecords) {
      return export(new ExportSettings(export.checkpointDir(), stdoutRecords));
    }

    /**
     * The configuration.
     *
     * @throws IllegalArgumentException naming the flag of a setting that is out of range
     */
    public OperatorConfig build() {
      ClusterSettings named;
      if (clusters == null) {
        named = ClusterSettings.of(Objects.requireNonNull(clusterName, "clusterName"));
      } else {
        named = clusterName == null ? clusters : clusters.named(clusterName);
      }
      return new OperatorConfig(named, operatorNamespace, reconcile, watch, namespaces, tenancy,
          http, export, leaderElection, guards, digestKey, shard);
    }
  }
}

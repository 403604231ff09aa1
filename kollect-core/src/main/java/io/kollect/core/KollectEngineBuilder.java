package io.kollect.core;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.CheckpointStore;
import io.kollect.export.ExportMetrics;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.ExtractOptions;
import io.kollect.informers.InformerMetrics;
import io.kollect.informers.InformerOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/** Configures a {@link KollectEngine}; every setting but the client has a default. */
public final class KollectEngineBuilder {

  /** Default of {@link #figureNotifyInterval}, in minutes. */
  public static final int DEFAULT_FIGURE_NOTIFY_MINUTES = 5;
  static final Duration DEFAULT_FIGURE_NOTIFY_INTERVAL =
      Duration.ofMinutes(DEFAULT_FIGURE_NOTIFY_MINUTES);
  /** Default of {@link #lastExportNotifyInterval}. */
  public static final Duration DEFAULT_LAST_EXPORT_NOTIFY_INTERVAL = Duration.ofSeconds(30);
  final KubernetesClient client;
  String cluster = "default";
  int workers = 2;
  Duration resyncPeriod = Duration.ofHours(10);
  InformerOptions informerOptions;
  CheckpointStore checkpointStore = CheckpointStore.none();
  ExportMetrics exportMetrics = ExportMetrics.noop();
  InformerMetrics informerMetrics = InformerMetrics.noop();
  Sink inventorySink;
  SinkOptions inventorySinkOptions = SinkOptions.defaults();
  boolean exportEnabled = true;
  Predicate<String> namespaceFilter = ns -> true;
  Duration retryBaseDelay = Duration.ofMillis(100);
  Duration retryMaxDelay = Duration.ofMinutes(5);
  double retryQps = 10;
  int retryBurst = 100;
  Duration lastExportNotifyInterval = DEFAULT_LAST_EXPORT_NOTIFY_INTERVAL;
  Duration figureNotifyInterval = DEFAULT_FIGURE_NOTIFY_INTERVAL;
  AccessReviewer accessReviewer;
  String defaultServiceAccount;
  Set<String> trustedNamespaces;
  Duration accessReviewInterval = Duration.ofSeconds(60);
  Duration deliveryStatusInterval = Duration.ofSeconds(5);
  ExtractOptions extractOptions = ExtractOptions.none();
  Duration fullPassInterval = TargetReconciler.DEFAULT_FULL_PASS_INTERVAL;
  Duration shadowInterval = ShadowEvaluation.DEFAULT_INTERVAL;
  int circuitFailures;
  Duration circuitMaxCooldown = Duration.ofMinutes(10);
  int warnObjectsPerTarget = Cardinality.DEFAULT_WARN_OBJECTS;
  ClusterConnections clusterConnections = ClusterConnections.none();
  Shard shard = Shard.NONE;

  KollectEngineBuilder(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /**
   * Where targets' {@link TargetSpec#clusters() other clusters} come from (default: none; a
   * target naming one reports {@code ClusterNotFound}). The engine opens a cluster when its
   * first target needs it and releases it when the last one stops (or the engine closes).
   */
  public KollectEngineBuilder clusterConnections(ClusterConnections connections) {
    this.clusterConnections = Objects.requireNonNull(connections, "clusterConnections");
    return this;
  }

  /**
   * Opens a target's circuit after {@code failures} consecutive failed reconciles, skipping it
   * for a cool-down that doubles per failed half-open attempt up to {@code maxCooldown} (default
   * off; {@code 0} failures turns it off). What counts as a failure is described on the
   * {@code CircuitOpen} condition's documentation in {@code docs/operations.md}: a reconcile that
   * throws, or one after which at least half of the target's objects fail extraction.
   */
  public KollectEngineBuilder circuitBreaker(int failures, Duration maxCooldown) {
    if (failures < 0) {
      throw new IllegalArgumentException("circuitBreaker failures: must be zero (off) or "
          + "positive, got " + failures);
    }
    if (maxCooldown == null || maxCooldown.isNegative() || maxCooldown.isZero()) {
      throw new IllegalArgumentException("circuitBreaker maxCooldown: must be positive, got "
          + maxCooldown);
    }
    this.circuitFailures = failures;
    this.circuitMaxCooldown = maxCooldown;
    return this;
  }

  /** Warns ({@code HighCardinality}) when a target holds more objects (default 10,000). */
  public KollectEngineBuilder warnObjectsPerTarget(int objects) {
    if (objects < 1) {
      throw new IllegalArgumentException("warnObjectsPerTarget: must be at least 1, got "
          + objects);
    }
    this.warnObjectsPerTarget = objects;
    return this;
  }

  /**
   * The engine's own cluster's name (default {@code "default"}): written into its records, and
   * the name by which a target's {@link TargetSpec#clusters()} may name it.
   */
  public KollectEngineBuilder cluster(String cluster) {
    KollectEngine.requireName(cluster, "cluster");
    this.cluster = cluster;
    return this;
  }

  /**
   * This engine's part of the objects when several engines split one cluster's (and its
   * remote clusters') objects between them (default {@link Shard#NONE}: all of them). An object
   * belongs to exactly one shard (see {@link Shard}); this engine drops the others before its
   * informer caches, exports records only of its own, and on start leaves out, without a
   * DELETE, checkpointed records of objects another shard owns now (they stay stored for that
   * shard), and takes over from the other shards' checkpoints the records of objects it owns
   * now, when the {@link #checkpointStore} has peers (e.g. {@code
   * FileCheckpointStore.inShardLayout}). Namespaces and CRDs are still read
   * whole (namespace selectors need them all); Namespace records are filtered like any other.
   * Split by cluster ({@link Shard.By#CLUSTER}), the engine opens only the remote clusters the
   * shard owns, and their informers keep every object without a per-object filter; the rule
   * changing between runs moves checkpointed records as a change of the count does.
   */
  public KollectEngineBuilder shard(Shard shard) {
    this.shard = Objects.requireNonNull(shard, "shard");
    return this;
  }

  /** Reconcile worker threads (default 2). */
  public KollectEngineBuilder workers(int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers: must be at least 1, got " + workers);
    }
    this.workers = workers;
    return this;
  }

  /** Informer resync period, a correctness backstop only (default 10 h; zero turns it off). */
  public KollectEngineBuilder resyncPeriod(Duration period) {
    if (period == null || period.isNegative()) {
      throw new IllegalArgumentException("resyncPeriod: must be zero or positive, got " + period);
    }
    this.resyncPeriod = period;
    return this;
  }

  /**
   * Full informer settings; when given they override {@link #resyncPeriod} and {@link
   * #informerMetrics} (the cluster name for records still comes from {@link #cluster}).
   */
  public KollectEngineBuilder informerOptions(InformerOptions options) {
    this.informerOptions = Objects.requireNonNull(options, "informerOptions");
    return this;
  }

  /**
   * Where acknowledged export state survives restarts (default: nowhere). A sharded engine needs
   * a store of its own shard whose peers are the other shards' stores ({@link
   * CheckpointStore#loadPeers}), so checkpointed records move with their objects when the shard
   * count changes.
   */
  public KollectEngineBuilder checkpointStore(CheckpointStore store) {
    this.checkpointStore = Objects.requireNonNull(store, "checkpointStore");
    return this;
  }

  /** Where the exporter reports per-sink delivery counters (default: nowhere). */
  public KollectEngineBuilder exportMetrics(ExportMetrics metrics) {
    this.exportMetrics = Objects.requireNonNull(metrics, "exportMetrics");
    return this;
  }

  /** Where the informer registry reports its counters (default: nowhere). */
  public KollectEngineBuilder informerMetrics(InformerMetrics metrics) {
    this.informerMetrics = Objects.requireNonNull(metrics, "informerMetrics");
    return this;
  }

  /**
   * A sink that also receives the records of every target with {@link
   * TargetSpec#writeInventory()} (the operator's in-cluster inventory objects), with default
   * options.
   */
  public KollectEngineBuilder inventorySink(Sink sink) {
    return inventorySink(sink, SinkOptions.defaults());
  }

  /** The host's inventory sink with explicit delivery options. */
  public KollectEngineBuilder inventorySink(Sink sink, SinkOptions options) {
    Objects.requireNonNull(sink, "inventorySink");
    KollectEngine.requireName(sink.name(), "inventorySink name");
    this.inventorySink = sink;
    this.inventorySinkOptions = Objects.requireNonNull(options, "inventorySink options");
    return this;
  }

  /** {@code false} starts as a standby: warm caches, no exports, no status (default true). */
  public KollectEngineBuilder exportEnabled(boolean enabled) {
    this.exportEnabled = enabled;
    return this;
  }

  /**
   * Namespaces the engine may read at all (operator-wide include/exclude), applied on top of
   * every target's scope (default: all).
   */
  public KollectEngineBuilder namespaceFilter(Predicate<String> filter) {
    this.namespaceFilter = Objects.requireNonNull(filter, "namespaceFilter");
    return this;
  }

  /**
   * Retry pacing of failed reconciles: per-target exponential backoff from {@code base} to
   * {@code max}, and at most {@code qps} retries per second overall with bursts of {@code burst}
   * (default 100 ms, 5 min, 10/s, 100).
   */
  public KollectEngineBuilder retryRateLimit(Duration base, Duration max, double qps, int burst) {
    new ExponentialBackoffRateLimiter<>(base, max);
    new TokenBucketRateLimiter<>(qps, burst, RateLimiter.Ticker.SYSTEM);
    this.retryBaseDelay = base;
    this.retryMaxDelay = max;
    this.retryQps = qps;
    this.retryBurst = burst;
    return this;
  }

  /**
   * How profiles are compiled (default {@link ExtractOptions#none()}): the key that makes
   * Secret value digests ({@code hmac-sha256}) appear in records. Give every replica and shard
   * the same key so digests stay stable across restarts.
   */
  public KollectEngineBuilder extractOptions(ExtractOptions options) {
    this.extractOptions = Objects.requireNonNull(options, "extractOptions");
    return this;
  }

  /**
   * How often targets' delivery status ({@link TargetStatus#deliveries()}: last acknowledged
   * delivery, pending records, failing sinks, refused records) is refreshed between reconciles
   * (default 5 s).
   */
  public KollectEngineBuilder deliveryStatusInterval(Duration interval) {
    if (interval == null || interval.toMillis() < 1) {
      throw new IllegalArgumentException(
          "deliveryStatusInterval: must be at least 1 ms, got " + interval);
    }
    this.deliveryStatusInterval = interval;
    return this;
  }

  /**
   * How often a status change of {@code lastExport} alone reaches listeners (default {@link
   * #DEFAULT_LAST_EXPORT_NOTIFY_INTERVAL}); zero reports every change.
   */
  public KollectEngineBuilder lastExportNotifyInterval(Duration interval) {
    if (interval == null || interval.isNegative()) {
      throw new IllegalArgumentException(
          "lastExportNotifyInterval: must be zero or positive, got " + interval);
    }
    this.lastExportNotifyInterval = interval;
    return this;
  }

  /**
   * How often a status change of delivery figures alone (when a sink last acknowledged, how many
   * records are pending) reaches {@link TargetStatusListener}s (default {@value
   * #DEFAULT_FIGURE_NOTIFY_MINUTES} min). Such changes follow every acknowledgement and heartbeat,
   * so a host that writes each reported status somewhere (the operator: the target's status
   * subresource) would otherwise write every target on every heartbeat; metrics carry the figures
   * live. {@link KollectEngine#status} always has the latest figures. Each target waits the
   * interval plus a share of up to half of it fixed by its id, so that targets started together
   * do not report their figures in the same minute of every interval.
   */
  public KollectEngineBuilder figureNotifyInterval(Duration interval) {
    if (interval == null || interval.isNegative()) {
      throw new IllegalArgumentException("figureNotifyInterval: must be zero or positive, got "
          + interval);
    }
    this.figureNotifyInterval = interval;
    return this;
  }

  /**
   * Checks what targets may read with this reviewer instead of the API server's
   * SubjectAccessReview (turns the tenant boundary on; see {@link #trustedNamespaces}).
   */
  public KollectEngineBuilder accessReviewer(AccessReviewer reviewer) {
    this.accessReviewer = Objects.requireNonNull(reviewer, "accessReviewer");
    return this;
  }

  /**
   * The ServiceAccount (in the target's namespace) whose access bounds a target that names none
   * in {@link TargetSpec#serviceAccount()} (default {@code "default"}; turns the tenant boundary
   * on; see {@link #trustedNamespaces}).
   */
  public KollectEngineBuilder defaultServiceAccount(String name) {
    KollectEngine.requireName(name, "defaultServiceAccount");
    this.defaultServiceAccount = name;
    return this;
  }

  /**
   * Turns the tenant boundary on: a target in one of these namespaces reads whatever the
   * engine's client may read; a target in any other namespace reads only what its
   * ServiceAccount may list and watch (per resource type, cluster-wide or namespace by
   * namespace), and what it may not is reported as {@code skipped} with reason {@code
   * forbidden}. Giving any of this, {@link #defaultServiceAccount} or {@link #accessReviewer}
   * turns the boundary on (the other settings take their defaults: no trusted namespace,
   * ServiceAccount {@code default}, SubjectAccessReview). An engine configured with none of them
   * checks nothing: every target reads what the engine's client may read.
   */
  public KollectEngineBuilder trustedNamespaces(Set<String> namespaces) {
    Objects.requireNonNull(namespaces, "trustedNamespaces");
    for (String ns : namespaces) {
      KollectEngine.requireName(ns, "trustedNamespaces[]");
    }
    this.trustedNamespaces = Set.copyOf(namespaces);
    return this;
  }

  /**
   * How often cached access answers are asked again (default 60 s): a granted or revoked
   * RoleBinding takes effect within this interval, without an access review per event.
   */
  public KollectEngineBuilder accessReviewInterval(Duration interval) {
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("accessReviewInterval: must be positive, got "
          + interval);
    }
    this.accessReviewInterval = interval;
    return this;
  }

  /**
   * How often each target runs a full pass without a cause (default 1 h; zero turns it off).
   * Informer events are applied as deltas (only the changed objects are read, extracted and
   * exported); a full pass re-reads the target's whole scope and lets the sinks converge to it.
   * It runs by itself on start and whenever the target's spec, profile, sinks, access or a
   * lease's status change; this periodic one is only a correctness backstop, so it can be long.
   */
  public KollectEngineBuilder fullPassInterval(Duration interval) {
    if (interval == null || interval.isNegative()) {
      throw new IllegalArgumentException("fullPassInterval: must be zero or positive, got "
          + interval);
    }
    this.fullPassInterval = interval;
    return this;
  }

  /**
   * Least time between two evaluations of a candidate profile after informer events (default
   * 10 s): a shadow evaluation costs O(objects of the profile's targets), so it is never run
   * per event.
   */
  public KollectEngineBuilder shadowInterval(Duration interval) {
    if (interval == null || interval.isNegative()) {
      throw new IllegalArgumentException("shadowInterval: must be zero or positive, got "
          + interval);
    }
    this.shadowInterval = interval;
    return this;
  }

  boolean boundaryConfigured() {
    return accessReviewer != null || defaultServiceAccount != null || trustedNamespaces != null;
  }

  /** Builds the engine; nothing is watched until targets are reconciled after {@link KollectEngine#start()}. */
  public KollectEngine build() {
    return new KollectEngine(this);
  }
}

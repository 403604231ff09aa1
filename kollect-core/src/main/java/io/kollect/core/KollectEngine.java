package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.export.CheckpointStore;
import io.kollect.export.Exporter;
import io.kollect.export.InventorySink;
import io.kollect.export.InventoryView;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.ProfileSpec;
import io.kollect.informers.InformerOptions;
import io.kollect.informers.InformerRegistry;
import io.kollect.informers.StalledWatch;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embeddable Kollect engine: keeps each target's records exported to its sinks as the cluster
 * changes.
 *
 * <pre>{@code
 * KollectEngine engine = KollectEngine.builder(client).cluster("prod-eu").build();
 * engine.putProfile("deployments", profileSpec);
 * engine.putSink(new StdoutSink("stdout"), SinkOptions.defaults());
 * engine.putTarget(new TargetSpec(new TargetId("team-a", "deployments"), 1, "deployments",
 *     TargetScope.namespaces("team-a"), List.of("stdout"), false));
 * engine.start();
 * ...
 * engine.close();
 * }</pre>
 *
 * <p>Profiles, sinks and targets may be given, changed and removed at any time, before or after
 * {@link #start()}, in any order: a target whose profile or sink is missing reports it in its
 * status and picks it up when it arrives. Every change re-enqueues the targets it concerns for a
 * full pass (the whole scope re-derived level-based), and an informer event marks only its object
 * dirty for the targets whose scope it touches, for a delta pass that costs O(changed objects).
 * Targets are worked on a rate-limited work queue by {@code workers} threads ({@code
 * kollect-reconcile-N}); see {@link KollectEngineBuilder#fullPassInterval} for the periodic full pass.
 *
 * <p>Thread-safe. Calls concerning one target should be ordered by the caller (a host's event
 * handler thread does that naturally).
 */
public final class KollectEngine implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KollectEngine.class);

  /** The ServiceAccount of targets that name none, when access is checked. */
  static final String DEFAULT_SERVICE_ACCOUNT = "default";

  /** Name of the engine's own in-memory inventory (never a sink of the exporter). */
  static final String INVENTORY_VIEW = "kollect-inventory-view";

  private final InformerRegistry registry;
  private final Exporter exporter;
  private final RetainingCheckpointStore checkpoints;
  /** Name of the host's inventory sink, or {@code null}. */
  private final String hostInventorySink;
  /** The in-memory inventory of every cluster read. */
  private final ClusterInventoryView views;
  /** The other clusters targets read, opened and closed with the units that read them. */
  private final OpenClusters clusters;
  private final int workerCount;
  /** This engine's part of the objects when the work is split over replicas. */
  private final Shard shard;
  private final String cluster;
  private final WorkQueue<TargetId> queue;
  /** Which targets an event, a profile or a sink concerns. */
  private final TargetIndex index;
  private final TargetReconciler reconciler;
  /** The profiles and sinks given. */
  private final EngineCatalog catalog;
  private final TargetSet targets;
  /** Orders start, close and export switches. */
  private final Object lifecycle;
  /** The tenant boundary's cached access answers, or {@code null} when access is not checked. */
  private final AccessDecisions accessDecisions;
  private final TenantBoundary boundary;
  /** Stores statuses and tells listeners: the end of the status pipeline. */
  private final StatusPublisher publisher;
  /** Refreshes targets' delivery figures between reconciles; started with the workers. */
  private final DeliveryRefresh deliveryRefresh;
  /** The reconcile workers, with the circuit breaker that skips targets that keep failing. */
  private final ReconcileWorkers workers;
  /** Candidate profiles evaluated beside their targets (safe profile change). */
  private final ShadowEvaluation shadows;
  private volatile boolean exportEnabled;
  private volatile boolean started;
  private volatile boolean closed;

  /**
   * Wires the engine's units in the order they depend on each other: informers and clusters,
   * exporter, tenant boundary, reconciler, status publisher, workers, shadow evaluation.
   */
  KollectEngine(KollectEngineBuilder b) {
    this.workerCount = b.workers;
    this.shard = b.shard;
    this.cluster = b.cluster;
    this.exportEnabled = b.exportEnabled;
    this.lifecycle = new Object();
    this.index = new TargetIndex();
    this.targets = new TargetSet(index);
    InformerOptions informerOptions = informerOptions(b);
    this.queue = new WorkQueue<>(RateLimiter.controllerDefault(b.retryBaseDelay, b.retryMaxDelay,
        b.retryQps, b.retryBurst, RateLimiter.Ticker.SYSTEM), RateLimiter.Ticker.SYSTEM);
    this.registry = new InformerRegistry(b.client, informerOptions);
    this.clusters = new OpenClusters(b.cluster, b.client, registry, b.clusterConnections,
        informerOptions, InformerRegistry::new, this::clusterHealthChanged);
    this.views = new ClusterInventoryView(new InventorySink(INVENTORY_VIEW), b.cluster);
    this.checkpoints = new RetainingCheckpointStore(b.checkpointStore);
    this.exporter = exporter(b, checkpoints);
    this.hostInventorySink = b.inventorySink == null ? null : b.inventorySink.name();
    this.catalog = new EngineCatalog(exporter, b.extractOptions, hostInventorySink == null
        ? Set.of(INVENTORY_VIEW) : Set.of(INVENTORY_VIEW, hostInventorySink));
    this.accessDecisions = b.boundaryConfigured() ? new AccessDecisions(b.accessReviewer != null
        ? b.accessReviewer : AccessReviewer.subjectAccessReviews(b.client),
        b.accessReviewInterval, this::accessChanged) : null;
    this.boundary = accessDecisions == null ? TenantBoundary.off() : new TenantBoundary(
        accessDecisions, b.trustedNamespaces == null ? Set.of() : b.trustedNamespaces,
        b.defaultServiceAccount == null ? DEFAULT_SERVICE_ACCOUNT : b.defaultServiceAccount,
        new ResourcePlurals(b.client));
    Function<GenericKubernetesResource, JsonNode> toJson = toJson(b.client);
    this.reconciler = reconciler(b, toJson);
    this.publisher = new StatusPublisher(queue, b.lastExportNotifyInterval,
        b.figureNotifyInterval, () -> exportEnabled);
    this.deliveryRefresh = new DeliveryRefresh(new DeliveryRefresh.Parts(targets::all,
        reconciler, queue, publisher, () -> exportEnabled && !closed), b.deliveryStatusInterval);
    this.shadows = new ShadowEvaluation(new ShadowEvaluation.Reading(b.cluster, registry::lease,
        toJson, b.namespaceFilter, boundary, b.extractOptions, Clock.systemUTC(), shard),
        targets::unitsUsing, b.shadowInterval);
    CircuitBreaker circuits = b.circuitFailures > 0
        ? new CircuitBreaker(b.circuitFailures, b.circuitMaxCooldown) : CircuitBreaker.off();
    this.workers = new ReconcileWorkers(new ReconcileWorkers.Parts(queue, targets::get,
        reconciler, circuits, publisher, rt -> shadows.touched(rt.spec().profileRef())));
  }

  /** How a cached object becomes the tree extraction reads (see {@link ProjectedResourceTree}). */
  private static Function<GenericKubernetesResource, JsonNode> toJson(KubernetesClient client) {
    KubernetesSerialization serialization = client.getKubernetesSerialization();
    return serialization != null ? ProjectedResourceTree.forClient(serialization)
        : obj -> ClientJson.toTree(client.getKubernetesSerialization(), obj);
  }

  /** The reconciler, reading through this engine's catalog, registry, clusters and boundary. */
  private TargetReconciler reconciler(KollectEngineBuilder b,
      Function<GenericKubernetesResource, JsonNode> toJson) {
    EngineInputs inputs = new EngineInputs(catalog, registry::lease, exporter,
        () -> exportEnabled, b.warnObjectsPerTarget);
    return TargetReconciler.builder(b.cluster, inputs, exporter, queue)
        .views(views).hostInventorySink(hostInventorySink).index(index)
        .namespaceFilter(b.namespaceFilter).toJson(toJson).boundary(boundary)
        .fullPassInterval(b.fullPassInterval).clusters(clusters).shard(shard).build();
  }

  private static InformerOptions informerOptions(KollectEngineBuilder b) {
    InformerOptions options = b.informerOptions != null ? b.informerOptions
        : InformerOptions.defaults().withCluster(b.cluster).withResyncPeriod(b.resyncPeriod)
            .withMetrics(b.informerMetrics);
    if (b.shard.sharded()) {
      // Objects of other shards are dropped before the caches. The registry asks with its own
      // cluster name (each remote cluster's registry with that cluster's), so the local one must
      // carry the name the records carry, or the two filters would disagree.
      options = options.withCluster(b.cluster).withOwnership(b.shard.ownership(b.cluster));
    }
    return options;
  }

  private static Exporter exporter(KollectEngineBuilder b, RetainingCheckpointStore checkpoints) {
    String localCluster = b.cluster;
    Shard s = b.shard;
    Exporter exporter = Exporter.builder().checkpointStore(checkpoints).metrics(b.exportMetrics)
        // after a change of the shard count, checkpointed objects another shard owns now leave
        // the export state without tombstones and wait in the checkpoint for their new owner,
        // which takes them over from this store (CheckpointStore.loadPeers/takeOver)
        .ownedKeys((exportKey, recordKey) -> s.ownsRecord(localCluster, exportKey, recordKey))
        .build();
    if (b.inventorySink != null) {
      exporter.addSink(b.inventorySink, b.inventorySinkOptions);
    }
    return exporter;
  }

  /** This engine's shard ({@link Shard#NONE} when the work is not split). */
  public Shard shard() {
    return shard;
  }

  /** Re-enqueues the targets read as the ServiceAccount whose access answer changed. */
  private void accessChanged(AccessDecisions.Question q) {
    targets.readAs(new TenantBoundary.ServiceAccountRef(q.saNamespace(), q.saName()), boundary)
        .forEach(this::fullPass);
  }

  private void fullPass(TargetId id) {
    workers.fullPass(id);
  }

  /** Starts configuring an engine that reads the cluster through {@code client}. */
  public static KollectEngineBuilder builder(KubernetesClient client) {
    return new KollectEngineBuilder(client);
  }

  /** Registers a listener for status changes and target removals. */
  public void addStatusListener(TargetStatusListener listener) {
    publisher.addListener(listener);
  }

  /**
   * Adds or replaces a profile and re-enqueues the targets that use it. Never throws for an
   * invalid spec: it is compiled once here, and when invalid the targets keep the last valid
   * version and report {@code Degraded} with {@link #profileError}'s message.
   */
  public void putProfile(String name, ProfileSpec spec) {
    requireName(name, "profile name");
    Objects.requireNonNull(spec, "spec");
    ProfileVersion changed = catalog.putProfile(name, spec);
    if (changed != null) {
      if (changed.error() != null) {
        LOG.warn("{}", changed.error());
      }
      index.referencingProfile(name).forEach(this::fullPass);
    }
  }

  /** The validation message of the profile's current spec, if it is invalid. */
  public Optional<String> profileError(String name) {
    return catalog.profileError(name);
  }

  /**
   * What the profile's current spec asks for that is accepted but not done as written (for
   * example {@code includeSecretData}), each naming the field; empty when none or when the
   * profile is unknown or invalid.
   */
  public List<String> profileWarnings(String name) {
    return catalog.profileWarnings(name);
  }

  /** Removes a profile; targets using it report {@code ProfileNotFound} and stop reading. */
  public void removeProfile(String name) {
    if (catalog.removeProfile(name)) {
      index.referencingProfile(name).forEach(this::fullPass);
    }
  }

  /**
   * Adds or replaces a sink (by {@link Sink#name()}) and re-enqueues the targets that name it. A
   * replaced sink is closed and the new one receives the full current set. Putting the instance
   * that is already configured, with equal options, does nothing (hosts may re-apply unchanged
   * configuration freely); to change options, pass a new instance.
   *
   * @throws IllegalArgumentException when the configured instance is passed with other options
   *     (replacing it would close the instance that is to be used)
   */
  public void putSink(Sink sink, SinkOptions options) {
    Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(options, "options");
    String name = sink.name();
    requireName(name, "sink name");
    ensureOpen();
    if (catalog.putSink(sink, options)) {
      index.referencingSink(name).forEach(this::fullPass);
    }
  }

  /** Removes and closes a sink; targets naming it report {@code Degraded} {@code SinkNotFound}. */
  public void removeSink(String name) {
    if (catalog.removeSink(name)) {
      index.referencingSink(name).forEach(this::fullPass);
    }
  }

  /**
   * Adds or replaces a target and enqueues it.
   *
   * @throws IllegalArgumentException naming the target and field when the spec is invalid (blank
   *     names, an invalid label or namespace selector); a missing profile or sink is not an error
   */
  public void putTarget(TargetSpec spec) {
    Objects.requireNonNull(spec, "spec");
    TargetRuntime.Definition definition = TargetRuntime.Definition.validated(spec);
    ensureOpen();
    targets.put(definition);
    index.putRefs(spec.id(), spec.profileRef(), spec.sinkRefs());
    fullPass(spec.id());
  }

  /**
   * Removes a target: releases its informer leases, forgets its export state without sending
   * tombstones (the target is gone, not its objects), removes its records from {@link
   * #inventory()} and tells listeners {@code onRemoved}.
   */
  public void removeTarget(TargetId id) {
    TargetRuntime rt = targets.remove(id);
    if (rt == null || closed) {
      return;
    }
    index.remove(id);
    reconciler.remove(rt);
    workers.forget(id);
    shadows.targetGone(rt.spec().profileRef());
    publisher.removed(id);
  }

  /** Starts the reconcile workers. Non-blocking and idempotent. */
  public void start() {
    synchronized (lifecycle) {
      ensureOpen();
      if (started) {
        return;
      }
      workers.start(workerCount);
      deliveryRefresh.start();
      clusters.start();
      started = true;
      if (shard.sharded()) {
        LOG.info("Engine for cluster {} is shard {} of {}, split by {}: it reads, exports and "
            + "checkpoints only the objects it owns", cluster, shard.index(), shard.total(),
            shard.by().name().toLowerCase(java.util.Locale.ROOT));
      }
    }
    targets.ids().forEach(this::fullPass);
  }

  /**
   * Turns exporting on or off (a leader election flips this). Off: caches stay warm and the
   * in-memory inventory stays current, but nothing reaches the sinks and listeners hear nothing;
   * the exporter forgets its in-memory state so nothing is re-sent by heartbeats, while the
   * checkpoints stay for whoever exports next. On: every target is re-enqueued, converges from the
   * checkpoint store (sending only what changed), and its status is reported afresh.
   */
  public void setExportEnabled(boolean enabled) {
    synchronized (lifecycle) {
      if (enabled == exportEnabled) {
        return;
      }
      exportEnabled = enabled;
    }
    // Stepping down must not delete the checkpoints the next leader converges from.
    checkpoints.retainingDuring(() -> {
      for (TargetRuntime rt : targets.all()) {
        synchronized (rt) {
          publisher.forgetNotified(rt); // on: every status is reported afresh
          reconciler.forgetExportState(rt, !enabled);
        }
        queue.add(rt.id); // forgetExportState requested a full pass
      }
    });
  }

  /** Whether this instance exports (is the leader, or runs without election). */
  public boolean isExportEnabled() {
    return exportEnabled;
  }

  /**
   * Started, every target reconciled at least once, and every informer leased has completed its
   * initial list (a type not served or wholly forbidden counts as synced).
   */
  public boolean isReady() {
    if (!started || closed) {
      return false;
    }
    return targets.allReconciled() && registry.allSynced();
  }

  /**
   * Watches of the engine's own cluster that have been silent past the informers' liveness
   * window (a half-open connection, a partitioned API server): each names its type, namespace and
   * since when. Empty when every watch is healthy. Other clusters' silent watches show in their
   * {@link #clusterHealth(String) health} ({@code UNREACHABLE}) and their targets' status.
   */
  public List<StalledWatch> stalledWatches() {
    return registry.stalledWatches();
  }

  /** The status the target's last reconcile computed. */
  public Optional<TargetStatus> status(TargetId id) {
    TargetRuntime rt = targets.get(id);
    return rt == null ? Optional.empty() : Optional.ofNullable(rt.status);
  }

  /**
   * The current records of every target, kept in memory whether or not this instance exports
   * (standbys serve it too).
   */
  public InventoryView inventory() {
    return views;
  }

  /**
   * Waits until no target is queued or being reconciled and every sink has delivered what it was
   * handed. Targets parked for a later retry do not count. Meant for tests and orderly hand-over.
   */
  public boolean awaitIdle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      // Delivery can make nothing new to reconcile, but a reconcile can hand over new records:
      // check both until they agree.
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !queue.awaitIdle(Duration.ofNanos(left))) {
          return false;
        }
        left = deadline - System.nanoTime();
        if (left <= 0 || !exporter.awaitIdle(Duration.ofNanos(left))) {
          return false;
        }
        if (queue.isIdle() && targets.nothingDirty()) {
          return true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Stops the workers (a reconcile in progress finishes), releases every lease, stops the
   * informers and closes the exporter, which delivers what is pending for its close timeout and
   * closes the sinks. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    workers.stop();
    targets.all().forEach(reconciler::close);
    deliveryRefresh.close();
    shadows.close();
    if (accessDecisions != null) {
      accessDecisions.close();
    }
    try {
      clusters.close();
      registry.close();
    } finally {
      exporter.close();
    }
  }

  // ---- other clusters ------------------------------------------------------------------------

  /**
   * Re-opens the cluster: its credentials or address changed. The old client is released, a new
   * one opened and its informers re-established; targets converge sending nothing that did not
   * change. Does nothing when no target reads the cluster.
   */
  public void clusterChanged(String cluster) {
    requireName(cluster, "cluster");
    ensureOpen();
    if (clusters.changed(cluster)) {
      clusterHealthChanged(cluster);
    }
  }

  /**
   * The health of the engine's connection to {@code cluster}, while a target reads it; empty
   * before anything is known (just opened) and for a cluster no target reads.
   */
  public Optional<ClusterHealth> clusterHealth(String cluster) {
    return clusters.health(cluster);
  }

  /** The health of every cluster some target reads, the engine's own included (first). */
  public List<ClusterHealth> clusterHealth() {
    return clusters.health();
  }

  /**
   * Registers a listener for cluster health changes and releases. It hears a cluster's health
   * when its state, reason, message, server version or watched types change (open watches and
   * the last contact time move on their own and are read with {@link #clusterHealth(String)}).
   */
  public void addClusterHealthListener(ClusterHealthListener listener) {
    clusters.addListener(listener);
  }

  /** Re-runs every unit of the cluster: its connection changed state or was re-opened. */
  private void clusterHealthChanged(String cluster) {
    targets.reading(cluster).forEach(this::fullPass);
  }

  // ---- safe change: forced passes, suspended sinks, circuits, shadow profiles -----------------

  /**
   * Queues a full pass of the target now, as a host does for Flux's {@code
   * reconcile.fluxcd.io/requestedAt}-style annotation; also closes its circuit for one attempt.
   */
  public void requestFullPass(TargetId id) {
    fullPass(id); // also gives an open circuit its attempt now
  }

  /**
   * Pauses or resumes a sink: while suspended nothing is handed to it and targets naming it say
   * so; on resume it receives only what changed meanwhile.
   */
  public void setSinkSuspended(String sink, boolean suspended) {
    requireName(sink, "sink name");
    ensureOpen();
    if (exporter.isSinkSuspended(sink) == suspended) {
      return;
    }
    exporter.setSinkSuspended(sink, suspended);
    // Their status names the suspended sink (Ready reason Suspended) or stops naming it.
    index.referencingSink(sink).forEach(queue::add);
  }

  /** Whether the sink is suspended ({@link #setSinkSuspended}). */
  public boolean isSinkSuspended(String sink) {
    return exporter.isSinkSuspended(sink);
  }

  /** How many targets' circuits are open now (for a metric). */
  public int openCircuits() {
    return workers.openCircuits();
  }

  /**
   * Evaluates {@code candidate} beside profile {@code name} for every target that uses it, over
   * the same cached objects, delivering nothing of it; {@link #shadowDiff} reports the difference.
   * Replaces an earlier candidate of the profile.
   */
  public void putShadowProfile(String name, ProfileSpec candidate) {
    requireName(name, "profile name");
    Objects.requireNonNull(candidate, "candidate");
    ensureOpen();
    shadows.put(name, candidate);
    shadowError(name).ifPresent(e -> LOG.warn("candidate of profile {}: {}", name, e));
  }

  /**
   * Why the profile's candidate cannot be evaluated (its validation message), when it is
   * invalid; such a candidate is kept, evaluates nothing and {@link #shadowDiff} stays empty.
   */
  public Optional<String> shadowError(String name) {
    return shadows.error(name);
  }

  /** Stops evaluating the profile's candidate and releases the leases it held. */
  public void removeShadowProfile(String name) {
    shadows.remove(name);
  }

  /**
   * The difference between the profile's candidate and what its targets deliver, summed over
   * those targets (and their clusters); empty when no candidate is set or it is not yet
   * evaluated.
   */
  public Optional<ProfileDiff> shadowDiff(String name) {
    return shadows.diff(name);
  }

  // ---- package-private hooks for tests ---------------------------------------------------------

  /** How many reconciles of the target ran (including ones that waited for sync). */
  long reconcileCount(TargetId id) {
    return targets.reconcileCount(id);
  }

  /** How many leases the candidate of the profile holds (over all its targets). */
  int shadowLeaseCount(String profile) {
    return shadows.leaseCount(profile);
  }

  int informerCount() {
    return registry.informerCount();
  }

  /** How many objects the target's reconciles actually extracted (memo misses). */
  long extractionCount(TargetId id) {
    return targets.extractionCount(id);
  }

  /** Re-asks every cached access question now, as the periodic re-check does. */
  void recheckAccess() {
    if (accessDecisions != null) {
      accessDecisions.recheckAll();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("engine is closed");
    }
  }

  static void requireName(String name, String what) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(what + ": must not be blank");
    }
  }
}

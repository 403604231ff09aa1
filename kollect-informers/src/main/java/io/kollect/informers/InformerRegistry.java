package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared dynamic informers for one cluster, handed out as {@link InformerLease leases}.
 *
 * <p>Informers are shared by every lease of a type, by one rule: one cluster-wide informer when any
 * lease reads all namespaces or the union of the leases' namespaces is larger than
 * {@link InformerOptions#clusterWideThreshold()}, otherwise one per namespace of that union; per
 * readable namespace when cluster-wide list/watch is forbidden. Leases filter further by
 * namespace, label selector and name when reading and when receiving events. When the last lease
 * of a type is closed its informers stop after {@link InformerOptions#releaseGrace()} and their
 * cache is released; a new lease within the grace period reuses them.
 *
 * <p>Before watching, the registry asks the API server (discovery, then SelfSubjectAccessReview
 * for list and watch) what it may read, and reports what it cannot through {@link LeaseStatus}:
 * {@code notServed} types start by themselves when their CRD appears, forbidden scopes are
 * re-checked every {@link InformerOptions#forbiddenRetry()}.
 *
 * <p>{@link #lease} never blocks on the API server: planning runs on one background thread, and
 * the lease reports {@link InformerLease#hasSynced()} (and {@link LeaseListener#onStatusChange})
 * once its informers have listed.
 */
public final class InformerRegistry implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InformerRegistry.class);
  private static final Duration LIVENESS_CHECK = Duration.ofSeconds(1);
  static final ResourceDefinitionContext CRD_CONTEXT = new ResourceDefinitionContext.Builder()
      .withGroup("apiextensions.k8s.io")
      .withVersion("v1")
      .withKind("CustomResourceDefinition")
      .withPlural("customresourcedefinitions")
      .withNamespaced(false)
      .build();

  private final KubernetesClient client;
  private final InformerOptions options;
  private final ApiDiscovery discovery;
  private final AccessReview access;
  private final ScheduledExecutorService planner;
  private final Map<ResourceType, TypeState> types = new ConcurrentHashMap<>();
  private final AtomicInteger informers = new AtomicInteger();
  private final AtomicLong projectionVersions = new AtomicLong();
  private volatile boolean closed;
  /** The last failed planning request, {@code null} after one that worked. */
  private volatile HealthTally.PlanFailure planFailure;
  private volatile long lastPlannedMillis;
  /** Open watches last reported to the metrics (planner thread). */
  private int reportedOpenWatches = -1;

  /** How the registry notices types that become served; planner thread only. */
  private enum TypeWatchMode { NONE, CRD_WATCH, POLLING }

  private TypeWatchMode typeWatchMode = TypeWatchMode.NONE;
  private volatile SharedIndexInformer<GenericKubernetesResource> crdInformer;
  private volatile WatchLiveness crdLiveness;
  static final ResourceType CRD_TYPE = new ResourceType("apiextensions.k8s.io", "v1",
      "CustomResourceDefinition");

  /**
   * Creates a registry; nothing is watched until the first lease.
   *
   * @param client the cluster's client (the registry does not close it)
   * @param options settings
   * @throws IllegalArgumentException naming the option that is invalid
   */
  public InformerRegistry(KubernetesClient client, InformerOptions options) {
    this.options = validate(options);
    this.client = withRequestTimeout(Objects.requireNonNull(client, "client"), this.options);
    this.discovery = new ApiDiscovery(client);
    this.access = new AccessReview(client);
    this.planner = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kollect-informers-" + options.cluster());
      t.setDaemon(true);
      return t;
    });
    // a stall is a matter of time passing without news, so it is checked on a clock
    planner.scheduleWithFixedDelay(() -> safely(this::checkLiveness),
        LIVENESS_CHECK.toMillis(), LIVENESS_CHECK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Every request the registry makes (discovery, access reviews, list pages) must end: a client
   * configured without a request timeout gets one of a liveness window for the registry's use.
   */
  private static KubernetesClient withRequestTimeout(KubernetesClient client, InformerOptions o) {
    Config config = client.getConfiguration();
    if (config == null || config.getRequestTimeout() == null || config.getRequestTimeout() > 0) {
      return client;
    }
    RequestConfig bounded = new RequestConfigBuilder(config.getRequestConfig())
        .withRequestTimeout((int) o.watchLiveness().toMillis())
        .build();
    log.info("The Kubernetes client has no request timeout; the informers use {}", o.watchLiveness());
    return client.newClient(bounded).adapt(KubernetesClient.class);
  }

  private static InformerOptions validate(InformerOptions o) {
    if (o == null) {
      throw new IllegalArgumentException("options: must not be null");
    }
    if (o.cluster() == null || o.cluster().isBlank()) {
      throw new IllegalArgumentException("options.cluster: must not be empty");
    }
    requireNonNegative(o.resyncPeriod(), "options.resyncPeriod");
    requireNonNegative(o.releaseGrace(), "options.releaseGrace");
    requirePositive(o.forbiddenRetry(), "options.forbiddenRetry");
    requirePositive(o.discoveryInterval(), "options.discoveryInterval");
    if (o.metrics() == null) {
      throw new IllegalArgumentException("options.metrics: must not be null (use InformerMetrics.noop())");
    }
    Duration w = o.watchLiveness();
    if (w == null || w.compareTo(Duration.ofSeconds(1)) < 0 || w.toMillis() % 1000 != 0) {
      throw new IllegalArgumentException("options.watchLiveness: must be a whole number of seconds, "
          + "at least 1 s (the API server's timeoutSeconds), was " + w);
    }
    if (o.clusterWideThreshold() < 0) {
      throw new IllegalArgumentException("options.clusterWideThreshold: must be zero or positive, was "
          + o.clusterWideThreshold());
    }
    if (o.listPageSize() < 1) {
      throw new IllegalArgumentException("options.listPageSize: must be at least 1, was " + o.listPageSize());
    }
    return o;
  }

  private static void requireNonNegative(Duration d, String field) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException(field + ": must be zero or positive, was " + d);
    }
  }

  private static void requirePositive(Duration d, String field) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + ": must be positive, was " + d);
    }
  }

  /**
   * Leases {@code request.type()} in the request's scope. Returns at once; the lease syncs in the
   * background. Events for objects in scope go to {@code listener}; read the initial state with
   * {@link InformerLease#list()} once the lease has synced.
   *
   * @throws IllegalArgumentException naming the request field that is invalid
   * @throws IllegalStateException when the registry is closed
   */
  public InformerLease lease(LeaseRequest request, LeaseListener listener) {
    Objects.requireNonNull(listener, "listener");
    LabelSelectorMatcher selector = validate(request);
    if (closed) {
      throw new IllegalStateException("InformerRegistry for cluster " + options.cluster() + " is closed");
    }
    LeaseHandle[] created = new LeaseHandle[1];
    TypeState state = types.compute(request.type(), (type, existing) -> {
      TypeState s = existing == null ? new TypeState(this, type) : existing;
      created[0] = new LeaseHandle(s, request, listener, selector);
      s.join(created[0]);
      return s;
    });
    state.schedulePlan();
    return created[0];
  }

  private static LabelSelectorMatcher validate(LeaseRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("request: must not be null");
    }
    ResourceType t = request.type();
    if (t == null) {
      throw new IllegalArgumentException("request.type: must not be null");
    }
    if (t.version() == null || t.version().isBlank()) {
      throw new IllegalArgumentException("request.type.version: must not be empty");
    }
    if (t.kind() == null || t.kind().isBlank()) {
      throw new IllegalArgumentException("request.type.kind: must not be empty");
    }
    for (String ns : request.namespaces()) {
      if (ns == null || ns.isBlank() || ScopePlanner.ALL.equals(ns)) {
        throw new IllegalArgumentException("request.namespaces: invalid namespace '" + ns
            + "' (leave the set empty for all namespaces)");
      }
    }
    if (request.keepPaths() != null) {
      List<List<String>> paths = request.keepPaths();
      for (int i = 0; i < paths.size(); i++) {
        List<String> path = paths.get(i);
        if (path.isEmpty() || path.stream().anyMatch(k -> k == null || k.isEmpty())) {
          throw new IllegalArgumentException("request.keepPaths[" + i + "]: must be a non-empty list of non-empty keys, was " + path);
        }
      }
    }
    LabelSelector selector = request.labelSelector();
    try {
      return LabelSelectorMatcher.compile(selector, "labelSelector");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("request." + e.getMessage(), e);
    }
  }

  /**
   * What the active informers' stores hold, one element per cached object, as held (compact or
   * not): for measuring the cache's memory.
   */
  java.util.List<Object> heldObjects() {
    java.util.List<Object> out = new java.util.ArrayList<>();
    for (TypeState s : types.values()) {
      s.forEachActiveStore(store -> out.addAll(store.held()));
    }
    return out;
  }

  /** Whether every lease has synced (types not served or wholly forbidden count as synced). */
  public boolean allSynced() {
    for (TypeState s : types.values()) {
      for (LeaseHandle l : s.leases()) {
        if (!l.hasSynced()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Watches that are dead or silent past the liveness window, all types: what readiness and
   * status should report. Empty when every watch delivers.
   */
  public List<StalledWatch> stalledWatches() {
    Instant now = Instant.now();
    List<StalledWatch> out = new ArrayList<>();
    for (TypeState s : types.values()) {
      out.addAll(s.stalledWatches(now));
    }
    WatchLiveness crd = crdLiveness;
    WatchLiveness.Stall stall = crd == null ? null : crd.stalled(now);
    if (stall != null) {
      // new custom resource types go unnoticed while it lasts
      out.add(new StalledWatch(CRD_TYPE, ScopePlanner.ALL, stall.silentSince(), stall.reason()));
    }
    return out;
  }

  private void checkLiveness() {
    WatchLiveness crd = crdLiveness;
    if (crd != null) {
      crd.enforce(Instant.now());
    }
    types.values().forEach(TypeState::checkLiveness);
    int open = connectionHealth().openWatches();
    if (open != reportedOpenWatches) {
      reportedOpenWatches = open;
      options.metrics().openWatches(open);
    }
  }

  /**
   * What the informers show of the connection now: unauthorized (HTTP 401), unreachable (no
   * answer, or a watch silent past its liveness window plus grace, so a blackholed cluster shows
   * within two windows), every type forbidden, or fine; with the watched types, the open watches
   * and the last sign of life. O(informers); any thread.
   */
  public ConnectionHealth connectionHealth() {
    Instant now = Instant.now();
    HealthTally tally = new HealthTally();
    for (TypeState s : types.values()) {
      s.tallyHealth(tally, now);
    }
    tally.planning(planFailure, lastPlannedMillis);
    return tally.result();
  }

  /** A plan's API calls worked ({@code failure} null) or failed (planner thread). */
  void planned(KubernetesClientException failure) {
    if (failure == null) {
      planFailure = null;
      lastPlannedMillis = System.currentTimeMillis();
    } else {
      Throwable t = failure.getCause() != null && failure.getCode() == 0 ? failure.getCause()
          : failure;
      planFailure = new HealthTally.PlanFailure(failure.getCode(), WatchLiveness.describe(t));
    }
  }

  /** Running informers for leased types (per namespace when split; briefly more while re-planning). */
  public int informerCount() {
    return informers.get();
  }

  /** Stops every informer and the planner. Leases become empty. Does not close the client. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    planner.shutdownNow();
    try {
      if (!planner.awaitTermination(5, TimeUnit.SECONDS)) {
        log.warn("Informer planner for cluster {} did not stop within 5 s", options.cluster());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    types.values().forEach(TypeState::stopAll);
    types.clear();
    SharedIndexInformer<GenericKubernetesResource> crd = crdInformer;
    if (crd != null) {
      crd.stop();
    }
    options.metrics().openWatches(0);
  }

  // ---------------------------------------------------------------- package-private plumbing

  KubernetesClient client() {
    return client;
  }

  InformerOptions options() {
    return options;
  }

  ApiDiscovery discovery() {
    return discovery;
  }

  AccessReview access() {
    return access;
  }

  boolean isClosed() {
    return closed;
  }

  /** A projection version no type of this registry has used. */
  long nextProjectionVersion() {
    return projectionVersions.incrementAndGet();
  }

  void onPlanner(Runnable task) {
    if (closed) {
      return;
    }
    try {
      planner.execute(() -> safely(task));
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  ScheduledFuture<?> schedule(Runnable task, Duration delay) {
    try {
      return planner.schedule(() -> safely(task), delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  private void safely(Runnable task) {
    if (closed) {
      return;
    }
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("Informer planning task failed", e);
    }
  }


  /** Removes {@code state} if no lease joined meanwhile (atomic with {@link #lease}). */
  boolean removeIfUnused(TypeState state) {
    boolean[] removed = {false};
    types.computeIfPresent(state.type, (type, existing) -> {
      if (existing == state && !existing.hasLeases()) {
        existing.markRemoved();
        removed[0] = true;
        return null;
      }
      return existing;
    });
    return removed[0];
  }

  void informerStarted(ResourceType type) {
    informers.incrementAndGet();
    options.metrics().informers(1);
  }

  void informerStopped(ResourceType type) {
    informers.decrementAndGet();
    options.metrics().informers(-1);
  }

  /**
   * Makes sure the registry notices types that become served: by watching CRDs when allowed
   * (event-driven), else by re-running discovery every {@link InformerOptions#discoveryInterval()}
   * for the types that are not served. Planner thread.
   */
  void watchForNewTypes() {
    if (typeWatchMode != TypeWatchMode.NONE) {
      return;
    }
    AccessReview.Decision d;
    try {
      d = access.listWatch(CRD_CONTEXT.getGroup(), CRD_CONTEXT.getPlural(), null);
    } catch (KubernetesClientException e) {
      d = new AccessReview.Decision(false, e.getMessage());
    }
    if (d.allowed()) {
      typeWatchMode = TypeWatchMode.CRD_WATCH;
      WatchLiveness liveness = new WatchLiveness(options.watchLiveness(), java.time.Clock.systemUTC(),
          reason -> {
            options.metrics().watchRestarted(CRD_TYPE, reason);
            if (!InformerMetrics.RESTART_TIMEOUT.equals(reason)) {
              options.metrics().watchRestart(CRD_TYPE);
            }
          });
      // the registry needs only which group a CRD belongs to
      ObjectProjection groupAndKind = ObjectProjection.of(
          List.of(List.of("spec", "group"), List.of("spec", "names", "kind")));
      SharedIndexInformer<GenericKubernetesResource> informer = LivenessListerWatcher.informer(
          client.genericKubernetesResources(CRD_CONTEXT).inAnyNamespace(), liveness,
          options.listPageSize(), 0, null, groupAndKind); // discovery needs every CRD, sharded or not
      crdLiveness = liveness;
      informer.itemStore(new TrimmingItemStore(groupAndKind));
      informer.removeNamespaceIndex(); // CRDs are cluster-scoped; nothing reads them by namespace
      informer.addEventHandler(new ResourceEventHandler<>() {
        @Override
        public void onAdd(GenericKubernetesResource crd) {
          onCrdChange(crd);
        }

        @Override
        public void onUpdate(GenericKubernetesResource oldCrd, GenericKubernetesResource crd) {
          onCrdChange(crd);
        }

        @Override
        public void onDelete(GenericKubernetesResource crd, boolean deletedFinalStateUnknown) {
          onCrdChange(crd);
        }
      });
      informer.exceptionHandler((isStarted, t) -> !closed);
      crdInformer = informer;
      informer.start();
      log.info("Watching CustomResourceDefinitions to notice types that become served");
    } else {
      typeWatchMode = TypeWatchMode.POLLING;
      long every = options.discoveryInterval().toMillis();
      planner.scheduleWithFixedDelay(() -> safely(this::recheckNotServed), every, every,
          TimeUnit.MILLISECONDS);
      log.info("Cannot watch CustomResourceDefinitions ({}); re-checking discovery every {} for types not served",
          d.detail(), options.discoveryInterval());
    }
  }

  private void onCrdChange(GenericKubernetesResource crd) {
    Object spec = crd.getAdditionalProperties().get("spec");
    Object group = spec instanceof Map<?, ?> m ? m.get("group") : null;
    if (group == null) {
      return;
    }
    for (TypeState s : types.values()) {
      if (s.type.group().equals(group)) {
        s.typeChanged();
      }
    }
  }

  private void recheckNotServed() {
    for (TypeState s : types.values()) {
      if (s.notServed()) {
        s.rediscover();
      }
    }
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.kollect.informers.ApiDiscovery.TypeInfo;
import io.kollect.informers.InformerHandle.Phase;
import io.kollect.informers.LeaseStatus.Skipped;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the registry knows about one resource type: its leases, what discovery and RBAC
 * said, and the informers that currently serve it.
 *
 * <p>Threading: every state change happens in {@link #plan()} and the callbacks it schedules, all
 * on the registry's single planner thread, so no lock is needed and none is ever held across an
 * API call. Informer threads only read the volatile snapshots ({@link #active}, ...) to filter and
 * deliver events; lease readers do the same.
 */
final class TypeState {

  static final String ALL = "*";
  /** How long a replaced informer keeps delivering after its successor took over. */
  static final Duration DRAIN = Duration.ofSeconds(2);
  private static final int MAX_FOLLOW_UPS = 5;
  private static final Logger log = LoggerFactory.getLogger(TypeState.class);

  final InformerRegistry registry;
  final ResourceType type;
  final Set<LeaseHandle> leases = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean planQueued = new AtomicBoolean();

  /** Set by anything that suspects discovery changed; the next plan re-resolves the type. */
  volatile boolean rediscover = true;
  /** Set when a CRD event hinted at a change; bounded re-checks follow if discovery lags. */
  volatile boolean typeEventHint;
  volatile boolean removed;

  // written on the planner thread only, read anywhere
  private volatile TypeInfo info;
  private volatile Map<String, InformerHandle> active = Map.of();
  private volatile Map<String, InformerHandle> pendingView = Map.of();
  private volatile List<Skipped> skipped = List.of();
  /** The projection of the active informers' caches ({@code null}: none), and its version. */
  private volatile ObjectProjection activeProjection;
  private volatile long projectionVersion;
  final Set<InformerHandle> draining = ConcurrentHashMap.newKeySet();

  // planner thread only
  private final Map<String, InformerHandle> pending = new HashMap<>();
  private Set<String> desiredKeys = Set.of();
  private ScheduledFuture<?> graceStop;
  private ScheduledFuture<?> retry;
  private int followUpsLeft;
  private int failures;

  TypeState(InformerRegistry registry, ResourceType type) {
    this.registry = registry;
    this.type = type;
  }

  // ---------------------------------------------------------------- planning (planner thread)

  void schedulePlan() {
    if (!removed && planQueued.compareAndSet(false, true)) {
      registry.onPlanner(this::plan);
    }
  }

  /** Brings informers in line with the current leases, discovery and RBAC. */
  void plan() {
    planQueued.set(false);
    if (removed || registry.isClosed()) {
      return;
    }
    List<LeaseHandle> snapshot = List.copyOf(leases);
    if (snapshot.isEmpty()) {
      if (graceStop == null) {
        graceStop = registry.schedule(this::graceExpired, registry.options().releaseGrace());
      }
      return;
    }
    if (graceStop != null) {
      graceStop.cancel(false);
      graceStop = null;
    }
    try {
      planServed(snapshot);
      failures = 0;
    } catch (KubernetesClientException e) {
      // discovery or access review failed (API server unreachable or busy): nothing was changed,
      // what runs keeps running; try again with a growing delay
      rediscover = true;
      Duration delay = Duration.ofMillis(Math.min(30_000L, 500L << Math.min(failures, 6)));
      failures++;
      log.warn("Planning informers for {} failed (HTTP {}), retrying in {}: {}", type,
          e.getCode(), delay, e.getMessage());
      registry.options().metrics().listWatchError(type);
      retryIn(delay, true);
      publishStatuses();
      return;
    }
    snapshot.forEach(l -> l.planned = true);
    publishStatuses();
  }

  /** Plans from fresh discovery and access answers; changes nothing if an API call fails. */
  private void planServed(List<LeaseHandle> snapshot) {
    TypeInfo current = info;
    boolean fromEvent = false;
    if (current == null || rediscover) {
      rediscover = false;
      fromEvent = typeEventHint;
      typeEventHint = false;
      current = registry.discovery().resolve(type);
    }
    if (!current.served()) {
      if (fromEvent) {
        followUpsLeft = MAX_FOLLOW_UPS;
      }
      info = current;
      goNotServed(current.detail());
      registry.watchForNewTypes();
      if (followUpsLeft > 0) {
        // a CRD changed but discovery does not show the type yet (it lags establishment a
        // little): look again a few times with growing delays, then wait for the next event
        followUpsLeft--;
        retryIn(Duration.ofMillis(250L << (MAX_FOLLOW_UPS - followUpsLeft)), true);
      }
      return;
    }
    followUpsLeft = 0;
    boolean allNamespaces = !current.namespaced()
        || snapshot.stream().anyMatch(l -> l.request().namespaces().isEmpty());
    List<Skipped> skip = new ArrayList<>();
    Set<String> keys = new LinkedHashSet<>();
    AccessReview access = registry.access();
    if (allNamespaces) {
      AccessReview.Decision cluster = access.listWatch(type.group(), current.plural(), null);
      if (cluster.allowed()) {
        keys.add(ALL);
      } else if (!current.namespaced()) {
        skip.add(new Skipped(ALL, Skipped.FORBIDDEN, cluster.detail()));
      } else {
        // per namespace: the ones leases name explicitly, plus every namespace if we may list them
        Set<String> candidates = new TreeSet<>();
        snapshot.forEach(l -> candidates.addAll(l.request().namespaces()));
        var namespaces = access.namespaceNames();
        if (namespaces.isPresent()) {
          candidates.addAll(namespaces.get());
        } else {
          skip.add(new Skipped(ALL, Skipped.FORBIDDEN, cluster.detail()
              + ", and namespaces cannot be listed to find readable ones"));
        }
        checkNamespaces(candidates, current, keys, skip);
      }
    } else {
      Set<String> union = new TreeSet<>();
      snapshot.forEach(l -> union.addAll(l.request().namespaces()));
      checkNamespaces(union, current, keys, skip);
    }
    info = current;
    applyDesired(keys, projectionFor(snapshot));
    skipped = List.copyOf(skip);
    if (!skip.isEmpty()) {
      retryIn(registry.options().forbiddenRetry());
    }
  }

  private void checkNamespaces(Iterable<String> namespaces, TypeInfo current, Set<String> keys,
      List<Skipped> skip) {
    for (String ns : namespaces) {
      AccessReview.Decision d = registry.access().listWatch(type.group(), current.plural(), ns);
      if (d.allowed()) {
        keys.add(ns);
      } else {
        skip.add(new Skipped(ns, Skipped.FORBIDDEN, d.detail()));
      }
    }
  }

  private static ObjectProjection projectionFor(List<LeaseHandle> snapshot) {
    List<List<String>> paths = new ArrayList<>();
    for (LeaseHandle l : snapshot) {
      if (l.request().keepPaths() == null) {
        return ObjectProjection.full();
      }
      paths.addAll(l.request().keepPaths());
    }
    return ObjectProjection.of(paths);
  }

  /**
   * Starts informers for scopes (or store shapes) not served yet; the active set switches over
   * only when all of them have synced, so leases that stay never see a gap.
   */
  private void applyDesired(Set<String> keys, ObjectProjection projection) {
    desiredKeys = Set.copyOf(keys);
    for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
      InformerHandle p = it.next().getValue();
      if (!keys.contains(p.scope) || !p.projection.equals(projection)) {
        stopHandle(p);
        it.remove();
      }
    }
    Map<String, InformerHandle> current = active;
    for (String key : keys) {
      InformerHandle a = current.get(key);
      if ((a != null && a.projection.equals(projection)) || pending.containsKey(key)) {
        continue;
      }
      pending.put(key, startHandle(key, projection));
    }
    pendingView = Map.copyOf(pending);
    promoteIfReady();
  }

  private InformerHandle startHandle(String scope, ObjectProjection projection) {
    TypeInfo current = info;
    ResourceDefinitionContext context = new ResourceDefinitionContext.Builder()
        .withGroup(type.group())
        .withVersion(type.version())
        .withKind(type.kind())
        .withPlural(current.plural())
        .withNamespaced(current.namespaced())
        .build();
    InformerHandle h = new InformerHandle(this, registry.client(), context, scope, projection,
        registry.options());
    registry.informerStarted(type);
    log.debug("Starting informer for {} ({})", h, projection);
    h.start().whenComplete((v, t) -> registry.onPlanner(() -> onStarted(h, t)));
    return h;
  }

  private void onStarted(InformerHandle h, Throwable failure) {
    if (failure != null || h.stopped) {
      return;
    }
    h.synced = true;
    promoteIfReady();
    publishStatuses();
  }

  private void promoteIfReady() {
    for (InformerHandle p : pending.values()) {
      if (!p.synced) {
        return;
      }
    }
    Map<String, InformerHandle> old = active;
    Map<String, InformerHandle> next = new LinkedHashMap<>();
    for (String key : desiredKeys) {
      InformerHandle h = pending.containsKey(key) ? pending.get(key) : old.get(key);
      if (h != null) {
        h.phase = Phase.ACTIVE;
        next.put(key, h);
      }
    }
    if (next.equals(old) && pending.isEmpty()) {
      return;
    }
    pending.clear();
    pendingView = Map.of();
    active = Map.copyOf(next);
    noteProjection(next.isEmpty() ? null : next.values().iterator().next().projection);
    List<InformerHandle> retired = new ArrayList<>();
    for (InformerHandle h : old.values()) {
      if (next.get(h.scope) != h) {
        h.phase = Phase.RETIRED;
        retired.add(h);
      }
    }
    if (!retired.isEmpty()) {
      draining.addAll(retired);
      registry.schedule(() -> retired.forEach(h -> {
        draining.remove(h);
        stopHandle(h);
      }), DRAIN);
    }
    reportCachedObjects();
  }

  private void goNotServed(String detail) {
    pending.values().forEach(this::stopHandle);
    pending.clear();
    pendingView = Map.of();
    desiredKeys = Set.of();
    Map<String, InformerHandle> old = active;
    active = Map.of();
    noteProjection(null);
    for (InformerHandle h : old.values()) {
      h.phase = Phase.RETIRED;
      stopHandle(h);
      // the type is gone: whatever the cache still held no longer exists for consumers
      h.store.values().forEach(obj -> deliver(null, ResourceEvent.Kind.DELETED, obj, null));
    }
    skipped = List.of(new Skipped(ALL, Skipped.NOT_SERVED, detail));
    if (!old.isEmpty()) {
      log.info("{} is no longer served; stopped its informers", type);
      reportCachedObjects();
    }
  }

  /**
   * Every informer of the active set has the same projection (a change of projection replaces
   * them all); a new one gets a new version, never used before by any type of this registry.
   */
  private void noteProjection(ObjectProjection projection) {
    if (!Objects.equals(projection, activeProjection)) {
      activeProjection = projection;
      projectionVersion = registry.nextProjectionVersion();
    }
  }

  private void retryIn(Duration delay) {
    retryIn(delay, true);
  }

  private void retryIn(Duration delay, boolean rediscoverThen) {
    if (retry != null && !retry.isDone()) {
      if (retry.getDelay(TimeUnit.MILLISECONDS) <= delay.toMillis()) {
        return;
      }
      retry.cancel(false);
    }
    retry = registry.schedule(() -> {
      retry = null;
      if (rediscoverThen && (info == null || !info.served())) {
        rediscover = true;
      }
      schedulePlan();
    }, delay);
  }

  private void graceExpired() {
    graceStop = null;
    if (!leases.isEmpty() || !registry.removeIfUnused(this)) {
      return;
    }
    stopAll();
    log.debug("Released {}: no lease left after the grace period", type);
  }

  /** Stops every informer of this type (registry close, or last lease gone). Any thread. */
  void stopAll() {
    removed = true;
    if (retry != null) {
      retry.cancel(false);
    }
    active.values().forEach(this::stopHandle);
    pendingView.values().forEach(this::stopHandle);
    draining.forEach(this::stopHandle);
    active = Map.of();
    pendingView = Map.of();
    draining.clear();
    registry.options().metrics().cachedObjects(type, 0);
  }

  private void stopHandle(InformerHandle h) {
    synchronized (h) {
      if (h.stopped) {
        return;
      }
      h.stop();
    }
    registry.informerStopped(type);
  }

  // ---------------------------------------------------------------- status

  void publishStatuses() {
    for (LeaseHandle l : leases) {
      LeaseStatus s = statusFor(l);
      if (!s.equals(l.lastPublished)) {
        l.lastPublished = s;
        l.notifyStatus(s);
      }
    }
  }

  LeaseStatus statusFor(LeaseHandle l) {
    TypeInfo i = info;
    long version = projectionVersion;
    if (!l.planned) {
      return new LeaseStatus(type, i == null || i.served(), false, List.of(), version, List.of());
    }
    if (i != null && !i.served()) {
      // nothing can be read, and waiting would block readiness forever: count as synced
      return new LeaseStatus(type, false, true, skipped, version, List.of());
    }
    Map<String, InformerHandle> a = active;
    Map<String, InformerHandle> p = pendingView;
    Set<String> keys = new HashSet<>(a.keySet());
    keys.addAll(p.keySet());
    boolean synced = true;
    List<LeaseStatus.Stalled> stalled = new ArrayList<>();
    Instant now = Instant.now();
    for (String key : keys) {
      if (relevant(key, l)) {
        InformerHandle h = a.get(key);
        // reads come from the active informer: it must have listed, and keep what the lease reads
        synced &= h != null && h.synced && l.coveredBy(h.projection);
        InformerHandle watching = p.getOrDefault(key, h);
        WatchLiveness.Stall stall = watching == null ? null : watching.liveness.stalled(now);
        if (stall != null) {
          stalled.add(new LeaseStatus.Stalled(key, stall.silentSince(), stall.reason()));
        }
      }
    }
    List<Skipped> mine = skipped.stream().filter(s -> relevantSkip(s, l, i)).toList();
    return new LeaseStatus(type, true, synced, mine, version, stalled);
  }

  /** Watches of this type silent past the liveness window (active and starting informers). */
  List<StalledWatch> stalledWatches(Instant now) {
    List<StalledWatch> out = new ArrayList<>();
    Map<String, InformerHandle> running = new LinkedHashMap<>(active);
    running.putAll(pendingView);
    running.forEach((key, h) -> {
      WatchLiveness.Stall stall = h.stopped ? null : h.liveness.stalled(now);
      if (stall != null) {
        out.add(new StalledWatch(type, key, stall.silentSince(), stall.reason()));
      }
    });
    return out;
  }

  /**
   * A cluster-wide "forbidden" concerns only leases that read all namespaces (or cluster-scoped
   * types); a lease limited to namespaces sees the entries of its own namespaces.
   */
  private static boolean relevantSkip(Skipped s, LeaseHandle l, TypeInfo i) {
    if (ALL.equals(s.namespace())) {
      return Skipped.NOT_SERVED.equals(s.reason()) || l.request().namespaces().isEmpty()
          || (i != null && !i.namespaced());
    }
    return relevant(s.namespace(), l);
  }

  private static boolean relevant(String scope, LeaseHandle l) {
    Set<String> namespaces = l.request().namespaces();
    return ALL.equals(scope) || namespaces.isEmpty() || namespaces.contains(scope);
  }

  boolean notServed() {
    TypeInfo i = info;
    return i != null && !i.served();
  }

  // ---------------------------------------------------------------- reads and events

  /**
   * The newest cached state of one object in the lease's scope, from an informer that keeps every
   * path the lease reads: the active one, or while the type is still listing for the first time,
   * the one that is listing. {@code null} when not cached (or not in scope).
   */
  GenericKubernetesResource get(LeaseHandle l, String namespace, String name) {
    String key = namespace == null ? name : namespace + "/" + name;
    for (Map<String, InformerHandle> handles : List.of(active, pendingView)) {
      InformerHandle h = handles.get(ALL);
      if (h == null && namespace != null) {
        h = handles.get(namespace);
      }
      if (h != null && !h.stopped && l.coveredBy(h.projection)) {
        GenericKubernetesResource obj = h.store.get(key);
        return obj != null && l.accepts(obj) ? obj : null;
      }
    }
    return null;
  }

  List<GenericKubernetesResource> read(LeaseHandle l) {
    Map<String, InformerHandle> a = active;
    List<GenericKubernetesResource> out = new ArrayList<>();
    Set<String> namespaces = l.request().namespaces();
    for (Map.Entry<String, InformerHandle> e : a.entrySet()) {
      if (!relevant(e.getKey(), l)) {
        continue;
      }
      InformerHandle h = e.getValue();
      if (!l.coveredBy(h.projection)) {
        // a wider lease waits for the informer that keeps its paths: no half objects
        continue;
      }
      TypeInfo i = info;
      if (ALL.equals(e.getKey()) && !namespaces.isEmpty() && i != null && i.namespaced()) {
        for (String ns : namespaces) {
          for (GenericKubernetesResource obj : h.informer.getIndexer().byIndex(Cache.NAMESPACE_INDEX, ns)) {
            if (l.accepts(obj)) {
              out.add(obj);
            }
          }
        }
      } else {
        h.store.values().filter(l::accepts).forEach(out::add);
      }
    }
    return out;
  }

  /**
   * Called on informer threads. {@code previous} is the old state of an update (else {@code null}):
   * a lease whose scope held the old state but not the new one (labels changed) must still hear
   * of it, or it would never learn the object left its scope.
   */
  void onInformerEvent(InformerHandle h, ResourceEvent.Kind kind, GenericKubernetesResource obj,
      GenericKubernetesResource previous) {
    if (h.stopped || obj.getMetadata() == null) {
      return;
    }
    ResourceEvent.Kind effective = kind;
    if (h.phase == Phase.PENDING && kind == ResourceEvent.Kind.ADDED) {
      // a successor's initial list re-adds what the active informer already delivered
      InformerHandle cover = covering(obj.getMetadata().getNamespace(), h);
      if (cover != null) {
        GenericKubernetesResource known = cover.store.get(Cache.metaNamespaceKeyFunc(obj));
        if (known != null) {
          if (Objects.equals(known.getMetadata().getResourceVersion(),
              obj.getMetadata().getResourceVersion())) {
            return;
          }
          effective = ResourceEvent.Kind.UPDATED;
        }
      }
    }
    registry.options().metrics().event(type, effective);
    deliver(h, effective, obj, previous);
    reportCachedObjects();
  }

  private InformerHandle covering(String namespace, InformerHandle self) {
    Map<String, InformerHandle> a = active;
    InformerHandle cover = a.get(ALL);
    if (cover == null && namespace != null) {
      cover = a.get(namespace);
    }
    return cover == self ? null : cover;
  }

  /**
   * Delivers to the leases whose scope holds the object (before or after). An event from an
   * informer whose projection does not keep a lease's paths is not that lease's: the informer
   * that does ({@code source} null: any) delivers it too.
   */
  private void deliver(InformerHandle source, ResourceEvent.Kind kind, GenericKubernetesResource obj,
      GenericKubernetesResource previous) {
    ObjectMeta m = obj.getMetadata();
    // handlers get the object as it came from the wire; leases read what the cache keeps of it
    GenericKubernetesResource cached = kind == ResourceEvent.Kind.DELETED || source == null
        ? obj : source.store.get(Cache.metaNamespaceKeyFunc(obj));
    if (cached == null) {
      cached = obj;
    }
    ResourceEvent event = new ResourceEvent(kind, type, m.getNamespace(), m.getName(), cached);
    ResourceEvent left = null;
    for (LeaseHandle l : leases) {
      if (source != null && !l.coveredBy(source.projection)) {
        continue;
      }
      if (l.accepts(obj)) {
        l.deliver(event);
      } else if (previous != null && l.accepts(previous)) {
        // the object left this lease's scope (its labels changed): a delete for this lease
        if (left == null) {
          left = new ResourceEvent(ResourceEvent.Kind.DELETED, type, m.getNamespace(),
              m.getName(), cached);
        }
        l.deliver(left);
      }
    }
  }

  private void reportCachedObjects() {
    long count = 0;
    for (InformerHandle h : active.values()) {
      count += h.store.size();
    }
    registry.options().metrics().cachedObjects(type, count);
  }

  /** Called by fabric8 on its threads when a list or watch fails (it retries with backoff). */
  void onListWatchError(InformerHandle h, boolean isStarted, Throwable t) {
    registry.options().metrics().listWatchError(type);
    int code = t instanceof KubernetesClientException k ? k.getCode() : 0;
    log.warn("List/watch of {} failed ({}), fabric8 retries with backoff: {}", h,
        code == 0 ? t.getClass().getSimpleName() : "HTTP " + code, t.getMessage());
    if (code == HttpURLConnection.HTTP_NOT_FOUND) {
      // the type may have been removed (CRD deleted): re-check discovery
      rediscover = true;
      schedulePlan();
    } else if (code == HttpURLConnection.HTTP_FORBIDDEN) {
      // RBAC changed under us: the next plan re-checks access (forbiddenRetry paces it)
      registry.onPlanner(() -> retryIn(registry.options().forbiddenRetry(), false));
    }
  }

  /** A watch of {@code h} ended and is re-opened (HTTP client threads). */
  void onWatchRestart(InformerHandle h, String reason) {
    if (h.stopped) {
      return;
    }
    InformerMetrics metrics = registry.options().metrics();
    metrics.watchRestarted(type, reason);
    if (!InformerMetrics.RESTART_TIMEOUT.equals(reason)) {
      metrics.watchRestart(type);
      String problem = h.liveness.problem();
      log.debug("Watch of {} restarts ({}){}", h, reason, problem == null ? "" : ": " + problem);
    }
  }

  /**
   * Gives up on watches silent past the window, and reports watches that became stalled or
   * recovered (planner thread, every second): one log line per change, and the lease statuses
   * that change with it.
   */
  void checkLiveness() {
    Instant now = Instant.now();
    Map<String, InformerHandle> running = new LinkedHashMap<>(active);
    running.putAll(pendingView);
    boolean changed = false;
    boolean anyStalled = false;
    for (InformerHandle h : running.values()) {
      if (h.stopped) {
        continue;
      }
      h.liveness.enforce(now);
      WatchLiveness.Stall stall = h.liveness.stalled(now);
      anyStalled |= stall != null;
      if ((stall != null) != h.reportedStalled) {
        h.reportedStalled = stall != null;
        changed = true;
        if (stall != null) {
          log.warn("Watch of {} is stalled: silent since {} ({}); it is being replaced", h,
              stall.silentSince(), stall.reason());
        } else {
          log.info("Watch of {} delivers again", h);
        }
      }
    }
    if (changed || anyStalled) {
      // a stall's reason can change while it lasts; publishing only notifies real changes
      publishStatuses();
    }
  }
}

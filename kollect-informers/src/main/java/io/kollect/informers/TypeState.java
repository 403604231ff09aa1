package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.kollect.informers.ApiDiscovery.TypeInfo;
import io.kollect.informers.LeaseStatus.Skipped;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One resource type of the registry: the chain plan → informers → events and status, in the
 * manner of fabric8's Reflector → store → processor. {@link ScopePlanner} decides which scopes
 * and projection should run (a pure function), {@link InformerSet} runs them make-before-break,
 * {@link Handover} keeps a switch exactly-once, {@link EventRouter} hands each event to the
 * leases it concerns, {@link LeaseStatuses} computes what a lease reports,
 * {@link LeaseReader} answers its reads. This class asks the API
 * server (discovery, access reviews), schedules re-plans and wires the pieces.
 *
 * <p>Threading: every state change happens in {@link #plan()} and the callbacks it schedules, all
 * on the registry's single planner thread, so no lock is needed and none is ever held across an
 * API call. Informer threads only read the volatile snapshots to filter and deliver events;
 * lease readers do the same.
 */
final class TypeState {

  /**
   * How long a replaced informer keeps delivering after its successor took over, at least: then
   * it stops as soon as it owes its leases nothing ({@link DrainDebt}), checked every {@link
   * #DRAIN_RECHECK}, and at {@link #DRAIN_LIMIT} at the latest.
   */
  static final Duration DRAIN = Duration.ofSeconds(2);
  static final Duration DRAIN_RECHECK = Duration.ofMillis(250);
  static final Duration DRAIN_LIMIT = Duration.ofSeconds(30);
  private static final int MAX_FOLLOW_UPS = 5;
  private static final Logger log = LoggerFactory.getLogger(TypeState.class);

  final InformerRegistry registry;
  final ResourceType type;
  private final Set<LeaseHandle> leases = ConcurrentHashMap.newKeySet();
  private final EventRouter router;
  private final InformerSet<InformerHandle> informers;
  private final LeaseReader reader;
  private final AtomicBoolean planQueued = new AtomicBoolean();

  /** Set by anything that suspects discovery changed; the next plan re-resolves the type. */
  private volatile boolean rediscover = true;
  /** Set when a CRD event hinted at a change; bounded re-checks follow if discovery lags. */
  private volatile boolean typeEventHint;
  private volatile boolean removed;

  // written on the planner thread only, read anywhere
  private volatile TypeInfo info;
  private volatile List<Skipped> skipped = List.of();
  /** The projection of the active informers' caches ({@code null}: none), and its version. */
  private volatile ObjectProjection activeProjection;
  private volatile long projectionVersion;
  /** Present while a switch is under way (planner thread writes). */
  private volatile Handover handover;

  // planner thread only
  private ScheduledFuture<?> graceStop;
  private ScheduledFuture<?> handoverEnd;
  private ScheduledFuture<?> retry;
  private int followUpsLeft;
  private int failures;

  TypeState(InformerRegistry registry, ResourceType type) {
    this.registry = registry;
    this.type = type;
    this.router = new EventRouter(type);
    this.informers = new InformerSet<>(this::startHandle, this::stopHandle);
    this.reader = new LeaseReader(informers);
  }

  // ---------------------------------------------------------------- leases (any thread)

  void join(LeaseHandle lease) {
    leases.add(lease);
    router.leases(leases);
  }

  void release(LeaseHandle lease) {
    leases.remove(lease);
    router.leases(leases);
    schedulePlan();
  }

  boolean hasLeases() {
    return !leases.isEmpty();
  }

  Set<LeaseHandle> leases() {
    return leases;
  }

  /** Discovery may have changed (a CRD of the type's group changed): re-resolve, with follow-ups. */
  void typeChanged() {
    rediscover = true;
    typeEventHint = true;
    schedulePlan();
  }

  /** Re-resolve the type through discovery at the next plan. */
  void rediscover() {
    rediscover = true;
    schedulePlan();
  }

  void markRemoved() {
    removed = true;
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
      registry.planned(null);
    } catch (KubernetesClientException e) {
      if (registry.isClosed()) {
        // closing interrupts the planner mid-call: not a failure of the API server
        log.debug("Planning informers for {} ended by the registry's close", type);
        return;
      }
      registry.planned(e);
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
    snapshot.forEach(LeaseHandle::markPlanned);
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
    String plural = current.plural();
    AccessReview access = registry.access();
    ScopePlanner.Plan plan = ScopePlanner.plan(
        snapshot.stream().map(LeaseHandle::request).toList(), current,
        new ScopePlanner.Access() {
          @Override
          public AccessReview.Decision listWatch(String namespace) {
            return access.listWatch(type.group(), plural, namespace);
          }

          @Override
          public Optional<List<String>> namespaceNames() {
            return access.namespaceNames();
          }
        },
        registry.options().clusterWideThreshold());
    info = current;
    if (!informers.active().isEmpty() && handover == null) {
      // before any successor starts: an active informer may deliver a change the successor's
      // watch will deliver again, however long this thread is kept from running meanwhile
      handover = new Handover();
    }
    onSwitch(informers.apply(plan.scopes(), plan.projection()));
    if (informers.active().isEmpty() && !plan.scopes().isEmpty()) {
      // The first list: leases already read (get) and hear events from the informers that are
      // listing, so the version names their shape now; promoting them later changes nothing, and
      // what a consumer derived from the streamed objects stays valid after the sync.
      noteProjection(plan.projection());
    }
    noteSwitching();
    skipped = plan.skipped();
    if (!plan.skipped().isEmpty()) {
      retryIn(registry.options().forbiddenRetry(), true);
    }
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
    if (failure != null || h.stopped()) {
      return;
    }
    h.markSynced();
    onSwitch(informers.onSynced(h));
    noteSwitching();
    publishStatuses();
  }

  /** The active set switched: what was replaced drains, then stops. */
  private void onSwitch(InformerSet.Switch<InformerHandle> change) {
    if (change == null) {
      return;
    }
    Map<String, InformerHandle> now = change.after();
    now.values().forEach(InformerHandle::noteActiveFrom);
    noteProjection(now.isEmpty() ? null : now.values().iterator().next().projection());
    if (!change.retired().isEmpty()) {
      Instant limit = Instant.now().plus(DRAIN_LIMIT);
      Map<InformerHandle, Long> retired = new LinkedHashMap<>();
      change.retired().forEach(h -> retired.put(h, null));
      registry.schedule(() -> drainWhenPaid(retired, limit, true), DRAIN);
    }
    reportCachedObjects();
  }

  /**
   * Stops each replaced informer once it owes its leases nothing (planner thread): its cache holds
   * what its successors had taken when they took over ({@link DrainDebt}), and its handler has
   * handed out every change the cache had taken when that was found ({@code handedThrough}, by
   * informer, once found). One whose cache has not caught up by {@code limit} has its debt
   * announced from its successors' caches instead. What the handler has not handed out yet is
   * waited for however long that takes: only the informer knows which of those changes its leases
   * were told. {@code first}: the first check, the one that says (once, at debug) why an informer
   * drains on.
   */
  private void drainWhenPaid(Map<InformerHandle, Long> handedThrough, Instant limit,
      boolean first) {
    Map<InformerHandle, Long> waiting = new LinkedHashMap<>();
    boolean late = !Instant.now().isBefore(limit);
    Map<String, DrainDebt.Successor> successors = successors();
    for (Map.Entry<InformerHandle, Long> e : handedThrough.entrySet()) {
      InformerHandle h = e.getKey();
      if (h.stopped()) {
        continue;
      }
      Long through = e.getValue();
      if (through == null) {
        DrainDebt debt = DrainDebt.of(h.store, h.scope(), successors,
            late ? Integer.MAX_VALUE : 1);
        if (!debt.paid() && !late) {
          if (first) {
            log.debug("{} drains on: its cache has not reached what its successor had taken", h);
          }
          waiting.put(h, null);
          continue;
        }
        if (!debt.paid()) {
          // its watch lags or is dead
          log.warn("{} had not caught up {} s after the switch: the {} changes it owes are"
              + " announced from the cache that replaced it", h, DRAIN_LIMIT.toSeconds(),
              debt.owed().size());
          pay(debt);
        }
        // read after the caches: every change the check saw in its cache is counted in it
        through = h.changesTaken();
      }
      if (h.handedOutThrough(through)) {
        informers.drained(List.of(h));
      } else {
        if (first) {
          log.debug("{} drains on: its handler has not handed out what its cache took", h);
        }
        waiting.put(h, through);
      }
    }
    if (!waiting.isEmpty()) {
      registry.schedule(() -> drainWhenPaid(waiting, limit, false), DRAIN_RECHECK);
    }
    noteSwitching();
  }

  private Map<String, DrainDebt.Successor> successors() {
    Map<String, DrainDebt.Successor> out = new LinkedHashMap<>();
    informers.active().forEach((scope, h) ->
        out.put(scope, new DrainDebt.Successor(scope, h.store, h.activeFrom())));
    return out;
  }

  /** Announces what a replaced informer owed, as its successor's (once per lease and version). */
  private void pay(DrainDebt debt) {
    for (DrainDebt.Owed o : debt.owed()) {
      InformerHandle successor = informers.active().get(o.successorScope());
      if (successor == null) {
        continue;
      }
      String namespace = o.state().getMetadata().getNamespace();
      router.route(o.kind(), o.state(), o.previous(),
          l -> informers.speaksFor(successor, namespace, l::coveredBy), handover);
    }
  }

  /**
   * Starts or ends the exactly-once record of a switch (planner thread). It outlives the switch by
   * one more drain: an event a stopped informer was already handing out must still find it.
   */
  private void noteSwitching() {
    if (informers.switching()) {
      if (handover == null) {
        handover = new Handover();
      }
    } else if (handover != null && handoverEnd == null) {
      handoverEnd = registry.schedule(() -> {
        handoverEnd = null;
        if (!informers.switching()) {
          handover = null;
        }
      }, DRAIN);
    }
  }

  private void goNotServed(String detail) {
    Map<String, InformerHandle> old = informers.clear();
    noteProjection(null);
    noteSwitching();
    for (InformerHandle h : old.values()) {
      stopHandle(h);
      // the type is gone: whatever the cache still held no longer exists for consumers
      h.store.values().forEach(obj ->
          router.route(ResourceEvent.Kind.DELETED, obj, null, l -> true, null));
    }
    skipped = List.of(new Skipped(ScopePlanner.ALL, Skipped.NOT_SERVED, detail));
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
    ScheduledFuture<?> r = retry;
    if (r != null) {
      r.cancel(false);
    }
    informers.stopAll();
    registry.options().metrics().cachedObjects(type, 0);
  }

  private void stopHandle(InformerHandle h) {
    if (h.stop()) {
      registry.informerStopped(type);
    }
  }

  // ---------------------------------------------------------------- status

  void publishStatuses() {
    for (LeaseHandle l : leases) {
      l.publish(statusFor(l));
    }
  }

  LeaseStatus statusFor(LeaseHandle l) {
    return LeaseStatuses.of(type, l.request(), l.planned(), info, projectionVersion,
        informers.active(), informers.pending(), skipped, l::coveredBy, Instant.now());
  }

  /** Watches of this type silent past the liveness window (active and starting informers). */
  List<StalledWatch> stalledWatches(Instant now) {
    List<StalledWatch> out = new ArrayList<>();
    running().forEach((key, h) -> {
      WatchLiveness.Stall stall = h.stall(now);
      if (stall != null) {
        out.add(new StalledWatch(type, key, stall.silentSince(), stall.reason()));
      }
    });
    return out;
  }

  private Map<String, InformerHandle> running() {
    Map<String, InformerHandle> running = new LinkedHashMap<>(informers.active());
    running.putAll(informers.pending());
    return running;
  }

  /**
   * Adds what this type's running informers show of the connection to {@code tally} (any
   * thread: reads volatile snapshots only).
   */
  void tallyHealth(HealthTally tally, Instant now) {
    Map<String, InformerHandle> running = running();
    if (running.isEmpty()) {
      if (!leases.isEmpty() && skipped.stream().anyMatch(s -> Skipped.FORBIDDEN.equals(s.reason()))) {
        tally.forbidden(type);
      } else if (!leases.isEmpty()) {
        tally.idle();
      }
      return;
    }
    tally.watched(type);
    for (InformerHandle h : running.values()) {
      if (!h.stopped()) {
        tally.watch(h.toString(), h.liveness, now);
      }
    }
  }

  boolean notServed() {
    TypeInfo i = info;
    return i != null && !i.served();
  }

  // ---------------------------------------------------------------- reads and events

  /** See {@link LeaseReader#get}. */
  GenericKubernetesResource get(LeaseHandle l, String namespace, String name) {
    return reader.get(l, namespace, name, handover);
  }

  /** See {@link LeaseReader#read}. */
  List<GenericKubernetesResource> read(LeaseHandle l) {
    return reader.read(l, info, handover);
  }

  /**
   * Called on informer threads. {@code previous} is the old state of an update (else {@code null}):
   * a lease whose scope held the old state but not the new one (labels changed) must still hear
   * of it, or it would never learn the object left its scope.
   */
  void onInformerEvent(InformerHandle h, ResourceEvent.Kind kind, GenericKubernetesResource obj,
      GenericKubernetesResource previous) {
    if (h.stopped() || obj.getMetadata() == null) {
      return;
    }
    // events carry what the cache keeps of this event's state, never the wire object. fabric8
    // hands events to handlers after storing them, so the cache may already hold a later state:
    // then (and for a delete, which the cache no longer holds) the event's own state is projected
    GenericKubernetesResource cached = null;
    if (kind != ResourceEvent.Kind.DELETED) {
      GenericKubernetesResource held = h.store.get(Cache.metaNamespaceKeyFunc(obj));
      if (held != null && Objects.equals(held.getMetadata().getResourceVersion(),
          obj.getMetadata().getResourceVersion())) {
        cached = held;
      }
    }
    if (cached == null) {
      cached = h.projection().apply(obj);
    }
    String namespace = obj.getMetadata().getNamespace();
    registry.options().metrics().event(type, kind);
    java.util.function.Predicate<LeaseHandle> eligible =
        l -> informers.speaksFor(h, namespace, l::coveredBy);
    InformerHandle before = kind == ResourceEvent.Kind.ADDED
        ? informers.predecessor(h, namespace) : null;
    GenericKubernetesResource known = before == null ? null
        : before.store.get(Cache.metaNamespaceKeyFunc(obj));
    if (known != null) {
      // fabric8 may hand a new informer's first-list adds to handlers after it took over, at a
      // version its predecessor holds, has passed, or has not handed out yet
      ObjectProjection told = before.projection();
      router.routeAddedKnown(cached, known, l -> l.coveredBy(told), eligible, handover);
    } else {
      router.route(kind, cached, previous, eligible, handover);
    }
    reportCachedObjects();
  }

  /** Hands each active informer's store to {@code action} (for measuring the cache). */
  void forEachActiveStore(java.util.function.Consumer<TrimmingItemStore> action) {
    for (InformerHandle h : informers.active().values()) {
      action.accept(h.store);
    }
  }

  /** O(informers of the type): a store's size is a counter, never a walk over its objects. */
  private void reportCachedObjects() {
    long count = 0;
    for (InformerHandle h : informers.active().values()) {
      count += h.store.size();
    }
    registry.options().metrics().cachedObjects(type, count);
  }

  /** Called by fabric8 on its threads when a list or watch fails (it retries with backoff). */
  void onListWatchError(InformerHandle h, boolean isStarted, Throwable failure) {
    Throwable t = failure;
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      // a failed list page reaches us wrapped by the future chain of fabric8's Reflector
      t = t.getCause();
    }
    int code = t instanceof KubernetesClientException k ? k.getCode() : 0;
    if (code == HttpURLConnection.HTTP_GONE) {
      // a paginated list outlived its continue token (etcd compacted, ~5 min on 1.20): fabric8
      // lists again from the first page; objects already cached stay (no DELETED), objects
      // missing from the complete new list are deleted at its end
      log.info("List of {} restarts from the first page: its continue token expired (HTTP 410)", h);
      registry.options().metrics().watchRestarted(type, InformerMetrics.RESTART_GONE);
      return;
    }
    registry.options().metrics().listWatchError(type);
    log.warn("List/watch of {} failed ({}), fabric8 retries with backoff: {}", h,
        code == 0 ? t.getClass().getSimpleName() : "HTTP " + code, t.getMessage());
    if (code == HttpURLConnection.HTTP_NOT_FOUND) {
      // the type may have been removed (CRD deleted): re-check discovery
      rediscover();
    } else if (code == HttpURLConnection.HTTP_FORBIDDEN) {
      // RBAC changed under us: the next plan re-checks access (forbiddenRetry paces it)
      registry.onPlanner(() -> retryIn(registry.options().forbiddenRetry(), false));
    }
  }

  /** A watch of {@code h} ended and is re-opened (HTTP client threads). */
  void onWatchRestart(InformerHandle h, String reason) {
    if (h.stopped()) {
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
    boolean changed = false;
    boolean anyStalled = false;
    for (InformerHandle h : running().values()) {
      if (h.stopped()) {
        continue;
      }
      h.liveness.enforce(now);
      WatchLiveness.Stall stall = h.liveness.stalled(now);
      anyStalled |= stall != null;
      if (h.noteStalled(stall != null)) {
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

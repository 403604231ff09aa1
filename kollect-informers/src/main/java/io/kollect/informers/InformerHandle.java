package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fabric8 informer over one scope (all namespaces, or one namespace) of one type, with the
 * store shape it was started with. Its events go to the owning {@link TypeState}.
 */
final class InformerHandle implements InformerSet.Member {

  /** Where the handle is in a scope change: started, serving reads, or being drained. */
  enum Phase {
    /** Started but not yet serving reads; its initial adds are checked against the active cache. */
    PENDING,
    /** Serving reads and events. */
    ACTIVE,
    /** Replaced; still delivers events until it is stopped shortly after. */
    RETIRED
  }

  final TypeState owner;
  /** {@link ScopePlanner#ALL} or a namespace. */
  private final String scope;
  private final ObjectProjection projection;
  final TrimmingItemStore store;
  private final SharedIndexInformer<GenericKubernetesResource> informer;
  final WatchLiveness liveness;

  /** Notifications the handler has handed on, resyncs left out (see {@link #handedOutThrough}). */
  private final AtomicLong handedOut = new AtomicLong();
  /** The resourceVersion its cache had reached when it became active ({@code null} before). */
  private volatile String activeFrom;
  private volatile Phase phase = Phase.PENDING;
  private volatile boolean synced;
  private volatile boolean stopped;
  /** Whether the last liveness check found the watch stalled (planner thread). */
  private boolean reportedStalled;

  InformerHandle(TypeState owner, KubernetesClient client, ResourceDefinitionContext context,
      String scope, ObjectProjection projection, InformerOptions options) {
    this.owner = owner;
    this.scope = scope;
    this.projection = projection;
    this.store = new TrimmingItemStore(projection);
    this.liveness = new WatchLiveness(options.watchLiveness(), Clock.systemUTC(),
        reason -> owner.onWatchRestart(this, reason));
    MixedOperation<GenericKubernetesResource, ?, ?> op = client.genericKubernetesResources(context);
    Informable<GenericKubernetesResource> informable =
        ScopePlanner.ALL.equals(scope) ? op.inAnyNamespace() : op.inNamespace(scope);
    this.informer = LivenessListerWatcher.informer(informable, liveness, options.listPageSize(),
        options.resyncPeriod().toMillis(), OwnedObjects.of(options, owner.type), projection);
    informer.itemStore(store);
    // the store answers reads by namespace itself (TrimmingItemStore#objectsIn): an index beside
    // it would hold a second entry per cached object
    informer.removeNamespaceIndex();
    informer.exceptionHandler((isStarted, t) -> {
      if (stopped) {
        return false;
      }
      owner.onListWatchError(this, isStarted, t);
      // keep retrying with fabric8's exponential backoff; RBAC and discovery changes are handled
      // by re-planning, which stops this informer if it should not run
      return true;
    });
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        try {
          owner.onInformerEvent(InformerHandle.this, ResourceEvent.Kind.ADDED, obj, null);
        } finally {
          handedOut.incrementAndGet();
        }
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        try {
          owner.onInformerEvent(InformerHandle.this, ResourceEvent.Kind.UPDATED, newObj, oldObj);
        } finally {
          if (oldObj != newObj) {
            // a resync hands the held object out as its own update: no write of the store
            handedOut.incrementAndGet();
          }
        }
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
        try {
          // a delete noticed only by a relist (final state unknown) is still a delete for
          // consumers
          owner.onInformerEvent(InformerHandle.this, ResourceEvent.Kind.DELETED, obj, null);
        } finally {
          handedOut.incrementAndGet();
        }
      }
    });
  }

  CompletionStage<Void> start() {
    return informer.start();
  }

  /** Stops the informer; true the first time. */
  synchronized boolean stop() {
    if (stopped) {
      return false;
    }
    stopped = true;
    informer.stop();
    return true;
  }

  boolean stopped() {
    return stopped;
  }

  /** Its initial list completed (planner thread). */
  void markSynced() {
    synced = true;
  }

  @Override
  public String scope() {
    return scope;
  }

  @Override
  public ObjectProjection projection() {
    return projection;
  }

  @Override
  public boolean synced() {
    return synced;
  }

  @Override
  public void activate() {
    phase = Phase.ACTIVE;
  }

  /**
   * Notes, once, the resourceVersion its cache has reached, just after it became the active one:
   * what it listed and watched up to then was not announced to the leases its predecessors
   * served, so changes up to it are theirs to announce ({@link DrainDebt}), later ones its own.
   * Read after the switch was published: a change it took in between is then owed by both.
   */
  void noteActiveFrom() {
    if (activeFrom == null) {
      activeFrom = informer.lastSyncResourceVersion();
    }
  }

  /** See {@link #noteActiveFrom}; {@code null} before. */
  String activeFrom() {
    return activeFrom;
  }

  /**
   * How many changes its cache has taken so far ({@link TrimmingItemStore#notifications}): fabric8
   * stores a change, then notifies the handler on another thread, so a cache can be ahead of what
   * was announced.
   */
  long changesTaken() {
    return store.notifications();
  }

  /**
   * Whether the first {@code taken} changes its cache took ({@link #changesTaken} at some moment)
   * have been handed to the leases: notifications are handed out one by one in the order of the
   * writes, so a busy watch that keeps adding to the queue does not hold this back.
   */
  boolean handedOutThrough(long taken) {
    return handedOut.get() >= taken;
  }

  @Override
  public void retire() {
    phase = Phase.RETIRED;
  }

  @Override
  public WatchLiveness.Stall stall(Instant now) {
    return stopped ? null : liveness.stalled(now);
  }

  /** Records whether the watch is stalled now; true when that changed (planner thread). */
  boolean noteStalled(boolean stalledNow) {
    boolean changed = stalledNow != reportedStalled;
    reportedStalled = stalledNow;
    return changed;
  }

  /** The cached objects of one namespace (all of them for a namespace-scoped informer). */
  List<GenericKubernetesResource> objectsIn(String namespace) {
    return ScopePlanner.ALL.equals(scope) || namespace.equals(scope) ? store.objectsIn(namespace)
        : List.of();
  }

  @Override
  public String toString() {
    return owner.type + (ScopePlanner.ALL.equals(scope) ? " (all namespaces)" : " in " + scope)
        + (phase == Phase.ACTIVE ? "" : " (" + phase.name().toLowerCase() + ")");
  }
}

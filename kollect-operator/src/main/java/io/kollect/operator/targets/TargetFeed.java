package io.kollect.operator.targets;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetSpec;
import io.kollect.operator.crd.KindWatch;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import io.kollect.operator.inventory.InventorySweep;
import io.kollect.operator.shard.ShardStatuses;
import io.kollect.operator.status.FeedContext;
import io.kollect.operator.status.ProblemReports;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * KollectTargets into the engine: watches them ({@link KindWatch}) into {@link KollectTargets},
 * translates each into the core model ({@link CrTranslation}) with the clusters it reads, puts it
 * into the engine, and reports what cannot be used once in the log and as an Event ({@link
 * ProblemReports}); a target's status is {@link TargetStatuses}'. What a target's change means to
 * the other parts (its inventory objects, its status) goes through its {@link TargetHooks}. A bad
 * target never stops the others.
 */
public final class TargetFeed implements AutoCloseable {

  /** What a target's inventory objects need when it changes or goes ({@link InventorySweep}). */
  public interface TargetHooks {
    /** The target was deleted, or has {@code writeInventory} off. */
    void withoutInventory(TargetId id);

    /** The target was deleted (its status and metrics are dropped). */
    void deleted(TargetId id);

    /** Only the target's {@code status.shards[]} changed: another shard wrote its part. */
    default void shardsChanged(TargetId id) {
    }

    /** A new forced-reconcile value was handled: its echo belongs in the target's status. */
    default void reconcileHandled(TargetId id) {
    }
  }

  private final FeedContext context;
  private final KollectEngine engine;
  private final ProblemReports problems;
  private final TargetHooks targetHooks;
  private final Predicate<String> namespaceFilter;
  private final List<String> extraSinks;
  private final String defaultServiceAccount;
  /** Reports (or clears) a target's missing profile ({@code ProfileFeed}). */
  private final Consumer<KollectTarget> profileCheck;
  /** Targets given to the engine, for readiness. */
  private final Set<TargetId> engineTargets = ConcurrentHashMap.newKeySet();
  private final ReconcileRequests reconcileRequests;
  private final KollectTargets targets;
  /** The clusters a target reads ({@link ClusterFeed#clustersOf}). */
  private final Function<KollectTarget, List<String>> targetClusters;

  /** A feed with these parts; every part not set has the default its builder method names. */
  public static Builder builder(FeedContext context) {
    return new Builder(context);
  }

  private TargetFeed(Builder b) {
    this.context = b.context;
    this.engine = context.engine();
    this.problems = context.problems();
    this.namespaceFilter = context.namespaceFilter();
    this.targets = b.targets;
    this.reconcileRequests = b.reconcileRequests != null ? b.reconcileRequests
        : new ReconcileRequests(engine);
    this.targetClusters = b.targetClusters;
    this.targetHooks = b.targetHooks;
    this.extraSinks = List.copyOf(b.extraSinks);
    this.defaultServiceAccount = b.defaultServiceAccount;
    this.profileCheck = b.profileCheck;
  }

  /** Builds a {@link TargetFeed}; the context is required, every other part optional. */
  public static final class Builder {
    private final FeedContext context;
    private KollectTargets targets = new KollectTargets();
    private ReconcileRequests reconcileRequests;
    private Consumer<KollectTarget> profileCheck = t -> { };
    private Function<KollectTarget, List<String>> targetClusters = t -> List.of();
    private TargetHooks targetHooks = new TargetHooks() {
      @Override
      public void withoutInventory(TargetId id) {
      }

      @Override
      public void deleted(TargetId id) {
      }
    };
    private List<String> extraSinks = List.of();
    private String defaultServiceAccount = "default";

    private Builder(FeedContext context) {
      this.context = Objects.requireNonNull(context, "context");
    }

    /** Where the watched KollectTargets are cached for their other readers; default: its own. */
    public Builder targets(KollectTargets targets) {
      this.targets = targets;
      return this;
    }

    /** The forced reconciles handled; default: its own. */
    public Builder reconcileRequests(ReconcileRequests reconcileRequests) {
      this.reconcileRequests = reconcileRequests;
      return this;
    }

    /** Reports a target's missing profile ({@code ProfileFeed}); default: nothing. */
    public Builder profileCheck(Consumer<KollectTarget> profileCheck) {
      this.profileCheck = profileCheck;
      return this;
    }

    /** The clusters a target reads ({@code clusterRef}, {@code clusterSelector}); default: none. */
    public Builder targetClusters(Function<KollectTarget, List<String>> targetClusters) {
      this.targetClusters = targetClusters;
      return this;
    }

    /** What a target's change means to the other parts; default: nothing. */
    public Builder targetHooks(TargetHooks targetHooks) {
      this.targetHooks = targetHooks;
      return this;
    }

    /** Sinks every target also gets (e.g. {@code --stdout}'s). */
    public Builder extraSinks(List<String> extraSinks) {
      this.extraSinks = extraSinks;
      return this;
    }

    /** The ServiceAccount of a target that names none. */
    public Builder defaultServiceAccount(String defaultServiceAccount) {
      this.defaultServiceAccount = defaultServiceAccount;
      return this;
    }

    public TargetFeed build() {
      return new TargetFeed(this);
    }
  }

  /**
   * Starts the watch and waits for its first list; start the profile and sink feeds first, so
   * that targets are not reported as naming missing ones on start.
   *
   * @throws IllegalStateException naming the kind and the cause when the first list fails
   */
  public void start() {
    KindWatch<KollectTarget> targetWatch = new KindWatch<>(context.client(), KollectTarget.class,
        KollectTargetSpec.class, true, context.resyncMillis(), context.handler(this::onTarget,
            this::onTargetDeleted, (before, after) -> {
              // Every other status-only update is the operators' own writes: nothing to do.
              if (!Objects.equals(shardsOf(before), shardsOf(after))) {
                targetHooks.shardsChanged(new TargetId(after.getMetadata().getNamespace(),
                    after.getMetadata().getName()));
              }
            }, (object, message) -> { }));
    targets.watching(targetWatch);
    targetWatch.startAndAwaitListed("KollectTargets");
  }

  /** A target's {@code status.shards}, as read from the watch; {@code null} when absent. */
  static Object shardsOf(GenericKubernetesResource target) {
    return target.getAdditionalProperties().get("status") instanceof Map<?, ?> status
        ? status.get(ShardStatuses.LIST) : null;
  }

  /** Whether the first list is in. */
  public boolean listed() {
    return targets.watch().map(KindWatch::hasSynced).orElse(false);
  }

  /** Targets handed to the engine. */
  public Set<TargetId> engineTargets() {
    return Set.copyOf(engineTargets);
  }

  // ---- targets ---------------------------------------------------------------------------------

  /** The forced reconciles handled, whose values target statuses echo. */
  public ReconcileRequests reconcileRequests() {
    return reconcileRequests;
  }

  void onTarget(KollectTarget target) {
    String ns = target.getMetadata().getNamespace();
    if (!namespaceFilter.test(ns)) {
      return;
    }
    String what = "KollectTarget " + ns + "/" + target.getMetadata().getName();
    TargetSpec spec;
    try {
      spec = CrTranslation.target(target, extraSinks, defaultServiceAccount);
      spec = spec.toBuilder().clusters(targetClusters.apply(target)).build();
    } catch (IllegalArgumentException e) {
      problems.report(target, "InvalidTarget", what, what + ": " + e.getMessage());
      return;
    }
    profileCheck.accept(target);
    try {
      engine.putTarget(spec);
      engineTargets.add(spec.id());
    } catch (IllegalArgumentException e) {
      // The engine validates the scope (label selectors) and names the target and field itself.
      // It keeps the target's last valid spec, so exports go on while the problem is reported.
      problems.report(target, "InvalidTarget", what, e.getMessage());
      return;
    }
    problems.report(target, "InvalidTarget", what, null);
    if (reconcileRequests.onTarget(target, spec.id())) {
      targetHooks.reconcileHandled(spec.id());
    }
    if (!spec.writeInventory()) {
      targetHooks.withoutInventory(spec.id());
    }
  }

  /** Puts the matching targets again (the KollectClusters they select changed). */
  public void retarget(Predicate<KollectTarget> which) {
    targets.list().stream().filter(which).forEach(this::onTarget);
  }

  void onTargetDeleted(HasMetadata target) {
    TargetId id = new TargetId(target.getMetadata().getNamespace(), target.getMetadata().getName());
    engine.removeTarget(id);
    engineTargets.remove(id);
    reconcileRequests.forget(id);
    targetHooks.deleted(id);
    targetHooks.withoutInventory(id);
  }

  @Override
  public void close() {
    targets.watch().ifPresent(KindWatch::close);
  }
}

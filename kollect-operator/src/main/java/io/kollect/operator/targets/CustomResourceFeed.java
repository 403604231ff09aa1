package io.kollect.operator.targets;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetSpec;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ProfileValidationException;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.cluster.ClusterFeed;
import io.kollect.operator.crd.KindWatch;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectProfileSpec;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import io.kollect.operator.inventory.InventorySweep;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.profile.ProfileStates;
import io.kollect.operator.shard.ShardStatuses;
import io.kollect.operator.sink.KafkaSinkChecks;
import io.kollect.operator.sink.PostgresSinkChecks;
import io.kollect.operator.sink.SinkSuspend;
import io.kollect.operator.sink.SinkTranslation;
import io.kollect.operator.status.FeedContext;
import io.kollect.operator.status.ProblemReports;
import io.kollect.operator.status.ResourceStatuses;
import io.kollect.operator.status.StatusWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kollect custom resources fed to the engine: watches KollectProfiles, KollectSinks and
 * KollectTargets ({@link KindWatch}), translates each into the core model ({@link CrTranslation},
 * {@link SinkTranslation}) and puts it into the engine, and reports what cannot be used: once in
 * the log and as an Event ({@link ProblemReports}) and, on the leader, in the profile's or sink's
 * status ({@link StatusWriter}; a target's status is {@link TargetStatuses}'). A bad object never
 * stops the others.
 */
public final class CustomResourceFeed implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KollectOperator.class);

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

  /** Where a profile's spec goes: the engine, or the profile lifecycle in front of it. */
  public interface ProfileInput {
    void put(KollectProfile profile, ProfileSpec spec);

    void remove(String name);

    /** The profile's lifecycle status changed (someone started, promoted or stopped). */
    default void statusChanged(String name) {
    }

    /** Profiles straight into the engine. */
    static ProfileInput into(KollectEngine engine) {
      return new ProfileInput() {
        @Override
        public void put(KollectProfile profile, ProfileSpec spec) {
          engine.putProfile(profile.getMetadata().getName(), spec);
        }

        @Override
        public void remove(String name) {
          engine.removeProfile(name);
        }
      };
    }
  }

  private final KubernetesClient client;
  private final KollectEngine engine;
  private final ProfileInput profileInput;
  private final SinkTranslation sinkTranslation;
  private final ProblemReports problems;
  private final StatusWriter status;
  private final OperatorMetrics metrics;
  private final TargetHooks targetHooks;
  private final BooleanSupplier leader;
  private final Predicate<String> namespaceFilter;
  private final List<String> extraSinks;
  private final String defaultServiceAccount;
  private final long resyncMillis;
  private final Clock clock;
  /** Targets given to the engine, for readiness. */
  private final Set<TargetId> engineTargets = ConcurrentHashMap.newKeySet();
  private final ReconcileRequests reconcileRequests;
  /** Per sink, the settings it was last built from (without {@code suspend}). */
  private final Map<String, KollectSinkSpec> appliedSinks = new ConcurrentHashMap<>();
  /** Configuration problems of KollectSinks by engine sink name. */
  private final Map<String, String> sinkProblems = new ConcurrentHashMap<>();
  /** Warnings (e.g. TLS verification off) of KollectSinks by engine sink name. */
  private final Map<String, List<String>> sinkWarnings = new ConcurrentHashMap<>();
  /** Validation problems of KollectProfiles by name. */
  private final Map<String, String> profileProblems = new ConcurrentHashMap<>();
  /** The kafka sinks among them: topic checks and producer metrics. */
  private final KafkaSinkChecks kafkaSinks;
  private final PostgresSinkChecks postgresSinks;
  private volatile KindWatch<KollectProfile> profiles;
  private volatile KindWatch<KollectSink> sinks;
  private final KollectTargets targets;
  /** The clusters a target reads ({@link ClusterFeed#clustersOf}). */
  private final Function<KollectTarget, List<String>> targetClusters;

  /** A feed with these parts; every part not set has the default its builder method names. */
  public static Builder builder(FeedContext context) {
    return new Builder(context);
  }

  private CustomResourceFeed(Builder b) {
    FeedContext context = b.context;
    this.client = context.client();
    this.engine = context.engine();
    this.problems = context.problems();
    this.status = context.status();
    this.metrics = context.metrics();
    this.leader = context.leader();
    this.namespaceFilter = context.namespaceFilter();
    this.resyncMillis = context.resyncMillis();
    this.clock = context.clock();
    this.sinkTranslation = b.sinkTranslation != null ? b.sinkTranslation
        : new SinkTranslation(client);
    this.targets = b.targets;
    this.reconcileRequests = b.reconcileRequests != null ? b.reconcileRequests
        : new ReconcileRequests(engine);
    this.profileInput = b.profileInput != null ? b.profileInput : ProfileInput.into(engine);
    this.targetClusters = b.targetClusters;
    this.targetHooks = b.targetHooks;
    this.extraSinks = List.copyOf(b.extraSinks);
    this.defaultServiceAccount = b.defaultServiceAccount;
    this.postgresSinks = new PostgresSinkChecks(clock);
    this.kafkaSinks = new KafkaSinkChecks(name -> {
      KindWatch<KollectSink> watch = sinks;
      if (watch != null) {
        watch.list().stream().filter(k -> name.equals(CrTranslation.sinkName(
            k.getMetadata().getNamespace(), k.getMetadata().getName())))
            .findFirst().ifPresent(this::writeSinkStatus);
      }
    }, clock);
  }

  /** Builds a {@link CustomResourceFeed}; the context is required, every other part optional. */
  public static final class Builder {
    private final FeedContext context;
    private SinkTranslation sinkTranslation;
    private KollectTargets targets = new KollectTargets();
    private ReconcileRequests reconcileRequests;
    private ProfileInput profileInput;
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

    /** How KollectSinks become engine sinks; default: with the context's client. */
    public Builder sinkTranslation(SinkTranslation sinkTranslation) {
      this.sinkTranslation = sinkTranslation;
      return this;
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

    /** Where profiles go; default: straight into the engine. */
    public Builder profileInput(ProfileInput profileInput) {
      this.profileInput = profileInput;
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

    public CustomResourceFeed build() {
      return new CustomResourceFeed(this);
    }
  }

  /**
   * Starts the watches and waits for their first lists: profiles and sinks first, so that targets
   * are not reported as naming missing ones on start.
   *
   * @throws IllegalStateException naming the kind and the cause when a first list fails
   */
  public void start() {
    profiles = new KindWatch<>(client, KollectProfile.class, KollectProfileSpec.class, false,
        resyncMillis, handler(this::onProfile, this::onProfileDeleted, (before, after) -> {
          if (ProfileStates.lifecycleChanged(before, after)) {
            profileInput.statusChanged(after.getMetadata().getName());
          }
        }));
    sinks = new KindWatch<>(client, KollectSink.class, KollectSinkSpec.class, true, resyncMillis,
        handler(this::onSink, this::onSinkDeleted));
    profiles.startAndAwaitListed("KollectProfiles");
    sinks.startAndAwaitListed("KollectSinks");
    KindWatch<KollectTarget> targetWatch = new KindWatch<>(client, KollectTarget.class,
        KollectTargetSpec.class, true,
        resyncMillis, handler(this::onTarget, this::onTargetDeleted, (before, after) -> {
          // Every other status-only update is the operators' own writes: nothing to do.
          if (!Objects.equals(shardsOf(before), shardsOf(after))) {
            targetHooks.shardsChanged(new TargetId(after.getMetadata().getNamespace(),
                after.getMetadata().getName()));
          }
        }));
    targets.watching(targetWatch);
    targetWatch.startAndAwaitListed("KollectTargets");
  }

  /** A target's {@code status.shards}, as read from the watch; {@code null} when absent. */
  static Object shardsOf(GenericKubernetesResource target) {
    return target.getAdditionalProperties().get("status") instanceof Map<?, ?> status
        ? status.get(ShardStatuses.LIST) : null;
  }

  /** Whether every kind has been listed. */
  public boolean listed() {
    return targets.watch().map(KindWatch::hasSynced).orElse(false) && profiles.hasSynced()
        && sinks.hasSynced();
  }

  /** Targets handed to the engine. */
  public Set<TargetId> engineTargets() {
    return Set.copyOf(engineTargets);
  }

  /**
   * Reports every known problem for a new leader: as Events where none was recorded, and in the
   * status of profiles and sinks. Puts nothing into the engine: that would make it re-send to
   * the sinks.
   */
  public void reportAll() {
    problems.recordMissingEvents();
    if (profiles != null) {
      profiles.list().forEach(this::reportProfile);
    }
    if (sinks != null) {
      sinks.list().stream().filter(k -> namespaceFilter.test(k.getMetadata().getNamespace()))
          .forEach(this::reportSink);
    }
    reportMissingProfiles();
  }

  // ---- profiles --------------------------------------------------------------------------------

  void onProfile(KollectProfile profile) {
    String name = profile.getMetadata().getName();
    String problem = null;
    try {
      ProfileSpec spec = CrTranslation.profile(profile);
      profileInput.put(profile, spec);
      problem = engine.profileError(name).orElse(null);
    } catch (ProfileValidationException e) {
      problem = e.getMessage();
    } catch (IllegalArgumentException e) {
      problem = "KollectProfile " + name + " is invalid: " + ProblemReports.firstLine(e.getMessage());
    }
    if (problem != null && problem.startsWith("profile " + name + " is invalid: ")) {
      problem = "KollectProfile " + problem.substring("profile ".length());
    }
    if (problem == null) {
      profileProblems.remove(name);
    } else {
      profileProblems.put(name, problem);
    }
    reportProfile(profile);
    reportMissingProfiles();
  }

  /** Logs (once), records as an event and writes to status the profile's known problem. */
  private void reportProfile(KollectProfile profile) {
    String name = profile.getMetadata().getName();
    String problem = profileProblems.get(name);
    problems.report(profile, "InvalidProfile", "KollectProfile " + name, problem);
    KindWatch<KollectProfile> watch = profiles;
    if (leader.getAsBoolean() && watch != null) {
      watch.cached(name).ifPresent(cached -> status.write(cached, ResourceStatuses.profile(
          profile, problem, engine.profileWarnings(name), clock.instant()),
          ProfileStates.STATUS_KEYS));
    }
  }

  private void onProfileDeleted(HasMetadata profile) {
    profileInput.remove(profile.getMetadata().getName());
    profileProblems.remove(profile.getMetadata().getName());
    reportMissingProfiles();
  }

  // ---- sinks -----------------------------------------------------------------------------------

  void onSink(KollectSink sink) {
    String ns = sink.getMetadata().getNamespace();
    if (!namespaceFilter.test(ns)) {
      return;
    }
    String name = CrTranslation.sinkName(ns, sink.getMetadata().getName());
    boolean suspend = sink.getSpec() != null && Boolean.TRUE.equals(sink.getSpec().suspend());
    KollectSinkSpec settings = SinkSuspend.withoutSuspend(sink.getSpec());
    if (settings != null && settings.equals(appliedSinks.get(name))
        && engine.isSinkSuspended(name) != suspend) {
      // Only suspend changed: keep the sink (a new instance would be sent everything again).
      engine.setSinkSuspended(name, suspend);
      reportSink(sink);
      return;
    }
    try {
      SinkTranslation.Built built = sinkTranslation.build(name, sink);
      // Before the sink is put, so a sink created suspended is handed nothing.
      engine.setSinkSuspended(name, suspend);
      engine.putSink(built.sink(), built.options());
      kafkaSinks.put(name, built.sink());
      postgresSinks.put(name, built.sink());
      appliedSinks.put(name, settings);
      sinkProblems.remove(name);
      sinkWarnings.put(name, built.warnings());
      built.warnings().forEach(w -> log.warn("KollectSink {}: {}", name, w));
    } catch (IllegalArgumentException e) {
      sinkProblems.put(name,
          "KollectSink " + name + ": " + ProblemReports.firstLine(e.getMessage()));
      engine.removeSink(name);
      kafkaSinks.remove(name);
      postgresSinks.remove(name);
      appliedSinks.remove(name);
    }
    reportSink(sink);
  }

  /** Logs (once), records as an event and writes to status the sink's known problem. */
  private void reportSink(KollectSink sink) {
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    problems.report(sink, "InvalidSink", "KollectSink " + name, sinkProblems.get(name));
    writeSinkStatus(sink);
  }

  private void writeSinkStatus(KollectSink sink) {
    KindWatch<KollectSink> watch = sinks;
    if (!leader.getAsBoolean() || watch == null) {
      return;
    }
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    watch.cached(name).ifPresent(cached -> status.write(cached, ResourceStatuses.sink(sink,
        sinkProblems.get(name), metrics.delivery(name), sinkWarnings.getOrDefault(name, List.of()),
        kafkaSinks.topicCheck(name), postgresSinks.databaseCheck(name), postgresSinks.writerConflicts(name),
        targetsUsing(sink.getMetadata().getNamespace(), sink.getMetadata().getName()),
        clock.instant())));
  }

  /**
   * Re-evaluates every sink's status from its configuration and its recent deliveries; a sink
   * whose problem is a missing Secret is configured again (the Secret may exist now).
   */
  public void recheckSinks() {
    if (metrics != null) {
      kafkaSinks.publish(metrics);
    }
    KindWatch<KollectSink> watch = sinks;
    if (!leader.getAsBoolean() || watch == null) {
      return;
    }
    kafkaSinks.recheck();
    postgresSinks.recheck();
    for (KollectSink sink : watch.list()) {
      if (namespaceFilter.test(sink.getMetadata().getNamespace())) {
        String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
            sink.getMetadata().getName());
        String problem = sinkProblems.get(name);
        if (problem != null && problem.contains("Secret ")) {
          onSink(sink);
        } else {
          writeSinkStatus(sink);
        }
      }
    }
  }

  private void onSinkDeleted(HasMetadata sink) {
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    engine.removeSink(name);
    kafkaSinks.remove(name);
    postgresSinks.remove(name);
    appliedSinks.remove(name);
    sinkProblems.remove(name);
    sinkWarnings.remove(name);
    if (metrics != null) {
      metrics.sinkRemoved(name);
    }
  }

  /** How many known targets name this sink. */
  private int targetsUsing(String namespace, String sink) {
    return (int) targets.list().stream()
        .filter(t -> namespace.equals(t.getMetadata().getNamespace()) && t.getSpec() != null
            && t.getSpec().sinkRefs() != null && t.getSpec().sinkRefs().contains(sink))
        .count();
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
    reportMissingProfile(target);
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

  private void reportMissingProfiles() {
    targets.list().stream().filter(t -> namespaceFilter.test(t.getMetadata().getNamespace()))
        .forEach(this::reportMissingProfile);
  }

  private void reportMissingProfile(KollectTarget target) {
    if (target.getSpec() == null || profiles == null) {
      return;
    }
    String ref = target.getSpec().profileRef();
    String id = target.getMetadata().getNamespace() + "/" + target.getMetadata().getName();
    boolean missing = profiles.get(ref).isEmpty();
    problems.report(target, "ProfileNotFound", "KollectTarget " + id, missing
        ? "KollectTarget " + id + ": spec.profileRef: KollectProfile \"" + ref + "\" does not exist"
        : null);
  }

  // ---- any kind --------------------------------------------------------------------------------

  private <T extends HasMetadata> KindWatch.Handler<T> handler(Consumer<T> upsert,
      Consumer<HasMetadata> delete) {
    return handler(upsert, delete, (before, after) -> { });
  }

  /** The same, {@code statusChanged} told when only an object's status changed. */
  private <T extends HasMetadata> KindWatch.Handler<T> handler(Consumer<T> upsert,
      Consumer<HasMetadata> delete,
      BiConsumer<GenericKubernetesResource, GenericKubernetesResource> statusChanged) {
    return new KindWatch.Handler<>() {
      @Override
      public void statusChanged(GenericKubernetesResource before,
          GenericKubernetesResource after) {
        statusChanged.accept(before, after);
      }

      @Override
      public void upsert(T object) {
        upsert.accept(object);
      }

      @Override
      public void delete(HasMetadata object) {
        delete.accept(object);
        problems.forget(KindWatch.describe(object));
        status.forget(KindWatch.describe(object));
      }

      @Override
      public void unreadable(GenericKubernetesResource object, String problem) {
        onUnreadable(object, problem);
      }
    };
  }

  /**
   * A Kollect object this operator cannot read (e.g. a {@code type} from a newer CRD): said once
   * in the log and as an event, and in the object's status; a sink stops being used, a target or
   * profile keeps its last readable spec. The watch of the kind goes on.
   */
  private void onUnreadable(GenericKubernetesResource object, String problem) {
    String what = KindWatch.describe(object);
    String message = what + ": " + problem;
    if (object.getKind().equals("KollectSink")
        && namespaceFilter.test(object.getMetadata().getNamespace())) {
      String name = CrTranslation.sinkName(object.getMetadata().getNamespace(),
          object.getMetadata().getName());
      engine.removeSink(name);
      sinkProblems.put(name, message);
    }
    problems.report(object, "NotUnderstood", what, message);
    if (leader.getAsBoolean()) {
      status.write(object, ResourceStatuses.unreadable(object.getMetadata().getGeneration(),
          message, clock.instant()));
    }
  }

  @Override
  public void close() {
    kafkaSinks.close();
    postgresSinks.close();
    for (KindWatch<?> watch : new java.util.ArrayList<>(java.util.Arrays.asList(
        targets.watch().orElse(null), sinks, profiles))) {
      if (watch != null) {
        watch.close();
      }
    }
  }
}

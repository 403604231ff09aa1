package io.kollect.operator;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.core.TargetStatusListener;
import io.kollect.export.CheckpointStore;
import io.kollect.export.FileCheckpointStore;
import io.kollect.export.SinkOptions;
import io.kollect.export.StdoutSink;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ProfileValidationException;
import io.kollect.extract.Records;
import io.kollect.informers.InformerMetrics;
import io.kollect.informers.InformerOptions;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectProfileStatus;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkStatus;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator: hosts one {@link KollectEngine}, feeds it from the Kollect custom resources, writes
 * their status, keeps inventory objects, elects a leader and serves the HTTP endpoints.
 *
 * <p>Every instance watches everything and keeps warm caches; only the leader exports and writes
 * status. Bad resources never stop it: a profile that does not compile, a target naming a missing
 * profile or a misconfigured sink is logged in one line naming the object and field and reported in
 * that object's status, and everything else keeps working.
 */
public final class KollectOperator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KollectOperator.class);
  /** Sink name of {@code --stdout}. */
  static final String STDOUT_SINK = "stdout";

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final OperatorMetrics metrics = new OperatorMetrics();
  private final CheckpointStore checkpoints;
  private final InventoryObjectSink inventoryObjects;
  private final KollectEngine engine;
  private final OperatorHttp http;
  private final SinkTranslation sinkTranslation;
  private final Predicate<String> namespaceFilter;
  private final List<String> extraSinks;
  private final java.util.concurrent.ScheduledExecutorService statusWriter =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kollect-status-writer");
        t.setDaemon(true);
        return t;
      });
  /** Target status writes, at most one per target per {@link OperatorConfig#statusWriteInterval}. */
  private final CoalescedWrites<TargetId> statusWrites;
  /** Targets given to the engine, for readiness. */
  private final java.util.Set<TargetId> engineTargets = ConcurrentHashMap.newKeySet();
  /**
   * Targets that reported a status since this instance started leading: their reconcile ran with
   * export on, which loads their checkpoints, so once every target is here the checkpoints are.
   */
  private final java.util.Set<TargetId> reportedWhileLeading = ConcurrentHashMap.newKeySet();
  private volatile boolean leadershipKnown;
  private final Map<TargetId, TargetStatus> lastStatus = new ConcurrentHashMap<>();
  private final Map<TargetId, KollectTargetStatus> writtenStatus = new ConcurrentHashMap<>();
  /** The last problem logged per object, so a resync does not repeat the same error line. */
  private final Map<String, String> loggedProblems = new ConcurrentHashMap<>();
  /** Configuration problems of KollectSinks by engine sink name. */
  private final Map<String, String> sinkProblems = new ConcurrentHashMap<>();
  /** Warnings (e.g. TLS verification off) of KollectSinks by engine sink name. */
  private final Map<String, List<String>> sinkWarnings = new ConcurrentHashMap<>();
  /** Validation problems of KollectProfiles by name. */
  private final Map<String, String> profileProblems = new ConcurrentHashMap<>();
  private final java.util.concurrent.ScheduledExecutorService sinkHealth =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kollect-sink-health");
        t.setDaemon(true);
        return t;
      });
  private final LeaderElection election;
  private final Optional<byte[]> digestKey;
  private final ProblemEvents events;
  private volatile boolean leader;
  private volatile KindWatch<KollectProfile> profileInformer;
  private volatile KindWatch<KollectSink> sinkInformer;
  private volatile KindWatch<KollectTarget> targetInformer;

  /**
   * What the operator's flags set on the engine beyond the basics: the watch liveness window
   * ({@code --watch-liveness}) with the informer metrics, the tenant boundary ({@code
   * --default-service-account}, {@code --cluster-wide-namespaces}; always on in the operator, as
   * its targets are namespaced objects teams may create) and the Secret digest key ({@code
   * --digest-key-secret}/{@code --digest-key-file}).
   */
  static KollectEngine.Builder engineSettings(KollectEngine.Builder builder, OperatorConfig config,
      InformerMetrics metrics, Optional<byte[]> digestKey) {
    builder.informerOptions(InformerOptions.defaults().withCluster(config.clusterName())
            .withResyncPeriod(config.resyncPeriod()).withMetrics(metrics)
            .withWatchLiveness(config.watchLiveness()))
        .defaultServiceAccount(config.defaultServiceAccount())
        .trustedNamespaces(config.trustedNamespaces());
    digestKey.ifPresent(key -> builder.extractOptions(new ExtractOptions(key)));
    return builder;
  }

  /** The digest key resolved at construction (given to the engine, see {@link #engineSettings}). */
  Optional<byte[]> digestKey() {
    return digestKey;
  }

  /** Builds the operator; nothing runs until {@link #start()}. */
  public KollectOperator(KubernetesClient client, OperatorConfig config) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.namespaceFilter = config.namespaceFilter();
    this.checkpoints = config.checkpointDir()
        .<CheckpointStore>map(FileCheckpointStore::new)
        .orElseGet(() -> new ConfigMapCheckpointStore(client, config.operatorNamespace()));
    this.statusWrites = new CoalescedWrites<>(config.statusWriteInterval(),
        (task, delay) -> statusWriter.schedule(task, delay, TimeUnit.NANOSECONDS), System::nanoTime);
    this.inventoryObjects = new InventoryObjectSink(client, this::findTarget,
        InventoryObjectSink.DEFAULT_MAX_PART_BYTES, InventoryObjectSink.DEFAULT_MAX_RECORD_BYTES,
        this::onInventoryWritten, java.time.Clock.systemUTC());
    this.digestKey = config.digestKey().resolve(client, config.operatorNamespace());
    this.engine = engineSettings(KollectEngine.builder(client)
        .cluster(config.clusterName())
        .workers(config.workers())
        .resyncPeriod(config.resyncPeriod())
        .checkpointStore(checkpoints)
        .exportMetrics(metrics)
        .informerMetrics(metrics)
        .inventorySink(inventoryObjects)
        .exportEnabled(!config.leaderElection().enabled())
        .namespaceFilter(namespaceFilter), config, metrics, digestKey)
        .build();
    this.sinkTranslation = new SinkTranslation(client);
    this.events = new ProblemEvents(client);
    this.extraSinks = config.stdoutRecords().isPresent() ? List.of(STDOUT_SINK) : List.of();
    this.http = new OperatorHttp(Records.mapper(), this::notReadyReasons, metrics::scrape,
        engine::inventory, config.inventoryAuth());
    this.election = config.leaderElection().enabled()
        ? new LeaderElection(client, config.leaderElection(), this::onLeadership,
            leader -> leadershipKnown = true)
        : null;
  }

  /**
   * Starts serving: HTTP listeners, the engine, the watches on Kollect resources and leader
   * election.
   *
   * @throws IOException when a listen address cannot be bound
   */
  public void start() throws IOException {
    http.start(config.probeAddress(), config.metricsAddress());
    engine.addStatusListener(new TargetStatusListener() {
      @Override
      public void onStatus(TargetStatus status) {
        lastStatus.put(status.id(), status);
        if (leader) {
          reportedWhileLeading.add(status.id());
        }
        metrics.target(status);
        requestStatusWrite(status.id());
      }

      @Override
      public void onRemoved(TargetId id) {
        metrics.targetRemoved(id);
        lastStatus.remove(id);
        writtenStatus.remove(id);
        statusWrites.forget(id);
      }
    });
    config.stdoutRecords().ifPresent(out -> engine.putSink(new StdoutSink(STDOUT_SINK, out),
        SinkOptions.defaults().withLinger(Duration.ofMillis(100))));
    engine.start();
    if (election == null) {
      onLeadership(true); // before the watches, so the first problems already become events
    }
    long resync = config.resyncPeriod().toMillis();
    // Profiles and sinks first, so that targets are not reported as naming missing ones on start.
    profileInformer = new KindWatch<>(client, KollectProfile.class,
        io.kollect.operator.crd.KollectProfileSpec.class, false, resync,
        handler(this::onProfile, this::onProfileDeleted));
    sinkInformer = new KindWatch<>(client, KollectSink.class,
        io.kollect.operator.crd.KollectSinkSpec.class, true, resync,
        handler(this::onSink, this::onSinkDeleted));
    awaitListed("KollectProfiles", profileInformer.start());
    awaitListed("KollectSinks", sinkInformer.start());
    targetInformer = new KindWatch<>(client, KollectTarget.class,
        io.kollect.operator.crd.KollectTargetSpec.class, true, resync,
        handler(this::onTarget, this::onTargetDeleted));
    awaitListed("KollectTargets", targetInformer.start());
    if (election != null) {
      election.start();
    }
    sinkHealth.scheduleWithFixedDelay(() -> {
      try {
        checkSinkHealth();
      } catch (RuntimeException e) {
        log.warn("sink health check failed: {}", e.toString());
      }
    }, 5, 5, TimeUnit.SECONDS);
  }

  /**
   * Waits for the first list of a Kollect resource; a failure here (API server unreachable, CRDs
   * not installed, no permission) stops the start with one line saying which.
   */
  private void awaitListed(String what, java.util.concurrent.CompletionStage<Void> started) {
    try {
      started.toCompletableFuture().get(2, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause.getCause() != null && cause.getCause() != cause) {
        if (cause instanceof KubernetesClientException k && k.getCode() > 0) {
          break;
        }
        cause = cause.getCause();
      }
      String hint = "";
      if (cause instanceof KubernetesClientException k && k.getCode() == 404) {
        hint = " (are the Kollect CRDs installed? kubectl apply -k deploy/crds)";
      } else if (cause instanceof KubernetesClientException k && k.getCode() == 403) {
        hint = " (the operator's service account lacks list/watch on it: see deploy/rbac)";
      }
      throw new IllegalStateException("cannot list " + what + " at " + client.getMasterUrl() + ": "
          + firstLine(String.valueOf(cause.getMessage())) + hint, e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot list " + what + ": no answer from the API server in 2 minutes", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing " + what, e);
    }
  }

  /** The hosted engine. */
  public KollectEngine engine() {
    return engine;
  }

  /** Whether this instance currently leads (always, without leader election). */
  public boolean isLeader() {
    return leader;
  }

  /**
   * Ready when the Kollect resources are listed, every leased informer has synced, the leadership
   * state is known and, on the leader, every target's checkpoints are loaded.
   */
  public boolean isReady() {
    return notReadyReasons().isEmpty();
  }

  /** Why this instance is not ready, one short line each; empty when it is. */
  List<String> notReadyReasons() {
    List<String> reasons = new ArrayList<>();
    if (targetInformer == null || !targetInformer.hasSynced() || !profileInformer.hasSynced()
        || !sinkInformer.hasSynced()) {
      reasons.add("Kollect resources not listed yet");
    } else if (!engine.isReady()) {
      reasons.add("informers not synced");
    }
    if (!leadershipKnown) {
      reasons.add("leadership state not known yet");
    } else if (leader) {
      long loading = engineTargets.stream().filter(id -> !reportedWhileLeading.contains(id)).count();
      if (loading > 0) {
        reasons.add("checkpoints of " + loading + " target(s) not loaded yet");
      }
    }
    reasons.addAll(stalledWatches());
    return reasons;
  }

  /** Dead or silent watches, one line each naming the type, namespace and since when. */
  List<String> stalledWatches() {
    return engine.stalledWatches().stream()
        .map(w -> "watch of " + w.type() + " in " + ("*".equals(w.namespace()) ? "all namespaces"
            : "namespace " + w.namespace()) + " silent since " + w.silentSince() + ": "
            + w.reason())
        .toList();
  }

  /** Where {@code /metrics} and {@code /inventory} are served, once started. */
  public Optional<InetSocketAddress> metricsAddress() {
    return http.metricsAddress();
  }

  /** Where {@code /healthz} and {@code /readyz} are served, once started. */
  public Optional<InetSocketAddress> probeAddress() {
    return http.probeAddress();
  }

  /** The current status of a target as the engine sees it (also when this is not the leader). */
  public Optional<TargetStatus> status(TargetId id) {
    return Optional.ofNullable(lastStatus.get(id));
  }

  private Optional<KollectTarget> findTarget(TargetId id) {
    KindWatch<KollectTarget> informer = targetInformer;
    return informer == null
        ? Optional.empty()
        : informer.get(id.namespace() + "/" + id.name());
  }

  // ---- leadership ------------------------------------------------------------------------------

  private synchronized void onLeadership(boolean isLeader) {
    reportedWhileLeading.clear();
    leader = isLeader;
    leadershipKnown = true;
    metrics.leader(isLeader);
    if (isLeader) {
      if (checkpoints instanceof ConfigMapCheckpointStore cm) {
        cm.forgetWritten();
      }
      inventoryObjects.forget();
      engine.setExportEnabled(true);
      writtenStatus.clear();
      statusWriter.execute(this::writeAllStatus);
    } else {
      engine.setExportEnabled(false);
    }
  }

  private void writeAllStatus() {
    // A new leader reports known problems again: as events, and in the status written below.
    loggedProblems.clear();
    for (TargetId id : List.copyOf(lastStatus.keySet())) {
      requestStatusWrite(id);
    }
    // Only report: putting profiles or sinks again would make the engine re-send to the sinks.
    if (profileInformer != null) {
      profileInformer.list().forEach(this::reportProfile);
    }
    if (sinkInformer != null) {
      sinkInformer.list().stream()
          .filter(k -> namespaceFilter.test(k.getMetadata().getNamespace()))
          .forEach(this::reportSink);
    }
    reportMissingProfileOfTargets();
    if (targetInformer != null) {
      sweepOrphanInventories();
    }
  }

  /** Deletes inventory objects whose target was deleted while no leader was watching. */
  private void sweepOrphanInventories() {
    try {
      for (KollectInventory inv : client.resources(KollectInventory.class).inAnyNamespace()
          .withLabel(InventoryObjectSink.TARGET_LABEL).list().getItems()) {
        if (inv.getSpec() == null || inv.getSpec().target() == null) {
          continue;
        }
        TargetId id = new TargetId(inv.getMetadata().getNamespace(), inv.getSpec().target());
        Optional<KollectTarget> owner = findTarget(id);
        boolean wanted = owner.isPresent() && owner.get().getSpec() != null
            && Boolean.TRUE.equals(owner.get().getSpec().writeInventory());
        if (!wanted && targetInformer.hasSynced()) {
          log.info("deleting inventory {} of target {} (deleted, or writeInventory off)",
              inv.getMetadata().getName(), id);
          client.resource(inv).delete();
        }
      }
    } catch (KubernetesClientException e) {
      log.warn("cannot sweep orphaned inventory objects: {}", e.getMessage());
    }
  }

  // ---- profiles --------------------------------------------------------------------------------

  private void onProfile(KollectProfile profile) {
    String name = profile.getMetadata().getName();
    String problem = null;
    try {
      ProfileSpec spec = CrTranslation.profile(profile);
      engine.putProfile(name, spec);
      problem = engine.profileError(name).orElse(null);
    } catch (ProfileValidationException e) {
      problem = e.getMessage();
    } catch (IllegalArgumentException e) {
      problem = "KollectProfile " + name + " is invalid: " + firstLine(e.getMessage());
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
    reportMissingProfileOfTargets();
  }

  /** Logs (once), records as an event and writes to status the profile's known problem. */
  private void reportProfile(KollectProfile profile) {
    String name = profile.getMetadata().getName();
    String problem = profileProblems.get(name);
    report(profile, "InvalidProfile", "KollectProfile " + name, problem);
    if (leader) {
      writeProfileStatus(profile, problem);
    }
  }

  private void onProfileDeleted(io.fabric8.kubernetes.api.model.HasMetadata profile) {
    engine.removeProfile(profile.getMetadata().getName());
    profileProblems.remove(profile.getMetadata().getName());
    loggedProblems.remove("KollectProfile " + profile.getMetadata().getName());
    reportMissingProfileOfTargets();
  }

  /**
   * What the compiled profile accepts but ignores, one line each naming the field (e.g. {@code
   * resources[0].includeSecretData is ignored: ...}); the profile's status carries them as a
   * {@code Warning} condition.
   */
  List<String> profileWarnings(String profile) {
    return engine.profileWarnings(profile);
  }

  private void writeProfileStatus(KollectProfile profile, String problem) {
    long generation = Optional.ofNullable(profile.getMetadata().getGeneration()).orElse(0L);
    List<Condition> previous = profile.getStatus() == null || profile.getStatus().conditions() == null
        ? List.of() : profile.getStatus().conditions();
    List<Condition> conditions = new ArrayList<>(problem == null
        ? List.of(
            keep(previous, "Ready", "True", "Valid", "profile compiles", generation),
            keep(previous, "Degraded", "False", "Valid", "no problems", generation))
        : List.of(
            keep(previous, "Ready", "False", "InvalidProfile", problem, generation),
            keep(previous, "Degraded", "True", "InvalidProfile", problem, generation),
            keep(previous, "Stalled", "True", "InvalidProfile", problem, generation)));
    List<String> warnings = profileWarnings(profile.getMetadata().getName());
    if (!warnings.isEmpty()) {
      conditions.add(keep(previous, "Warning", "True", "IgnoredFields", String.join("; ", warnings),
          generation));
    }
    Integer resources = profile.getSpec() == null || profile.getSpec().resources() == null
        ? null : profile.getSpec().resources().size();
    KollectProfileStatus status = new KollectProfileStatus(generation, conditions, resources);
    if (status.equals(profile.getStatus())) {
      return;
    }
    statusWriter.execute(() -> {
      try {
        client.resources(KollectProfile.class).withName(profile.getMetadata().getName())
            .editStatus(p -> {
              p.setStatus(status);
              return p;
            });
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          log.warn("KollectProfile {}: cannot write status: {}", profile.getMetadata().getName(),
              e.getMessage());
        }
      }
    });
  }

  // ---- sinks -----------------------------------------------------------------------------------

  private void onSink(KollectSink sink) {
    String ns = sink.getMetadata().getNamespace();
    if (!namespaceFilter.test(ns)) {
      return;
    }
    String name = CrTranslation.sinkName(ns, sink.getMetadata().getName());
    try {
      SinkTranslation.Built built = sinkTranslation.build(name, sink);
      engine.putSink(built.sink(), built.options());
      sinkProblems.remove(name);
      sinkWarnings.put(name, built.warnings());
      built.warnings().forEach(w -> log.warn("KollectSink {}: {}", name, w));
    } catch (IllegalArgumentException e) {
      sinkProblems.put(name, "KollectSink " + name + ": " + firstLine(e.getMessage()));
      engine.removeSink(name);
    }
    reportSink(sink);
  }

  /** Logs (once), records as an event and writes to status the sink's known problem. */
  private void reportSink(KollectSink sink) {
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    report(sink, "InvalidSink", "KollectSink " + name, sinkProblems.get(name));
    if (leader) {
      writeSinkStatus(sink);
    }
  }

  /** Re-evaluates every sink's status from its configuration and its recent deliveries. */
  private void checkSinkHealth() {
    KindWatch<KollectSink> informer = sinkInformer;
    if (!leader || informer == null) {
      return;
    }
    for (KollectSink sink : informer.list()) {
      if (namespaceFilter.test(sink.getMetadata().getNamespace())) {
        String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
            sink.getMetadata().getName());
        String problem = sinkProblems.get(name);
        if (problem != null && problem.contains("Secret ")) {
          onSink(sink); // a Secret it names may exist now
        } else {
          writeSinkStatus(sink);
        }
      }
    }
  }

  private void onSinkDeleted(io.fabric8.kubernetes.api.model.HasMetadata sink) {
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    engine.removeSink(name);
    sinkProblems.remove(name);
    sinkWarnings.remove(name);
    loggedProblems.remove("KollectSink " + name);
  }

  private void writeSinkStatus(KollectSink sink) {
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    long generation = Optional.ofNullable(sink.getMetadata().getGeneration()).orElse(0L);
    List<Condition> previous = sink.getStatus() == null || sink.getStatus().conditions() == null
        ? List.of() : sink.getStatus().conditions();
    String problem = sinkProblems.get(name);
    OperatorMetrics.Delivery delivery = metrics.delivery(name);
    List<Condition> conditions;
    if (problem != null) {
      conditions = List.of(
          keep(previous, "Ready", "False", "InvalidSink", problem, generation),
          keep(previous, "Degraded", "True", "InvalidSink", problem, generation),
          keep(previous, "Stalled", "True", "InvalidSink", problem, generation));
    } else if (delivery.failing()) {
      String message = "deliveries are failing since " + CrTranslation.rfc3339(delivery.failingSince())
          + " (" + delivery.failedRecords() + " records in failed attempts, retrying); last success "
          + (delivery.lastSuccess() == null ? "never" : CrTranslation.rfc3339(delivery.lastSuccess()));
      conditions = List.of(
          keep(previous, "Ready", "True", "Configured", "sink configured", generation),
          keep(previous, "Degraded", "True", "DeliveryFailing", message, generation));
    } else {
      conditions = List.of(
          keep(previous, "Ready", "True", "Configured", "sink configured", generation),
          keep(previous, "Degraded", "False", "Delivering", "no problems", generation));
    }
    List<String> warnings = sinkWarnings.getOrDefault(name, List.of());
    if (problem == null && !warnings.isEmpty()) {
      conditions = new ArrayList<>(conditions);
      conditions.add(keep(previous, "Insecure", "True", "InsecureSkipVerify",
          String.join("; ", warnings), generation));
    }
    KollectSinkStatus status = new KollectSinkStatus(generation, conditions,
        targetsUsing(sink.getMetadata().getNamespace(), sink.getMetadata().getName()));
    if (sameConditions(status.conditions(), sink.getStatus() == null ? null : sink.getStatus().conditions())
        && Long.valueOf(generation).equals(sink.getStatus().observedGeneration())
        && java.util.Objects.equals(status.targets(), sink.getStatus().targets())) {
      return;
    }
    statusWriter.execute(() -> {
      try {
        client.resources(KollectSink.class).inNamespace(sink.getMetadata().getNamespace())
            .withName(sink.getMetadata().getName())
            .editStatus(s -> {
              s.setStatus(status);
              return s;
            });
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          log.warn("KollectSink {}: cannot write status: {}", sink.getMetadata().getName(),
              e.getMessage());
        }
      }
    });
  }

  /** How many known targets name this sink. */
  private int targetsUsing(String namespace, String sink) {
    KindWatch<KollectTarget> informer = targetInformer;
    if (informer == null) {
      return 0;
    }
    return (int) informer.list().stream()
        .filter(t -> namespace.equals(t.getMetadata().getNamespace()) && t.getSpec() != null
            && t.getSpec().sinkRefs() != null && t.getSpec().sinkRefs().contains(sink))
        .count();
  }

  /** Equal but for the transition times, which {@link #keep} carries over anyway. */
  private static boolean sameConditions(List<Condition> a, List<Condition> b) {
    if (a == null || b == null || a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Condition x = a.get(i);
      Condition y = b.get(i);
      if (!Objects.equals(x.getType(), y.getType()) || !Objects.equals(x.getStatus(), y.getStatus())
          || !Objects.equals(x.getReason(), y.getReason())
          || !Objects.equals(x.getMessage(), y.getMessage())) {
        return false;
      }
    }
    return true;
  }

  // ---- targets ---------------------------------------------------------------------------------

  private void onTarget(KollectTarget target) {
    String ns = target.getMetadata().getNamespace();
    if (!namespaceFilter.test(ns)) {
      return;
    }
    TargetSpec spec;
    try {
      spec = CrTranslation.target(target, extraSinks, config.defaultServiceAccount());
    } catch (IllegalArgumentException e) {
      report(target, "InvalidTarget", "KollectTarget " + ns + "/" + target.getMetadata().getName(),
          "KollectTarget " + ns + "/" + target.getMetadata().getName() + ": " + e.getMessage());
      return;
    }
    reportMissingProfile(target);
    try {
      engine.putTarget(spec);
      engineTargets.add(spec.id());
    } catch (IllegalArgumentException e) {
      // The engine validates the scope (label selectors) and names the target and field itself.
      // It keeps the target's last valid spec, so exports go on while the problem is reported.
      report(target, "InvalidTarget", "KollectTarget " + spec.id(), e.getMessage());
      return;
    }
    if (!spec.writeInventory() && leader) {
      statusWriter.execute(() -> {
        try {
          inventoryObjects.deleteTarget(spec.id());
        } catch (KubernetesClientException e) {
          log.warn("KollectTarget {}: cannot delete its inventory objects: {}", spec.id(), e.getMessage());
        }
      });
    }
  }

  private void onTargetDeleted(io.fabric8.kubernetes.api.model.HasMetadata target) {
    TargetId id = new TargetId(target.getMetadata().getNamespace(), target.getMetadata().getName());
    engine.removeTarget(id);
    engineTargets.remove(id);
    reportedWhileLeading.remove(id);
    statusWrites.forget(id);
    lastStatus.remove(id);
    writtenStatus.remove(id);
    loggedProblems.remove("KollectTarget " + id);
    if (leader) {
      statusWriter.execute(() -> {
        try {
          inventoryObjects.deleteTarget(id);
        } catch (KubernetesClientException e) {
          log.warn("KollectTarget {}: cannot delete its inventory objects: {}", id, e.getMessage());
        }
      });
    }
  }

  private void reportMissingProfileOfTargets() {
    if (targetInformer != null) {
      targetInformer.list().forEach(this::reportMissingProfile);
    }
  }

  private void reportMissingProfile(KollectTarget target) {
    if (target.getSpec() == null || profileInformer == null) {
      return;
    }
    String ref = target.getSpec().profileRef();
    String id = target.getMetadata().getNamespace() + "/" + target.getMetadata().getName();
    boolean missing = profileInformer.get(ref).isEmpty();
    report(target, "ProfileNotFound", "KollectTarget " + id, missing
        ? "KollectTarget " + id + ": spec.profileRef: KollectProfile \"" + ref + "\" does not exist"
        : null);
  }

  /**
   * How the target's deliveries to each of its KollectSinks go, as the engine last reported them
   * ({@link TargetStatus#deliveries()}); the inventory objects are reported apart ({@code
   * status.inventory}), so the inventory sink is left out here.
   */
  List<SinkDelivery> deliveries(TargetId id) {
    TargetStatus status = lastStatus.get(id);
    if (status == null) {
      return List.of();
    }
    List<SinkDelivery> out = new ArrayList<>();
    status.deliveries().forEach((sink, d) -> {
      if (!InventoryObjectSink.NAME.equals(sink)) {
        out.add(new SinkDelivery(sink, d.lastAcknowledged(), d.pending(), d.consecutiveFailures(),
            d.failingSince(), d.lastError(), d.rejected().stream()
                .map(r -> new SinkDelivery.Rejected(r.key(), r.reason())).toList()));
      }
    });
    return out;
  }

  /** Asks for a status write of a target, coalesced to one per status write interval. */
  private void requestStatusWrite(TargetId id) {
    statusWrites.request(id, () -> writeTargetStatus(id));
  }

  /** After every inventory write attempt of a target: its metrics and (coalesced) status. */
  private void onInventoryWritten(TargetId id) {
    inventoryObjects.health(id).ifPresent(h -> metrics.inventory(id, h));
    requestStatusWrite(id);
  }

  private void writeTargetStatus(TargetId id) {
    TargetStatus status = lastStatus.get(id);
    if (!leader || status == null) {
      return;
    }
    List<SinkDelivery> deliveries = deliveries(id);
    metrics.deliveries(id, deliveries);
    KollectTargetStatus next = CrTranslation.status(status,
        inventoryObjects.health(id).orElse(null), deliveries, Instant.now(), writtenStatus.get(id));
    if (next.equals(writtenStatus.get(id))) {
      return;
    }
    try {
      client.resources(KollectTarget.class).inNamespace(id.namespace()).withName(id.name())
          .editStatus(t -> {
            t.setStatus(next);
            return t;
          });
      writtenStatus.put(id, next);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        log.warn("KollectTarget {}: cannot write status: {}", id, e.getMessage());
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /**
   * Logs a problem of an object once (until it changes or clears), as one line, and records it as
   * a Warning event on the object when this instance leads.
   */
  private void report(io.fabric8.kubernetes.api.model.HasMetadata resource, String reason,
      String object, String problem) {
    if (problem == null) {
      if (loggedProblems.remove(object) != null) {
        log.info("{}: problem resolved", object);
      }
      return;
    }
    String line = firstLine(problem);
    if (!line.equals(loggedProblems.put(object, line))) {
      log.error(line);
      if (leader) {
        statusWriter.execute(() -> events.warn(resource, reason, line));
      }
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** A condition that keeps its last transition time when its status did not change. */
  private static Condition keep(List<Condition> previous, String type, String status, String reason,
      String message, long generation) {
    Instant since = Instant.now();
    for (Condition c : previous) {
      if (type.equals(c.getType()) && status.equals(c.getStatus())
          && c.getLastTransitionTime() != null) {
        since = Instant.parse(c.getLastTransitionTime());
      }
    }
    return CrTranslation.condition(type, status, reason, message, since, generation);
  }

  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> KindWatch.Handler<T> handler(
      java.util.function.Consumer<T> upsert,
      java.util.function.Consumer<io.fabric8.kubernetes.api.model.HasMetadata> delete) {
    return new KindWatch.Handler<>() {
      @Override
      public void upsert(T object) {
        upsert.accept(object);
      }

      @Override
      public void delete(io.fabric8.kubernetes.api.model.HasMetadata object) {
        delete.accept(object);
        loggedProblems.remove(describe(object));
      }

      @Override
      public void unreadable(io.fabric8.kubernetes.api.model.GenericKubernetesResource object,
          String problem) {
        onUnreadable(object, problem);
      }
    };
  }

  /** {@code Kind namespace/name} or {@code Kind name}. */
  private static String describe(io.fabric8.kubernetes.api.model.HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return o.getKind() + " " + (ns == null ? "" : ns + "/") + o.getMetadata().getName();
  }

  /**
   * A Kollect object this operator cannot read (e.g. a {@code type} from a newer CRD): said once
   * in the log and as an event, and in the object's status; a sink stops being used, a target or
   * profile keeps its last readable spec. The watch of the kind goes on.
   */
  private void onUnreadable(io.fabric8.kubernetes.api.model.GenericKubernetesResource object,
      String problem) {
    String what = describe(object);
    String message = what + ": " + problem;
    if (object.getKind().equals("KollectSink")
        && namespaceFilter.test(object.getMetadata().getNamespace())) {
      String name = CrTranslation.sinkName(object.getMetadata().getNamespace(),
          object.getMetadata().getName());
      engine.removeSink(name);
      sinkProblems.put(name, message);
    }
    if (object.getKind().equals("KollectTarget")) {
      // Written again from the engine's view once the object reads again.
      writtenStatus.remove(new TargetId(object.getMetadata().getNamespace(),
          object.getMetadata().getName()));
    }
    report(object, "NotUnderstood", what, message);
    if (leader) {
      writeUnreadableStatus(object, message);
    }
  }

  private void writeUnreadableStatus(io.fabric8.kubernetes.api.model.GenericKubernetesResource object,
      String message) {
    long generation = Optional.ofNullable(object.getMetadata().getGeneration()).orElse(0L);
    Instant now = Instant.now();
    Map<String, Object> status = Map.of("observedGeneration", generation, "conditions", List.of(
        conditionMap(CrTranslation.condition("Ready", "False", "NotUnderstood", message, now, generation)),
        conditionMap(CrTranslation.condition("Stalled", "True", "NotUnderstood", message, now, generation))));
    statusWriter.execute(() -> {
      try {
        var resources = client.genericKubernetesResources(
            object.getApiVersion(), object.getKind());
        var one = object.getMetadata().getNamespace() == null
            ? resources.withName(object.getMetadata().getName())
            : resources.inNamespace(object.getMetadata().getNamespace())
                .withName(object.getMetadata().getName());
        one.editStatus(g -> {
          g.setAdditionalProperty("status", status);
          return g;
        });
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          log.warn("{}: cannot write status: {}", describe(object), firstLine(e.getMessage()));
        }
      }
    });
  }

  private static Map<String, Object> conditionMap(Condition c) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("type", c.getType());
    m.put("status", c.getStatus());
    m.put("reason", c.getReason());
    m.put("message", c.getMessage());
    m.put("lastTransitionTime", c.getLastTransitionTime());
    m.put("observedGeneration", c.getObservedGeneration());
    return m;
  }

  /**
   * Stops exporting (draining what is pending), releases the lease so a standby takes over at
   * once, and stops the listeners.
   */
  @Override
  public void close() {
    for (KindWatch<?> informer : new ArrayList<>(java.util.Arrays.asList(
        targetInformer, sinkInformer, profileInformer))) {
      if (informer != null) {
        informer.close();
      }
    }
    sinkHealth.shutdownNow();
    engine.close();
    if (election != null) {
      election.close();
    }
    statusWriter.shutdown();
    try {
      statusWriter.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    http.close();
  }
}

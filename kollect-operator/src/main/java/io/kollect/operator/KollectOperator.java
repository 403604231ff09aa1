package io.kollect.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.core.KollectEngineBuilder;
import io.kollect.core.TargetId;
import io.kollect.core.TargetStatus;
import io.kollect.core.lifecycle.ProfileExperiments;
import io.kollect.export.CheckpointStore;
import io.kollect.export.FileCheckpointStore;
import io.kollect.export.SinkOptions;
import io.kollect.export.StdoutSink;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.Records;
import io.kollect.informers.InformerMetrics;
import io.kollect.informers.InformerOptions;
import io.kollect.operator.checkpoint.ConfigMapCheckpointStore;
import io.kollect.operator.cluster.ClusterCatalog;
import io.kollect.operator.cluster.ClusterFeed;
import io.kollect.operator.cluster.KollectClusterConnections;
import io.kollect.operator.cluster.RemoteClients;
import io.kollect.operator.cluster.TargetClusters;
import io.kollect.operator.http.OperatorHttp;
import io.kollect.operator.inventory.InventoryObjectSink;
import io.kollect.operator.inventory.InventorySweep;
import io.kollect.operator.leader.LeaderElection;
import io.kollect.operator.leader.LeaderFlag;
import io.kollect.operator.leader.Leadership;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.profile.ControllerRevisionHistory;
import io.kollect.operator.profile.ProfileFeed;
import io.kollect.operator.profile.ProfileLifecycle;
import io.kollect.operator.shard.ShardLeases;
import io.kollect.operator.shard.ShardNames;
import io.kollect.operator.sink.SinkFeed;
import io.kollect.operator.sink.SinkTranslation;
import io.kollect.operator.status.CoalescedWrites;
import io.kollect.operator.status.FeedContext;
import io.kollect.operator.status.ProblemEvents;
import io.kollect.operator.status.ProblemReports;
import io.kollect.operator.status.StatusWriter;
import io.kollect.operator.targets.KollectTargets;
import io.kollect.operator.targets.ReconcileRequests;
import io.kollect.operator.targets.TargetFeed;
import io.kollect.operator.targets.TargetStatuses;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>This class only composes; each concern is one class: one feed per kind ({@link
 * ProfileFeed}, {@link SinkFeed}, {@link TargetFeed}, {@link ClusterFeed}: the custom resources
 * into the engine), {@link TargetStatuses} and {@link StatusWriter} (status back out),
 * {@link Leadership} (what gaining and losing the lead does), {@link InventorySweep} and {@link
 * InventoryObjectSink} (KollectInventory objects), {@link OperatorHttp} (endpoints).
 */
public final class KollectOperator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KollectOperator.class);
  /** Sink name of {@code --stdout}. */
  static final String STDOUT_SINK = "stdout";
  /** {@code --stdout}: each record is written as it comes; a linger would only delay the line. */
  static final SinkOptions STDOUT_OPTIONS = SinkOptions.defaults().withLinger(Duration.ZERO);
  /** How often sinks' statuses are re-evaluated from their deliveries. */
  private static final Duration SINK_RECHECK = Duration.ofSeconds(5);

  private final OperatorConfig config;
  private final OperatorMetrics metrics = new OperatorMetrics();
  private final CheckpointStore checkpoints;
  private final InventoryObjectSink inventoryObjects;
  private final KollectEngine engine;
  private final OperatorHttp http;
  private final Optional<byte[]> digestKey;
  /** Every API write of the operator but exports: statuses, events, inventory deletes. */
  private final ScheduledExecutorService writer = daemon("kollect-status-writer");
  private final ScheduledExecutorService sinkRecheck = daemon("kollect-sink-health");
  private final StatusWriter statusWriter;
  /** Whether this instance leads, read by every part that writes only on the leader. */
  private final LeaderFlag leaderFlag = new LeaderFlag();
  private final TargetStatuses targetStatuses;
  private final InventorySweep sweep;
  /** Problems of the Kollect resources, said once: a new leader records the missing Events. */
  private final ProblemReports problems;
  private final ProfileFeed profileFeed;
  private final SinkFeed sinkFeed;
  private final TargetFeed targetFeed;
  private final Leadership leadership;
  private final ProfileLifecycle profileLifecycle;
  /** Remote clusters: their clients' shared stack and their feed. */
  private final RemoteClients remoteClients;
  private final ClusterFeed clusterFeed;
  /** Shard 0 with leader election: whether the other shards have a leader; else {@code null}. */
  private final ShardLeases shardLeases;

  /**
   * What the operator's flags set on the engine beyond the basics: the watch liveness window
   * ({@code --watch-liveness}) with the informer metrics, the list page size ({@code
   * --list-page-size}), the tenant boundary ({@code --default-service-account}, {@code
   * --cluster-wide-namespaces}; always on in the operator, as its targets are namespaced objects
   * teams may create), the Secret digest key ({@code --digest-key-secret}/{@code
   * --digest-key-file}) and the guards ({@link GuardSettings}).
   */
  static KollectEngineBuilder engineSettings(KollectEngineBuilder builder, OperatorConfig config,
      InformerMetrics metrics, Optional<byte[]> digestKey) {
    builder.informerOptions(informerOptions(config, metrics))
        .defaultServiceAccount(config.tenancy().defaultServiceAccount())
        .trustedNamespaces(config.trustedNamespaces())
        .circuitBreaker(config.guards().circuitBreakerFailures(),
            config.guards().circuitBreakerMaxCooldown())
        .warnObjectsPerTarget(config.guards().warnObjectsPerTarget())
        .lastExportNotifyInterval(config.reconcile().timings().lastExportNotifyInterval());
    digestKey.ifPresent(key -> builder.extractOptions(new ExtractOptions(key)));
    return builder;
  }

  /** The informer settings the flags make. */
  static InformerOptions informerOptions(OperatorConfig config, InformerMetrics metrics) {
    return InformerOptions.defaults().withCluster(config.clusterName())
        .withResyncPeriod(config.watch().resyncPeriod()).withMetrics(metrics)
        .withWatchLiveness(config.watch().watchLiveness())
        .withListPageSize(config.watch().listPageSize())
        .withClusterWideThreshold(config.watch().clusterWideThreshold());
  }

  /** The digest key resolved at construction (given to the engine, see {@link #engineSettings}). */
  Optional<byte[]> digestKey() {
    return digestKey;
  }

  /**
   * Builds the operator; nothing runs until {@link #start()}. Each part is built once what it needs
   * exists, so every field is final and nothing is wired after construction. One edge runs back:
   * an inventory write asks for a status write ({@link #onInventoryWritten}) while the target's
   * status reads the inventory's health, so the inventory sink is given a method of this operator,
   * called only once the operator runs. It is the longest method of the module on purpose: the
   * whole wiring reads top to bottom in dependency order, which helpers would hide.
   */
  public KollectOperator(KubernetesClient client, OperatorConfig config) {
    Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    Clock clock = Clock.systemUTC();
    this.checkpoints = config.export().checkpointDir()
        .<CheckpointStore>map(dir -> config.shard().sharded()
            ? FileCheckpointStore.inShardLayout(dir, config.shard().index())
            : FileCheckpointStore.inShardLayout(dir))
        .orElseGet(() -> new ConfigMapCheckpointStore(client, config.operatorNamespace(),
            config.shard()));
    this.statusWriter = new StatusWriter(client, writer);
    this.digestKey = config.digestKey().resolve(client, config.operatorNamespace());
    this.remoteClients = new RemoteClients(KubeClients.DEFAULT_QPS, KubeClients.DEFAULT_BURST);
    ClusterCatalog clusterCatalog = new ClusterCatalog(config.clusterName(),
        config.trustedNamespaces(), config.clusters().secretNamespaces(),
        config.clusters().files());
    KollectClusterConnections clusterConnections = new KollectClusterConnections(client,
        clusterCatalog, config.clusters().secretPolicy(), remoteClients);
    TargetClusters targetClusters = new TargetClusters(clusterCatalog);
    KollectTargets targets = new KollectTargets();
    this.inventoryObjects = new InventoryObjectSink(client, targets::target,
        InventoryObjectSink.DEFAULT_MAX_PART_BYTES, InventoryObjectSink.DEFAULT_MAX_RECORD_BYTES,
        this::onInventoryWritten, clock, config.clusterName(), config.shard());
    this.engine = engineSettings(KollectEngine.builder(client)
        .cluster(config.clusterName())
        .shard(config.shard())
        .workers(config.reconcile().workers())
        .resyncPeriod(config.watch().resyncPeriod())
        .checkpointStore(checkpoints)
        .exportMetrics(metrics)
        .informerMetrics(metrics)
        .inventorySink(inventoryObjects)
        .exportEnabled(!config.leaderElection().enabled())
        .namespaceFilter(config.namespaceFilter())
        .clusterConnections(clusterConnections), config, metrics, digestKey)
        .build();
    ReconcileRequests reconcileRequests = new ReconcileRequests(engine);
    // Every shard judges the others: the lowest-index one with a leader writes the top level.
    this.shardLeases = config.leaderElection().enabled() && config.shard().sharded()
        ? new ShardLeases(client, config.leaderElection(), config.shard()) : null;
    CoalescedWrites<TargetId> coalesced = new CoalescedWrites<>(
        config.reconcile().statusWriteInterval(),
        (task, delay) -> writer.schedule(task, delay, TimeUnit.NANOSECONDS), System::nanoTime);
    this.targetStatuses = new TargetStatuses(coalesced, statusWriter, metrics, inventoryObjects,
        new TargetStatuses.Sources(targets::cachedTarget, leaderFlag::isLeader,
            reconcileRequests::handled, shardLeases != null ? shardLeases::down : Map::of),
        clock, config.shard());
    this.sweep = new InventorySweep(InventorySweep.clusterApi(client, inventoryObjects),
        targets::target, writer::execute,
        inv -> ShardNames.foreign(config.shard(), InventoryObjectSink.shardOf(inv))
            || InventoryObjectSink.ofClusterNotRead(inv, config.shard(), config.clusterName()));
    this.problems = new ProblemReports(new ProblemEvents(client)::warn, writer,
        leaderFlag::isLeader);
    ControllerRevisionHistory history =
        new ControllerRevisionHistory(client, config.operatorNamespace());
    this.profileLifecycle = new ProfileLifecycle(history, ProfileExperiments.builder(history)
        .engine(engine).clock(clock).writes(!config.leaderElection().enabled())
        .diffInterval(config.reconcile().timings().experimentDiffInterval())
        .terminalRetention(config.reconcile().timings().experimentRetention()).build(), engine,
        clock);
    FeedContext feeds = new FeedContext(client, engine, statusWriter, problems, metrics,
        leaderFlag::isLeader, config.namespaceFilter(), config.watch().resyncPeriod().toMillis(),
        clock);
    // Profiles and sinks read the targets' cache; targets ask the profiles for their profileRef.
    this.profileFeed = new ProfileFeed(feeds, profileLifecycle, targets::list);
    this.sinkFeed = new SinkFeed(feeds, new SinkTranslation(client), targets::list);
    this.targetFeed = TargetFeed.builder(feeds)
        .targets(targets)
        .reconcileRequests(reconcileRequests)
        .profileCheck(profileFeed::reportMissingProfile)
        .targetClusters(targetClusters::of)
        .targetHooks(targetHooks(sweep, targetStatuses))
        .extraSinks(config.export().stdoutRecords().isPresent() ? List.of(STDOUT_SINK)
            : List.of())
        .defaultServiceAccount(config.tenancy().defaultServiceAccount())
        .build();
    this.clusterFeed = new ClusterFeed(feeds, clusterCatalog, targetClusters, clusterConnections,
        remoteClients, targetFeed::retarget);
    this.leadership = new Leadership(leadershipSteps(), writer, config.leaderElection().enabled()
        ? (onLeadership, onObserved) -> new LeaderElection(client,
            config.leaderElection().forShard(config.shard()), onLeadership, onObserved)
        : null, leaderFlag);
    // Last: readiness reads every part above.
    this.http = new OperatorHttp(Records.mapper(), this::notReadyReasons, metrics::scrape,
        engine::inventory, config.http().inventoryAuth(), profileLifecycle::view);
  }

  /** What a target's change means to its inventory objects and its status. */
  private static TargetFeed.TargetHooks targetHooks(InventorySweep sweep,
      TargetStatuses statuses) {
    return new TargetFeed.TargetHooks() {
      @Override
      public void withoutInventory(TargetId id) {
        sweep.targetWithoutInventory(id);
      }

      @Override
      public void deleted(TargetId id) {
        statuses.forget(id);
      }

      @Override
      public void shardsChanged(TargetId id) {
        statuses.shardsChanged(id);
      }

      @Override
      public void reconcileHandled(TargetId id) {
        statuses.requestWrite(id);
      }
    };
  }

  /** What gaining and losing the lead does to the parts built before the leadership. */
  private Leadership.Steps leadershipSteps() {
    return new Leadership.Steps() {
      @Override
      public void forgetWritten() {
        if (checkpoints instanceof ConfigMapCheckpointStore cm) {
          cm.forgetWritten();
        }
        inventoryObjects.forget();
        statusWriter.forgetWritten();
      }

      @Override
      public void export(boolean on) {
        engine.setExportEnabled(on);
        if (!on) {
          sweep.forget();
        }
      }

      @Override
      public void catchUp() {
        sweep.sweep();
        problems.recordMissingEvents();
        profileFeed.reportAll();
        sinkFeed.reportAll();
        clusterFeed.reportAll();
        targetStatuses.requestAll();
      }

      @Override
      public void changed(boolean leading) {
        targetStatuses.leadershipChanged();
        metrics.leader(leading);
        profileLifecycle.leadership(leading);
      }
    };
  }

  /**
   * Starts serving: HTTP listeners, the engine, the watches on Kollect resources and leader
   * election.
   *
   * @throws IOException when a listen address cannot be bound
   */
  public void start() throws IOException {
    http.start(config.http().probeAddress(), config.http().metricsAddress());
    engine.addStatusListener(targetStatuses);
    config.export().stdoutRecords().ifPresent(out -> engine.putSink(new StdoutSink(STDOUT_SINK, out),
        STDOUT_OPTIONS));
    engine.start();
    if (shardLeases != null) {
      shardLeases.start(writer, targetStatuses::livenessChanged);
    }
    leadership.start();
    clusterFeed.start();
    // Profiles and sinks first, so that targets are not reported as naming missing ones.
    profileFeed.start();
    sinkFeed.start();
    targetFeed.start();
    leadership.listed();
    sinkRecheck.scheduleWithFixedDelay(() -> {
      try {
        sinkFeed.recheck();
      } catch (RuntimeException e) {
        log.warn("sink health check failed: {}", e.toString());
      }
    }, SINK_RECHECK.toMillis(), SINK_RECHECK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The hosted engine. */
  public KollectEngine engine() {
    return engine;
  }

  /** Whether this instance currently leads (always, without leader election). */
  public boolean isLeader() {
    return leaderFlag.isLeader();
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
    if (!profileFeed.listed() || !sinkFeed.listed() || !targetFeed.listed()
        || !clusterFeed.listed()) {
      reasons.add("Kollect resources not listed yet");
    } else if (!engine.isReady()) {
      reasons.add("informers not synced");
    }
    if (!leadership.known()) {
      reasons.add("leadership state not known yet");
    } else if (leadership.isLeader()) {
      // A target reports once its reconcile ran with export on, which loads its checkpoints.
      long loading = targetFeed.engineTargets().stream()
          .filter(id -> !targetStatuses.reportedWhileLeading(id)).count();
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
    return targetStatuses.status(id);
  }

  /**
   * What the compiled profile accepts but ignores, one line each naming the field (e.g. {@code
   * resources[0].includeSecretData is ignored: ...}); the profile's status carries them as a
   * {@code Warning} condition.
   */
  List<String> profileWarnings(String profile) {
    return engine.profileWarnings(profile);
  }

  /** After every inventory write attempt of a target: its metrics and (coalesced) status. */
  private void onInventoryWritten(TargetId id) {
    inventoryObjects.health(id).ifPresent(h -> {
      metrics.inventory(id, h);
      if (h.lastWritten() != null) {
        sweep.written(id);
      }
    });
    targetStatuses.requestWrite(id);
  }

  private static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Stops exporting (draining what is pending), releases the lease so a standby takes over at
   * once, and stops the listeners.
   */
  @Override
  public void close() {
    targetFeed.close();
    sinkFeed.close();
    profileFeed.close();
    profileLifecycle.close();
    clusterFeed.close();
    sinkRecheck.shutdownNow();
    engine.close();
    remoteClients.close();
    leadership.close();
    if (shardLeases != null) {
      shardLeases.close();
    }
    writer.shutdown();
    try {
      writer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    http.close();
  }
}

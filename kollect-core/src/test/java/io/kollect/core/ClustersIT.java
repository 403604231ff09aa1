package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.FileCheckpointStore;
import io.kollect.export.InventoryQuery;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.informers.InformerOptions;
import io.kollect.testing.FreezableTcpProxy;
import io.kollect.testing.TestApiServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One engine inventorying several clusters, on real API servers: {@code home} (the engine's own)
 * and {@code b}. The remote cluster {@code east} is server {@code b}; {@code west} is server
 * {@code home} again under another name with its own client, as two KollectClusters pointing at
 * one server would be. Each test uses its own namespace.
 */
class ClustersIT {

  static final Duration WAIT = Duration.ofSeconds(60);
  static TestApiServer home;
  static TestApiServer b;

  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeAll
  static void startServers() {
    home = TestApiServer.builder().reused().start();
    b = TestApiServer.builder().reused().start();
  }

  @AfterAll
  static void stopServers() {
    if (home != null) {
      home.close();
    }
    if (b != null) {
      b.close();
    }
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  /** Fixed clients by name that counts what the engine opens and releases. */
  static final class CountingConnections implements ClusterConnections {
    final ClusterConnections clients;
    final Map<String, AtomicInteger> opened = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> released = new ConcurrentHashMap<>();

    CountingConnections(Map<String, KubernetesClient> clients) {
      this.clients = ClusterConnections.of(clients);
    }

    @Override
    public KubernetesClient open(String cluster) throws ClusterConnectionException {
      KubernetesClient c = clients.open(cluster);
      opened.computeIfAbsent(cluster, k -> new AtomicInteger()).incrementAndGet();
      return c;
    }

    @Override
    public void release(String cluster, KubernetesClient client) {
      released.computeIfAbsent(cluster, k -> new AtomicInteger()).incrementAndGet();
    }

    int opened(String cluster) {
      return opened.getOrDefault(cluster, new AtomicInteger()).get();
    }

    int released(String cluster) {
      return released.getOrDefault(cluster, new AtomicInteger()).get();
    }
  }

  private KubernetesClient client(KubernetesClient c) {
    closing.add(c);
    return c;
  }

  private KollectEngine engine(ClusterConnections connections, Duration liveness) {
    InformerOptions options = InformerOptions.defaults().withCluster("home")
        .withReleaseGrace(Duration.ZERO).withWatchLiveness(liveness);
    KollectEngine engine = KollectEngine.builder(home.admin()).cluster("home")
        .informerOptions(options).clusterConnections(connections)
        .lastExportNotifyInterval(Duration.ZERO).build();
    closing.add(engine);
    return engine;
  }

  private static TargetSpec target(String ns, List<String> clusters) {
    return TargetSpec.builder(new TargetId("kollect", "deploys-" + ns), "deployments")
        .scope(TargetScope.namespaces(ns)).sinkRefs(List.of("rec")).clusters(clusters).build();
  }

  private static void deployment(TestApiServer server, String ns, String name, int replicas) {
    server.namespace(ns);
    server.admin().apps().deployments().inNamespace(ns).resource(new DeploymentBuilder()
        .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
        .withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("img:1").endContainer()
        .endSpec().endTemplate().endSpec().build()).create();
  }

  private static void scale(TestApiServer server, String ns, String name, int replicas) {
    server.admin().apps().deployments().inNamespace(ns).withName(name)
        .edit(d -> {
          d.getSpec().setReplicas(replicas);
          return d;
        });
  }

  private static List<Record> of(RecordingSink sink, String cluster, Op op) {
    return sink.records().stream().filter(r -> r.cluster().equals(cluster) && r.op() == op)
        .toList();
  }

  /** {@code east} is server {@code b}, {@code west} server {@code home} with its own client. */
  private CountingConnections eastAndWest() {
    return new CountingConnections(Map.of(
        "east", client(b.newAdminClient()), "west", client(home.newAdminClient())));
  }

  private KollectEngine started(ClusterConnections connections, RecordingSink sink,
      TargetSpec spec) {
    return started(connections, InformerOptions.DEFAULT_WATCH_LIVENESS, sink, spec);
  }

  private KollectEngine started(ClusterConnections connections, Duration liveness,
      RecordingSink sink, TargetSpec spec) {
    KollectEngine engine = engine(connections, liveness);
    engine.putProfile("deployments", EngineIT.deploymentProfile());
    engine.putSink(sink, EngineIT.fastSink());
    engine.putTarget(spec);
    engine.start();
    return engine;
  }

  /** What {@link #eastBehindProxy} arranged. */
  private record BehindProxy(FreezableTcpProxy proxy, KollectEngine engine, TargetSpec spec,
      RecordingSink sink) {}

  /**
   * A started engine whose target reads namespace {@code ns} of {@code east} (server {@code b},
   * through a proxy the test can freeze or stop; a watch silent for 5 s is stalled) and {@code
   * west} (server {@code home}), with {@code web} and {@code api} in east and {@code web} in west;
   * returns once the target is ready.
   */
  private BehindProxy eastBehindProxy(String ns) {
    deployment(b, ns, "web", 1);
    deployment(b, ns, "api", 1);
    deployment(home, ns, "web", 1);
    FreezableTcpProxy proxy = FreezableTcpProxy.to(b.port());
    closing.add(proxy);
    CountingConnections connections = new CountingConnections(Map.of(
        "east", client(b.adminVia(proxy.port())), "west", client(home.newAdminClient())));
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target(ns, List.of("east", "west"));
    KollectEngine engine = started(connections, Duration.ofSeconds(5), sink, spec);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    return new BehindProxy(proxy, engine, spec, sink);
  }

  private static TargetStatus awaitStatus(KollectEngine engine, TargetId id,
      java.util.function.Predicate<TargetStatus> p) {
    return await().atMost(WAIT).until(() -> engine.status(id).orElse(null),
        s -> s != null && p.test(s));
  }

  @Test
  void oneTargetOverTwoClustersDeliversTheSameNamespaceAndNameFromEachWithoutCollision() {
    deployment(home, "fan", "web", 1);
    deployment(b, "fan", "web", 2);
    CountingConnections connections = eastAndWest();
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target("fan", List.of("east", "west"));
    KollectEngine engine = started(connections, sink, spec);

    TargetStatus status = awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(2).allSatisfy(r -> {
      assertThat(r.op()).isEqualTo(Op.UPSERT);
      assertThat(r.target()).isEqualTo("kollect/deploys-fan");
      assertThat(r.namespace()).isEqualTo("fan");
      assertThat(r.name()).isEqualTo("web");
    });
    assertThat(of(sink, "east", Op.UPSERT)).singleElement()
        .satisfies(r -> assertThat(r.fields().get("replicas").asInt()).isEqualTo(2));
    assertThat(of(sink, "west", Op.UPSERT)).singleElement()
        .satisfies(r -> assertThat(r.fields().get("replicas").asInt()).isEqualTo(1));
    assertThat(status.clusters()).extracting(TargetStatus.ClusterPart::name)
        .containsExactly("east", "west");
    assertThat(status.clusters()).allSatisfy(p -> {
      assertThat(p.ready()).isTrue();
      assertThat(p.objects()).isEqualTo(1);
    });
    assertThat(status.objectCounts()).containsEntry("apps/v1/Deployment", 2);
    assertThat(engine.inventory().query(InventoryQuery.all()))
        .extracting(Record::cluster).containsExactlyInAnyOrder("east", "west");
    assertThat(connections.opened("east")).isEqualTo(1);
    await().atMost(WAIT).until(() -> engine.clusterHealth().stream()
        .map(ClusterHealth::cluster).toList(), names -> names.equals(List.of("home", "east",
            "west")));
    assertThat(engine.clusterHealth()).allSatisfy(h -> assertThat(h.ready()).isTrue());

    // an object changes in one cluster: only its record moves
    scale(b, "fan", "web", 3);
    await().atMost(WAIT).until(() -> of(sink, "east", Op.UPSERT).size() == 2);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(of(sink, "west", Op.UPSERT)).hasSize(1);
  }

  @Test
  void aClusterLeavingTheSpecTombstonesItsRecordsOnlyAndOneJoiningSendsItsOwn() {
    deployment(home, "move", "api", 1);
    deployment(b, "move", "api", 1);
    deployment(b, "move", "db", 1);
    CountingConnections connections = eastAndWest();
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target("move", List.of("east", "west"));
    KollectEngine engine = started(connections, sink, spec);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(3);

    engine.putTarget(spec.toBuilder().generation(2).clusters(List.of("west")).build());
    await().atMost(WAIT).until(() -> of(sink, "east", Op.DELETE).size() == 2);
    TargetStatus status = awaitStatus(engine, spec.id(),
        s -> s.observedGeneration() == 2 && s.ready());
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(of(sink, "east", Op.DELETE)).extracting(Record::name)
        .containsExactlyInAnyOrder("api", "db");
    assertThat(of(sink, "west", Op.DELETE)).isEmpty();
    assertThat(sink.records()).hasSize(5);
    assertThat(status.clusters()).extracting(TargetStatus.ClusterPart::name)
        .containsExactly("west");
    // the last unit of east went: its client is released and nothing watches it any more
    assertThat(connections.released("east")).isEqualTo(1);
    assertThat(engine.clusterHealth("east")).isEmpty();

    engine.putTarget(spec.toBuilder().generation(3).clusters(List.of("west", "east")).build());
    await().atMost(WAIT).until(() -> of(sink, "east", Op.UPSERT).size() == 4);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(7);
    assertThat(of(sink, "west", Op.UPSERT)).hasSize(1);
  }

  @Test
  void theLastTargetLeavingAClusterClosesItsWatchesAndReleasesItsClient() {
    deployment(b, "last", "web", 1);
    CountingConnections connections = new CountingConnections(Map.of(
        "east", client(b.newAdminClient())));
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec one = target("last", List.of("east"));
    TargetSpec two = TargetSpec.builder(new TargetId("kollect", "other"), "deployments")
        .scope(TargetScope.namespaces("last")).sinkRefs(List.of("rec"))
        .clusters(List.of("east")).build();
    KollectEngine engine = started(connections, sink, one);
    List<String> releasedEvents = new CopyOnWriteArrayList<>();
    engine.addClusterHealthListener(new ClusterHealthListener() {
      @Override
      public void onHealth(ClusterHealth health) {}

      @Override
      public void onReleased(String cluster) {
        releasedEvents.add(cluster);
      }
    });
    engine.putTarget(two);
    awaitStatus(engine, one.id(), TargetStatus::ready);
    awaitStatus(engine, two.id(), TargetStatus::ready);
    ClusterHealth health = await().atMost(WAIT).until(
        () -> engine.clusterHealth("east").orElse(null),
        h -> h != null && h.ready() && h.openWatches() == 1);
    // both targets read the same type of the cluster: one shared watch, one client
    assertThat(health.watchedTypes()).containsExactly("apps/v1/Deployment");
    assertThat(health.serverVersion()).startsWith("v1.20");
    assertThat(connections.opened("east")).isEqualTo(1);

    engine.removeTarget(one.id());
    assertThat(connections.released("east")).isZero();
    engine.removeTarget(two.id());
    assertThat(connections.released("east")).isEqualTo(1);
    assertThat(releasedEvents).containsExactly("east");
    assertThat(engine.clusterHealth("east")).isEmpty();
  }

  @Test
  void anUnknownClusterIsReportedOnItsOwnPartWhileTheOtherIsDelivered() {
    deployment(b, "unknown", "web", 1);
    CountingConnections connections = new CountingConnections(Map.of(
        "east", client(b.newAdminClient())));
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target("unknown", List.of("east", "nowhere"));
    KollectEngine engine = started(connections, sink, spec);

    TargetStatus status = awaitStatus(engine, spec.id(), s -> s.clusters().size() == 2
        && s.clusters().get(0).ready());
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).singleElement()
        .satisfies(r -> assertThat(r.cluster()).isEqualTo("east"));
    TargetStatus.ClusterPart nowhere = status.clusters().get(1);
    assertThat(nowhere.name()).isEqualTo("nowhere");
    assertThat(nowhere.ready()).isFalse();
    assertThat(nowhere.reason()).isEqualTo(ClusterConnectionException.REASON_NOT_FOUND);
    assertThat(status.ready()).isFalse();
    assertThat(status.condition(Condition.READY).reason())
        .isEqualTo(ClusterConnectionException.REASON_NOT_FOUND);
    assertThat(status.condition(Condition.READY).message()).contains("cluster nowhere");
    assertThat(engine.clusterHealth("nowhere")).hasValueSatisfying(h -> {
      assertThat(h.state()).isEqualTo(ClusterHealth.State.INVALID);
      assertThat(h.reason()).isEqualTo(ClusterConnectionException.REASON_NOT_FOUND);
    });
  }

  @Test
  void clusterChangedOpensANewClientRebuildsTheInformersAndSendsNothingUnchanged() {
    deployment(b, "rotate", "web", 1);
    deployment(b, "rotate", "api", 1);
    CountingConnections connections = new CountingConnections(Map.of(
        "east", client(b.newAdminClient())));
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target("rotate", List.of("east"));
    KollectEngine engine = started(connections, sink, spec);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(2);
    long before = engine.reconcileCount(spec.id());

    engine.clusterChanged("east");
    // the unit moves to the new client at its next pass; the old one is released after it
    await().atMost(WAIT).until(() -> connections.released("east") == 1);
    assertThat(connections.opened("east")).isEqualTo(2);
    assertThat(engine.reconcileCount(spec.id())).isGreaterThan(before);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(2);

    // the rebuilt informers deliver
    scale(b, "rotate", "api", 4);
    await().atMost(WAIT).until(() -> sink.size() == 3);
    assertThat(sink.records().get(2).name()).isEqualTo("api");
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(3);
  }

  @Test
  void aBlackholedClusterIsUnreachableWithinTwoWindowsWhileTheOtherFlowsAndConvergesWithoutResends() {
    BehindProxy arranged = eastBehindProxy("freeze");
    FreezableTcpProxy proxy = arranged.proxy();
    KollectEngine engine = arranged.engine();
    TargetSpec spec = arranged.spec();
    RecordingSink sink = arranged.sink();
    Duration window = Duration.ofSeconds(5);
    await().atMost(WAIT).until(() -> engine.clusterHealth("east").map(ClusterHealth::ready)
        .orElse(false));
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(3);

    proxy.freeze();
    long frozenAt = System.nanoTime();
    // two windows, plus the one-second checks of the watch and of the health
    ClusterHealth down = await().atMost(window.multipliedBy(2).plusSeconds(2))
        .until(() -> engine.clusterHealth("east").orElse(null),
            h -> h != null && h.state() == ClusterHealth.State.UNREACHABLE);
    assertThat(Duration.ofNanos(System.nanoTime() - frozenAt))
        .isLessThanOrEqualTo(window.multipliedBy(2).plusSeconds(2));
    assertThat(down.reason()).isEqualTo("Unreachable");
    TargetStatus degraded = awaitStatus(engine, spec.id(), s -> !s.ready());
    assertThat(degraded.condition(Condition.READY).reason()).isEqualTo("Unreachable");
    assertThat(degraded.clusters().get(0)).satisfies(p -> {
      assertThat(p.name()).isEqualTo("east");
      assertThat(p.ready()).isFalse();
      assertThat(p.reason()).isEqualTo("Unreachable");
      assertThat(p.objects()).isEqualTo(2);
    });
    assertThat(degraded.clusters().get(1).ready()).isTrue();

    // the other cluster keeps flowing; the frozen one's changes wait, its records stay
    scale(home, "freeze", "web", 2);
    scale(b, "freeze", "api", 3);
    await().atMost(WAIT).until(() -> of(sink, "west", Op.UPSERT).size() == 2);
    assertThat(of(sink, "east", Op.UPSERT)).hasSize(2);
    assertThat(sink.ops(Op.DELETE)).isEmpty();

    proxy.thaw();
    await().atMost(WAIT).until(() -> engine.clusterHealth("east").map(ClusterHealth::ready)
        .orElse(false));
    await().atMost(WAIT).until(() -> of(sink, "east", Op.UPSERT).size() == 3);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    // only the change made during the outage is sent: nothing unchanged again, nothing deleted
    assertThat(of(sink, "east", Op.UPSERT)).extracting(Record::name)
        .containsExactlyInAnyOrder("web", "api", "api");
    assertThat(of(sink, "east", Op.UPSERT).get(2).fields().get("replicas").asInt()).isEqualTo(3);
    assertThat(sink.ops(Op.DELETE)).isEmpty();
    assertThat(sink.records()).hasSize(5);
  }

  @Test
  void aClusterThatRejectsTheCredentialIsUnauthorizedOnItsOwnPartWhileTheOtherIsDelivered() {
    deployment(b, "denied", "web", 1);
    deployment(home, "denied", "web", 1);
    CountingConnections connections = new CountingConnections(Map.of(
        "east", client(b.clientForToken("not-a-known-token")),
        "west", client(home.newAdminClient())));
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target("denied", List.of("east", "west"));
    KollectEngine engine = started(connections, sink, spec);

    ClusterHealth denied = await().atMost(WAIT).until(
        () -> engine.clusterHealth("east").orElse(null),
        h -> h != null && h.state() == ClusterHealth.State.UNAUTHORIZED);
    assertThat(denied.reason()).isEqualTo("Unauthorized");
    assertThat(denied.message()).doesNotContain("not-a-known-token");
    TargetStatus status = awaitStatus(engine, spec.id(), s -> s.clusters().size() == 2
        && !s.clusters().get(0).ready() && s.clusters().get(1).ready());
    assertThat(status.clusters().get(0).reason()).isEqualTo("Unauthorized");
    assertThat(status.condition(Condition.READY).reason()).isEqualTo("Unauthorized");
    await().atMost(WAIT).until(() -> of(sink, "west", Op.UPSERT).size() == 1);
    assertThat(of(sink, "east", Op.UPSERT)).isEmpty();
  }

  @Test
  void theEnginesOwnClusterKeepsItsExportStateWhenATargetStartsAndStopsNamingOthers() {
    deployment(home, "own", "web", 1);
    deployment(b, "own", "web", 1);
    CountingConnections connections = new CountingConnections(Map.of(
        "east", client(b.newAdminClient())));
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target("own", List.of());
    KollectEngine engine = started(connections, sink, spec);
    TargetStatus local = awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(local.clusters()).isEmpty();
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).singleElement()
        .satisfies(r -> assertThat(r.cluster()).isEqualTo("home"));

    // the engine's own cluster named beside another: its unit carries on under the same export
    // key, so nothing of it is sent again; the other cluster's objects arrive
    engine.putTarget(spec.toBuilder().generation(2).clusters(List.of("home", "east")).build());
    await().atMost(WAIT).until(() -> of(sink, "east", Op.UPSERT).size() == 1);
    TargetStatus both = awaitStatus(engine, spec.id(),
        s -> s.observedGeneration() == 2 && s.ready());
    assertThat(both.clusters()).extracting(TargetStatus.ClusterPart::name)
        .containsExactly("home", "east");
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(2);

    // back to the engine's own cluster only: east leaves (its DELETE), home is not re-sent
    engine.putTarget(spec.toBuilder().generation(3).clusters(List.of()).build());
    await().atMost(WAIT).until(() -> of(sink, "east", Op.DELETE).size() == 1);
    TargetStatus again = awaitStatus(engine, spec.id(),
        s -> s.observedGeneration() == 3 && s.ready());
    assertThat(again.clusters()).isEmpty();
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(3);
    assertThat(of(sink, "home", Op.UPSERT)).hasSize(1);
    assertThat(of(sink, "home", Op.DELETE)).isEmpty();
    assertThat(connections.released("east")).isEqualTo(1);
  }

  @Test
  void aRestartedEngineConvergesEachClusterFromItsOwnCheckpointSendingOnlyWhatChanged(
      @TempDir Path checkpoints) {
    deployment(home, "restart", "web", 1);
    deployment(b, "restart", "web", 1);
    deployment(b, "restart", "api", 1);
    Map<String, KubernetesClient> clients = Map.of(
        "east", client(b.newAdminClient()), "west", client(home.newAdminClient()));
    TargetSpec spec = target("restart", List.of("east", "west"));
    RecordingSink first = new RecordingSink("rec");
    try (KollectEngine engine = KollectEngine.builder(home.admin()).cluster("home")
        .clusterConnections(ClusterConnections.of(clients))
        .checkpointStore(new FileCheckpointStore(checkpoints)).build()) {
      engine.putProfile("deployments", EngineIT.deploymentProfile());
      engine.putSink(first, EngineIT.fastSink());
      engine.putTarget(spec);
      engine.start();
      awaitStatus(engine, spec.id(), TargetStatus::ready);
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      assertThat(first.records()).hasSize(3);
    }

    // while no engine runs: one change in each cluster
    scale(b, "restart", "api", 2);
    home.admin().apps().deployments().inNamespace("restart").withName("web").delete();

    RecordingSink second = new RecordingSink("rec");
    try (KollectEngine engine = KollectEngine.builder(home.admin()).cluster("home")
        .clusterConnections(ClusterConnections.of(clients))
        .checkpointStore(new FileCheckpointStore(checkpoints)).build()) {
      engine.putProfile("deployments", EngineIT.deploymentProfile());
      engine.putSink(second, EngineIT.fastSink());
      engine.putTarget(spec);
      engine.start();
      awaitStatus(engine, spec.id(), TargetStatus::ready);
      await().atMost(WAIT).until(() -> second.size() == 2);
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      assertThat(second.records()).extracting(r -> r.cluster() + " " + r.op() + " " + r.name())
          .containsExactlyInAnyOrder("east UPSERT api", "west DELETE web");
    }
  }

  @Test
  void aStoppedClusterKeepsItsRecordsWhileTheOtherFlowsAndConvergesWithoutResendsWhenItIsBack() {
    BehindProxy arranged = eastBehindProxy("stop");
    FreezableTcpProxy proxy = arranged.proxy();
    KollectEngine engine = arranged.engine();
    TargetSpec spec = arranged.spec();
    RecordingSink sink = arranged.sink();
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(3);

    proxy.stop();
    await().atMost(WAIT).until(() -> engine.clusterHealth("east").orElse(null),
        h -> h != null && h.state() == ClusterHealth.State.UNREACHABLE);
    TargetStatus degraded = awaitStatus(engine, spec.id(), s -> !s.ready());
    assertThat(degraded.clusters().get(0).reason()).isEqualTo("Unreachable");
    assertThat(degraded.clusters().get(0).objects()).isEqualTo(2);
    scale(home, "stop", "web", 2);
    scale(b, "stop", "web", 4);
    await().atMost(WAIT).until(() -> of(sink, "west", Op.UPSERT).size() == 2);
    assertThat(sink.ops(Op.DELETE)).isEmpty();

    proxy.restart();
    await().atMost(WAIT).until(() -> of(sink, "east", Op.UPSERT).size() == 3);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(of(sink, "east", Op.UPSERT)).extracting(Record::name)
        .containsExactlyInAnyOrder("web", "api", "web");
    assertThat(sink.ops(Op.DELETE)).isEmpty();
    assertThat(sink.records()).hasSize(5);
  }

  @Test
  void aRotatedCredentialReplacesARejectedOneAndTheClusterIsReadWithoutARestart() {
    deployment(b, "rotated", "web", 1);
    Map<String, KubernetesClient> current = new ConcurrentHashMap<>(Map.of(
        "east", client(b.clientForToken("revoked-token"))));
    ClusterConnections rotating = new ClusterConnections() {
      @Override
      public KubernetesClient open(String cluster) throws ClusterConnectionException {
        return ClusterConnections.of(current).open(cluster);
      }

      @Override
      public void release(String cluster, KubernetesClient client) {}
    };
    RecordingSink sink = new RecordingSink("rec");
    TargetSpec spec = target("rotated", List.of("east"));
    KollectEngine engine = started(rotating, sink, spec);
    await().atMost(WAIT).until(() -> engine.clusterHealth("east").orElse(null),
        h -> h != null && h.state() == ClusterHealth.State.UNAUTHORIZED);
    awaitStatus(engine, spec.id(), s -> !s.ready()
        && "Unauthorized".equals(s.clusters().get(0).reason()));
    assertThat(sink.records()).isEmpty();

    // the host saw the Secret change: a new credential, then clusterChanged
    current.put("east", client(b.newAdminClient()));
    engine.clusterChanged("east");
    await().atMost(WAIT).until(() -> sink.size() == 1);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    await().atMost(WAIT).until(() -> engine.clusterHealth("east").map(ClusterHealth::ready)
        .orElse(false));
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).singleElement()
        .satisfies(r -> assertThat(r.cluster()).isEqualTo("east"));
  }
}

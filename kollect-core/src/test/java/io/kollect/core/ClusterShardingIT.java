package io.kollect.core;

import static io.kollect.core.EngineIT.WAIT;
import static io.kollect.core.EngineIT.deploymentProfile;
import static io.kollect.core.EngineIT.fastSink;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.CheckpointStore;
import io.kollect.export.FileCheckpointStore;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.informers.InformerMetrics;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engines split by cluster ({@link Shard.By#CLUSTER}) over the engine's own cluster and two
 * remote ones: each remote cluster is read, connected to and watched by one shard only, every
 * object is delivered by exactly one shard, a shard that owns none of a target's clusters still
 * reports it Ready with zero objects, and a change of the rule or of the count moves the
 * checkpointed records with their objects (nothing deleted, nothing re-sent).
 *
 * <p>The remote clusters are this class's one API server under other names (as two
 * KollectClusters could name it); what each shard opened is counted per cluster name, by the
 * connections it asked for and by the informers its registries started.
 */
class ClusterShardingIT {

  @RegisterExtension
  static final PerClassApiServer api = new PerClassApiServer();

  static final String LOCAL = "it";
  static final String NS = "by-cluster";
  static final ResourceType DEPLOYMENT = new ResourceType("apps", "v1", "Deployment");
  static final TargetId TARGET = new TargetId("kollect", "fleet");

  /** Two remote cluster names owned by shards 0 and 1 of two, split by cluster. */
  static String remote0;
  static String remote1;
  static List<String> names;

  @TempDir Path dir;

  @BeforeAll
  static void objects() {
    remote0 = ownedName(0);
    remote1 = ownedName(1);
    api.cluster().namespace(NS);
    names = IntStream.range(0, 16).mapToObj(i -> "d-" + i).toList();
    for (String name : names) {
      api.cluster().deployment(NS, name, "img:1", 1);
    }
  }

  /** The first cluster name {@code remote-<k>} that shard {@code index} of two owns by cluster. */
  private static String ownedName(int index) {
    return IntStream.range(0, 20).mapToObj(k -> "remote-" + k)
        .filter(n -> new Shard(2, index, Shard.By.CLUSTER).ownsCluster(n)).findFirst()
        .orElseThrow();
  }

  /** One engine and what it opened per cluster name. */
  record Running(KollectEngine engine, RecordingSink sink, Map<String, AtomicInteger> opened,
      Map<String, AtomicInteger> informers) {

    int informersOf(String cluster) {
      return informers.getOrDefault(cluster, new AtomicInteger()).get();
    }
  }

  private Running start(Shard shard, CheckpointStore checkpoints, List<TargetSpec> targets) {
    Map<String, AtomicInteger> opened = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> informers = new ConcurrentHashMap<>();
    KubernetesClient client = api.cluster().client();
    ClusterConnections remotes = new ClusterConnections() {
      @Override
      public KubernetesClient open(String cluster) {
        opened.computeIfAbsent(cluster, c -> new AtomicInteger()).incrementAndGet();
        return client;
      }

      @Override
      public void release(String cluster, KubernetesClient c) {}
    };
    KollectEngine engine = api.closedAfterTest(KollectEngine.builder(client).cluster(LOCAL)
        .shard(shard).checkpointStore(checkpoints).clusterConnections(remotes)
        .informerMetrics(countingInformers(LOCAL, informers)).build());
    RecordingSink sink = RecordingSink.sharedByShards("rec");
    engine.putProfile("p", deploymentProfile());
    engine.putSink(sink, fastSink());
    targets.forEach(engine::putTarget);
    engine.start();
    for (TargetSpec t : targets) {
      EngineIT.awaitStatus(engine, t.id(), TargetStatus::ready);
    }
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    return new Running(engine, sink, opened, informers);
  }

  private static TargetSpec target(TargetId id, List<String> clusters) {
    return TargetSpec.builder(id, "p").scope(TargetScope.namespaces(NS))
        .sinkRefs(List.of("rec")).clusters(clusters).build();
  }

  private static TargetSpec fleet() {
    return target(TARGET, List.of(LOCAL, remote0, remote1));
  }

  /** Counts informers started per cluster: the engine asks a view per cluster it opens. */
  private static InformerMetrics countingInformers(String cluster,
      Map<String, AtomicInteger> informers) {
    return new InformerMetrics() {
      @Override
      public void informers(int delta) {
        if (delta > 0) {
          informers.computeIfAbsent(cluster, c -> new AtomicInteger()).addAndGet(delta);
        }
      }

      @Override
      public void cachedObjects(ResourceType type, long count) {}

      @Override
      public void event(ResourceType type, ResourceEvent.Kind kind) {}

      @Override
      public void listWatchError(ResourceType type) {}

      @Override
      public void watchRestart(ResourceType type) {}

      @Override
      public InformerMetrics forCluster(String other) {
        return countingInformers(other, informers);
      }
    };
  }

  /** {@code cluster/name} of every object of the three clusters that {@code shard} owns. */
  private static Set<String> ownedBy(Shard shard) {
    Set<String> out = new TreeSet<>();
    for (String cluster : List.of(LOCAL, remote0, remote1)) {
      for (String n : names) {
        if (shard.owns(LOCAL, cluster, "apps", "Deployment", NS, n)) {
          out.add(cluster + "/" + n);
        }
      }
    }
    return out;
  }

  @Test
  void eachRemoteClusterIsOpenedAndWatchedByOneShardAndEveryObjectIsDeliveredOnce() {
    TargetSpec onlyRemote1 = target(new TargetId("kollect", "only-remote1"), List.of(remote1));
    List<Running> shards = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      shards.add(start(new Shard(2, i, Shard.By.CLUSTER), CheckpointStore.none(),
          List.of(fleet(), onlyRemote1)));
    }
    Running s0 = shards.get(0);
    Running s1 = shards.get(1);

    // connections and informers: shard 0 never touches remote1, shard 1 never remote0
    assertThat(s0.opened().keySet()).containsExactly(remote0);
    assertThat(s1.opened().keySet()).containsExactly(remote1);
    assertThat(s0.informersOf(remote0)).isPositive();
    assertThat(s0.informersOf(remote1)).isZero();
    assertThat(s1.informersOf(remote1)).isPositive();
    assertThat(s1.informersOf(remote0)).isZero();
    assertThat(s0.informersOf(LOCAL)).isPositive();
    assertThat(s1.informersOf(LOCAL)).isPositive();
    assertThat(s0.engine().clusterHealth(remote1)).isEmpty();
    assertThat(s1.engine().clusterHealth(remote0)).isEmpty();

    // every object of the three clusters from exactly one shard, the remote ones whole
    Set<String> fleet0 = s0.sink().ops(Op.UPSERT).stream()
        .filter(r -> r.target().equals(TARGET.toString()))
        .map(r -> r.cluster() + "/" + r.name()).collect(Collectors.toCollection(TreeSet::new));
    Set<String> fleet1 = s1.sink().ops(Op.UPSERT).stream()
        .filter(r -> r.target().equals(TARGET.toString()))
        .map(r -> r.cluster() + "/" + r.name()).collect(Collectors.toCollection(TreeSet::new));
    assertThat(fleet0).isEqualTo(ownedBy(new Shard(2, 0, Shard.By.CLUSTER)))
        .doesNotContainAnyElementsOf(fleet1)
        .containsAll(names.stream().map(n -> remote0 + "/" + n).toList());
    assertThat(fleet1).isEqualTo(ownedBy(new Shard(2, 1, Shard.By.CLUSTER)))
        .containsAll(names.stream().map(n -> remote1 + "/" + n).toList());
    Set<String> union = new TreeSet<>(fleet0);
    union.addAll(fleet1);
    assertThat(union).hasSize(3 * names.size());
    // the local cluster stays split by object: both shards have part of it
    assertThat(fleet0).anyMatch(k -> k.startsWith(LOCAL + "/"));
    assertThat(fleet1).anyMatch(k -> k.startsWith(LOCAL + "/"));

    // a target of remote1 only: shard 0 holds no part of it, and says so as Ready, zero objects
    TargetStatus none = s0.engine().status(onlyRemote1.id()).orElseThrow();
    assertThat(none.ready()).isTrue();
    assertThat(none.objectCounts().values().stream().mapToInt(Integer::intValue).sum()).isZero();
    assertThat(none.clusters()).isEmpty();
    TargetStatus all = s1.engine().status(onlyRemote1.id()).orElseThrow();
    assertThat(all.ready()).isTrue();
    assertThat(all.clusters()).extracting(TargetStatus.ClusterPart::name)
        .containsExactly(remote1);
    assertThat(all.clusters().get(0).objects()).isEqualTo(names.size());
  }

  @Test
  void changingTheRuleAndThenTheCountMovesCheckpointedRecordsWithNothingDeletedOrResent() {
    List<RecordingSink> sinks = new ArrayList<>();
    runAndClose(2, Shard.By.OBJECT, sinks);
    // the rule changes: remote clusters' records gather on their owners
    Map<Integer, Running> byCluster = runAndClose(2, Shard.By.CLUSTER, sinks);
    for (Running r : byCluster.values()) {
      assertThat(r.sink().records()).as("records after the rule changed").isEmpty();
    }
    assertCheckpointsHoldTheirOwn(2, Shard.By.CLUSTER);
    // the count changes under the cluster rule: remote clusters move between shards whole
    Map<Integer, Running> three = runAndClose(3, Shard.By.CLUSTER, sinks);
    for (Running r : three.values()) {
      assertThat(r.sink().records()).as("records after the count changed").isEmpty();
    }
    assertCheckpointsHoldTheirOwn(3, Shard.By.CLUSTER);
    // and back to the object rule
    Map<Integer, Running> back = runAndClose(2, Shard.By.OBJECT, sinks);
    for (Running r : back.values()) {
      assertThat(r.sink().records()).as("records after the rule changed back").isEmpty();
    }
    assertCheckpointsHoldTheirOwn(2, Shard.By.OBJECT);
    assertThat(fold(sinks)).isEqualTo(ownedBy(Shard.NONE));
    assertThat(sinks.stream().flatMap(s -> s.ops(Op.DELETE).stream()).toList()).isEmpty();
  }

  /** Starts {@code total} shards on this class's checkpoints, then closes them (final writes). */
  private Map<Integer, Running> runAndClose(int total, Shard.By by, List<RecordingSink> sinks) {
    Map<Integer, Running> running = new HashMap<>();
    for (int i = 0; i < total; i++) {
      Running r = start(new Shard(total, i, by), FileCheckpointStore.inShardLayout(dir, i),
          List.of(fleet()));
      running.put(i, r);
      sinks.add(r.sink());
    }
    running.values().forEach(r -> r.engine().close());
    return running;
  }

  /** Every shard's checkpoint holds exactly the records of the objects it owns. */
  private void assertCheckpointsHoldTheirOwn(int total, Shard.By by) {
    for (int i = 0; i < total; i++) {
      Shard shard = new Shard(total, i, by);
      Set<String> held = new TreeSet<>();
      for (String cluster : List.of(LOCAL, remote0, remote1)) {
        String exportKey = cluster.equals(LOCAL) ? TARGET.toString() : cluster + "/" + TARGET;
        FileCheckpointStore.inShardLayout(dir, i).load(exportKey, "rec").keySet()
            .forEach(k -> held.add(cluster + "/" + k.split("/", 4)[3]));
      }
      assertThat(held).as("checkpoint of shard %s", shard).isEqualTo(ownedBy(shard));
    }
  }

  /** What a consumer folding every sink's records by key, largest sequence winning, holds. */
  private static Set<String> fold(List<RecordingSink> sinks) {
    Map<String, Record> folded = new HashMap<>();
    for (RecordingSink sink : sinks) {
      for (Record r : sink.records()) {
        folded.merge(r.cluster() + "/" + r.key(), r,
            (a, b) -> a.sequence() >= b.sequence() ? a : b);
      }
    }
    return folded.values().stream().filter(r -> r.op() == Op.UPSERT)
        .map(r -> r.cluster() + "/" + r.name()).collect(Collectors.toCollection(TreeSet::new));
  }
}

package io.kollect.core;

import static io.kollect.core.EngineIT.WAIT;
import static io.kollect.core.EngineIT.deploymentProfile;
import static io.kollect.core.EngineIT.fastSink;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kollect.export.CheckpointStore;
import io.kollect.export.FileCheckpointStore;
import io.kollect.extract.FieldRule;
import io.kollect.extract.Op;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.ResourceRule;
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
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engines that split one cluster between them ({@link KollectEngineBuilder#shard}) export
 * disjoint parts whose union is what one unsharded engine exports, cache only their own objects,
 * and hand objects over without tombstones when the shard count changes, checkpoint entries
 * included, so an object deleted while it moved still gets its DELETE.
 */
class ShardingIT {

  @RegisterExtension
  static final PerClassApiServer api = new PerClassApiServer();

  static final String CLUSTER = "it";
  static final ResourceType DEPLOYMENT = new ResourceType("apps", "v1", "Deployment");

  @TempDir Path dir;

  /** An engine, its sink and the size of its Deployment cache as its informers report it. */
  record Running(KollectEngine engine, RecordingSink sink, Map<ResourceType, Long> cached) {

    Set<String> upserted() {
      return sink.ops(Op.UPSERT).stream().map(r -> r.namespace() + "/" + r.name())
          .collect(Collectors.toCollection(TreeSet::new));
    }

    long cachedDeployments() {
      return cached.getOrDefault(DEPLOYMENT, -1L);
    }
  }

  /** Starts an engine, closed when the test ends (closing it earlier is fine: close is idempotent). */
  private Running start(Shard shard, TargetScope scope, CheckpointStore checkpoints) {
    Map<ResourceType, Long> cached = new ConcurrentHashMap<>();
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster(CLUSTER)
        .shard(shard).checkpointStore(checkpoints).informerMetrics(counting(cached)).build();
    api.closedAfterTest(engine);
    // the shards' sinks stand for one receiver: a consumer folds all of them
    RecordingSink sink = RecordingSink.sharedByShards("rec");
    OneTarget.ready(engine, sink, new TargetSpec(new TargetId("kollect", "sharded"), 1, "p",
        scope, List.of("rec"), false));
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    return new Running(engine, sink, cached);
  }

  private Running start(Shard shard, TargetScope scope) {
    return start(shard, scope, CheckpointStore.none());
  }

  private static InformerMetrics counting(Map<ResourceType, Long> cached) {
    return new InformerMetrics() {
      @Override
      public void informers(int delta) {}

      @Override
      public void cachedObjects(ResourceType type, long count) {
        cached.put(type, count);
      }

      @Override
      public void event(ResourceType type, ResourceEvent.Kind kind) {}

      @Override
      public void listWatchError(ResourceType type) {}

      @Override
      public void watchRestart(ResourceType type) {}
    };
  }

  private static boolean owns(Shard shard, String namespace, String name) {
    return shard.owns(CLUSTER, "apps", "Deployment", namespace, name);
  }

  private static Set<String> ownedBy(Shard shard, String namespace, List<String> names) {
    return names.stream().filter(n -> owns(shard, namespace, n)).map(n -> namespace + "/" + n)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private List<String> deployments(String namespace, int n) {
    api.cluster().namespace(namespace);
    List<String> names = IntStream.range(0, n).mapToObj(i -> "d-" + i).toList();
    for (String name : names) {
      api.cluster().deployment(namespace, name, "img:1", 1);
    }
    return names;
  }

  /** The name of the first of {@code names} that {@code shard} owns. */
  private static String firstOwned(Shard shard, String namespace, List<String> names) {
    return names.stream().filter(n -> owns(shard, namespace, n)).findFirst().orElseThrow();
  }

  @Test
  void twoShardsExportDisjointHalvesWhoseUnionIsTheUnshardedExportAndCacheOnlyTheirOwn() {
    List<String> names = deployments("shard-split", 24);
    TargetScope scope = new TargetScope(List.of("shard-split"), null, null, List.of());
    Shard s0 = new Shard(2, 0);
    Shard s1 = new Shard(2, 1);
    Running whole = start(Shard.NONE, scope);
    Running r0 = start(s0, scope);
    Running r1 = start(s1, scope);

    Set<String> all = ownedBy(Shard.NONE, "shard-split", names);
    assertThat(whole.upserted()).isEqualTo(all);
    assertThat(r0.upserted()).isEqualTo(ownedBy(s0, "shard-split", names)).isNotEmpty();
    assertThat(r1.upserted()).isEqualTo(ownedBy(s1, "shard-split", names)).isNotEmpty();
    assertThat(r0.upserted()).doesNotContainAnyElementsOf(r1.upserted());
    Set<String> union = new TreeSet<>(r0.upserted());
    union.addAll(r1.upserted());
    assertThat(union).isEqualTo(whole.upserted());
    // the informer caches hold only the owned objects (the unsharded one holds all)
    await().atMost(WAIT).until(() -> whole.cachedDeployments() == all.size());
    await().atMost(WAIT).until(() -> r0.cachedDeployments() == r0.upserted().size());
    await().atMost(WAIT).until(() -> r1.cachedDeployments() == r1.upserted().size());
    // the target's own counts are per shard
    TargetId id = new TargetId("kollect", "sharded");
    assertThat(r0.engine().status(id).orElseThrow().objectCounts().values().stream()
        .mapToInt(Integer::intValue).sum()).isEqualTo(r0.upserted().size());
  }

  @Test
  void changesAndDeletesReachOnlyTheOwningShard() {
    List<String> names = deployments("shard-change", 16);
    TargetScope scope = new TargetScope(List.of("shard-change"), null, null, List.of());
    Shard s0 = new Shard(2, 0);
    Shard s1 = new Shard(2, 1);
    Running r0 = start(s0, scope);
    Running r1 = start(s1, scope);
    String of0 = firstOwned(s0, "shard-change", names);
    String of1 = firstOwned(s1, "shard-change", names);

    api.cluster().client().apps().deployments().inNamespace("shard-change").withName(of0)
        .edit(d -> { d.getSpec().setReplicas(5); return d; });
    await().atMost(WAIT).until(() -> r0.sink().of("shard-change", of0).size() == 2);
    api.cluster().client().apps().deployments().inNamespace("shard-change").withName(of1)
        .delete();
    await().atMost(WAIT).until(() -> r1.sink().of("shard-change", of1).size() == 2);
    assertThat(r1.sink().of("shard-change", of1).get(1).op()).isEqualTo(Op.DELETE);
    assertThat(r0.engine().awaitIdle(WAIT)).isTrue();
    assertThat(r1.engine().awaitIdle(WAIT)).isTrue();

    // each shard heard of the other's object neither before nor after the change
    assertThat(r1.sink().of("shard-change", of0)).isEmpty();
    assertThat(r0.sink().of("shard-change", of1)).isEmpty();
    assertThat(r0.sink().ops(Op.DELETE)).isEmpty();
    await().atMost(WAIT).until(() -> r1.cachedDeployments() == r1.upserted().size() - 1);
  }

  @Test
  void changingTheShardCountMovesCheckpointEntriesWithTheObjectsSoNothingIsDeletedOrResent() {
    List<String> names = deployments("shard-move", 30);
    TargetScope scope = new TargetScope(List.of("shard-move"), null, null, List.of());
    List<RecordingSink> sinks = new ArrayList<>();
    // every shard keeps its own checkpoint, by index, in the operator's layout (dir/shard-I);
    // shard 2 of 3 starts with none of its own
    for (int i = 0; i < 2; i++) {
      Running r = start(new Shard(2, i), scope, FileCheckpointStore.inShardLayout(dir, i));
      sinks.add(r.sink());
      r.engine().close(); // writes the final checkpoints
    }
    Map<Integer, Running> after = new HashMap<>();
    for (int i = 0; i < 3; i++) {
      Running r = start(new Shard(3, i), scope, FileCheckpointStore.inShardLayout(dir, i));
      after.put(i, r);
      sinks.add(r.sink());
    }

    for (int i = 0; i < 3; i++) {
      Shard now = new Shard(3, i);
      RecordingSink sink = after.get(i).sink();
      // nothing changed while the objects moved: the new owners took over the old owners'
      // entries, so they neither tombstone nor re-send anything, and the old owners forgot what
      // they lost without a tombstone
      assertThat(sink.records()).as("records of shard %s", now).isEmpty();
      assertThat(after.get(i).cachedDeployments()).isEqualTo(ownedBy(now, "shard-move", names)
          .size());
    }
    assertThat(ownedBy(new Shard(3, 2), "shard-move", names)).isNotEmpty();
    assertThat(fold(sinks)).isEqualTo(ownedBy(Shard.NONE, "shard-move", names));

    // every checkpoint holds exactly its shard's objects now: the entries moved with them
    for (int i = 0; i < 3; i++) {
      Shard now = new Shard(3, i);
      Set<String> keys = FileCheckpointStore.inShardLayout(dir, i)
          .load("kollect/sharded", "rec").keySet();
      assertThat(keys.stream().map(k -> k.split("/", 4)).map(p -> p[2] + "/" + p[3]).toList())
          .as("checkpoint of shard %s", now)
          .containsExactlyInAnyOrderElementsOf(ownedBy(now, "shard-move", names));
    }
  }

  @Test
  void objectsDeletedChangedAndCreatedWhileNoShardRanReachTheFoldThroughTheirNewOwners() {
    reShardWhileStopped("shard-gap", List.of(2, 0, 1));
  }

  @Test
  void theSameWhenTheOldIndexesRestartWithTheNewCountBeforeTheNewOwnerStarts() {
    reShardWhileStopped("shard-gap-rev", List.of(0, 1, 2));
  }

  /**
   * Two shards export and stop; while none runs, objects are deleted (one that moves to the new
   * shard 2, one that moves between the old indexes), changed and created; three shards start in
   * {@code order}. A consumer folding every record by key and largest sequence then holds the
   * cluster: each deleted object got its DELETE from its new owner, which had taken its entry
   * over from the old owner's checkpoint.
   */
  private void reShardWhileStopped(String ns, List<Integer> order) {
    List<String> names = deployments(ns, 30);
    TargetScope scope = new TargetScope(List.of(ns), null, null, List.of());
    List<RecordingSink> sinks = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Running r = start(new Shard(2, i), scope, FileCheckpointStore.inShardLayout(dir, i));
      sinks.add(r.sink());
      r.engine().close();
    }
    String toNewShard = firstOwned(new Shard(3, 2), ns, names);
    String betweenOld = names.stream().filter(n -> {
      int before = owns(new Shard(2, 0), ns, n) ? 0 : 1;
      int now = owns(new Shard(3, 0), ns, n) ? 0 : owns(new Shard(3, 1), ns, n) ? 1 : 2;
      return now < 2 && now != before;
    }).findFirst().orElseThrow();
    String changed = names.stream().filter(n -> !n.equals(toNewShard)
        && owns(new Shard(3, 2), ns, n)).findFirst().orElseThrow();
    var deployments = api.cluster().client().apps().deployments().inNamespace(ns);
    deployments.withName(toNewShard).delete();
    deployments.withName(betweenOld).delete();
    deployments.withName(changed).edit(d -> { d.getSpec().setReplicas(9); return d; });
    api.cluster().deployment(ns, "created", "img:1", 1);
    await().atMost(WAIT).until(() -> deployments.list().getItems().size() == 29);

    Map<Integer, Running> after = new HashMap<>();
    for (int i : order) {
      Running r = start(new Shard(3, i), scope, FileCheckpointStore.inShardLayout(dir, i));
      after.put(i, r);
      sinks.add(r.sink());
    }
    int ownerOfBetween = owns(new Shard(3, 0), ns, betweenOld) ? 0 : 1;
    assertThat(deletesOf(after.get(2).sink())).containsExactly(toNewShard);
    assertThat(deletesOf(after.get(ownerOfBetween).sink())).containsExactly(betweenOld);
    assertThat(deletesOf(after.get(1 - ownerOfBetween).sink())).isEmpty();
    // only what changed is sent: the changed and the created object, by their owners
    Set<String> upserted = new TreeSet<>();
    after.values().forEach(r -> upserted.addAll(r.upserted()));
    assertThat(upserted).containsExactlyInAnyOrder(ns + "/" + changed, ns + "/created");

    Set<String> cluster = deployments.list().getItems().stream()
        .map(d -> ns + "/" + d.getMetadata().getName())
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(fold(sinks)).isEqualTo(cluster);
    Record last = newest(sinks, "apps/Deployment/" + ns + "/" + changed);
    assertThat(last.fields().get("replicas").asInt()).isEqualTo(9);
  }

  private static List<String> deletesOf(RecordingSink sink) {
    return sink.ops(Op.DELETE).stream().map(Record::name).toList();
  }

  /** What a consumer folding every sink's records by key, largest sequence winning, holds. */
  private static Set<String> fold(List<RecordingSink> sinks) {
    Map<String, Record> folded = new HashMap<>();
    for (RecordingSink sink : sinks) {
      for (Record r : sink.records()) {
        folded.merge(r.key(), r, (a, b) -> a.sequence() >= b.sequence() ? a : b);
      }
    }
    return folded.values().stream().filter(r -> r.op() == Op.UPSERT)
        .map(r -> r.namespace() + "/" + r.name())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Record newest(List<RecordingSink> sinks, String key) {
    return sinks.stream().flatMap(s -> s.records().stream()).filter(r -> r.key().equals(key))
        .max(java.util.Comparator.comparingLong(Record::sequence)).orElseThrow();
  }

  @Test
  void whileOldAndNewShardCountsOverlapAReceiverFoldingBySequenceEndsWithTheClustersState() {
    List<String> names = deployments("shard-roll", 18);
    TargetScope scope = new TargetScope(List.of("shard-roll"), null, null, List.of());
    List<RecordingSink> sinks = new ArrayList<>();
    List<KollectEngine> old = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Running r = start(new Shard(2, i), scope, CheckpointStore.none());
      old.add(r.engine());
      sinks.add(r.sink());
    }
    // the new pods start while the old ones still run (a rolling update)
    List<Running> fresh = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Running r = start(new Shard(3, i), scope, CheckpointStore.none());
      fresh.add(r);
      sinks.add(r.sink());
    }
    // changes during the overlap reach the old and the new owner of each object
    api.cluster().client().apps().deployments().inNamespace("shard-roll").withName("d-1")
        .edit(d -> { d.getSpec().setReplicas(7); return d; });
    api.cluster().client().apps().deployments().inNamespace("shard-roll").withName("d-2")
        .delete();
    // both the old and the new owner send each change
    for (List<RecordingSink> owners : List.of(sinks.subList(0, 2), sinks.subList(2, 5))) {
      await().atMost(WAIT).until(() -> owners.stream().anyMatch(sink ->
          sink.of("shard-roll", "d-2").stream().anyMatch(x -> x.op() == Op.DELETE)));
      await().atMost(WAIT).until(() -> owners.stream().anyMatch(sink ->
          sink.of("shard-roll", "d-1").stream().anyMatch(x -> x.op() == Op.UPSERT
              && x.fields().get("replicas").asInt() == 7)));
    }
    for (KollectEngine e : old) {
      e.close();
    }
    for (Running r : fresh) {
      assertThat(r.engine().awaitIdle(WAIT)).isTrue();
    }

    Map<String, Record> folded = new HashMap<>();
    for (RecordingSink sink : sinks) {
      for (Record r : sink.records()) {
        folded.merge(r.key(), r, (a, b) -> a.sequence() >= b.sequence() ? a : b);
      }
    }
    Set<String> live = new TreeSet<>();
    folded.values().stream().filter(r -> r.op() == Op.UPSERT)
        .forEach(r -> live.add(r.namespace() + "/" + r.name()));
    Set<String> want = ownedBy(Shard.NONE, "shard-roll", names);
    want.remove("shard-roll/d-2");
    assertThat(live).isEqualTo(want);
    assertThat(folded.get(key("d-1")).fields().get("replicas").asInt()).isEqualTo(7);
  }

  private static String key(String name) {
    return "apps/Deployment/shard-roll/" + name;
  }

  @Test
  void aNamespaceSelectorWorksOnEveryShardAndNamespaceRecordsAreSplitToo() {
    api.cluster().namespace("shard-sel-x", Map.of("team", "x"));
    api.cluster().namespace("shard-sel-y", Map.of("team", "y"));
    List<String> names = IntStream.range(0, 12).mapToObj(i -> "d-" + i).toList();
    for (String n : names) {
      api.cluster().deployment("shard-sel-x", n, "img:1", 1);
      api.cluster().deployment("shard-sel-y", n, "img:1", 1);
    }
    TargetScope teamX = new TargetScope(List.of(),
        new LabelSelectorBuilder().addToMatchLabels("team", "x").build(), null, List.of());
    Shard s0 = new Shard(2, 0);
    Shard s1 = new Shard(2, 1);
    Running r0 = start(s0, teamX);
    Running r1 = start(s1, teamX);
    assertThat(r0.upserted()).isEqualTo(ownedBy(s0, "shard-sel-x", names));
    assertThat(r1.upserted()).isEqualTo(ownedBy(s1, "shard-sel-x", names));

    // the selector follows a namespace's labels on both shards: each sees every Namespace
    api.cluster().client().namespaces().withName("shard-sel-y")
        .edit(n -> { n.getMetadata().setLabels(Map.of("team", "x")); return n; });
    Set<String> want0 = new TreeSet<>(ownedBy(s0, "shard-sel-x", names));
    want0.addAll(ownedBy(s0, "shard-sel-y", names));
    Set<String> want1 = new TreeSet<>(ownedBy(s1, "shard-sel-x", names));
    want1.addAll(ownedBy(s1, "shard-sel-y", names));
    await().atMost(WAIT).until(() -> r0.upserted().equals(want0));
    await().atMost(WAIT).until(() -> r1.upserted().equals(want1));

    // a target exporting Namespaces (a type every shard caches whole) is split by owner too
    ProfileSpec namespaces = new ProfileSpec(List.of(new ResourceRule("", "v1", "Namespace",
        List.of(FieldRule.of("phase", ".status.phase")), List.of(), List.of(), List.of(), false,
        false)));
    TargetId nsTarget = new TargetId("kollect", "namespaces");
    Set<String> nsRecords0 = exportNamespaces(r0, namespaces, nsTarget);
    Set<String> nsRecords1 = exportNamespaces(r1, namespaces, nsTarget);
    assertThat(nsRecords0).doesNotContainAnyElementsOf(nsRecords1);
    Set<String> allNamespaces = api.cluster().client().namespaces().list().getItems().stream()
        .map(n -> n.getMetadata().getName()).collect(Collectors.toCollection(TreeSet::new));
    Set<String> union = new TreeSet<>(nsRecords0);
    union.addAll(nsRecords1);
    assertThat(union).isEqualTo(allNamespaces);
    assertThat(nsRecords0).allMatch(n -> s0.owns(CLUSTER, "", "Namespace", "", n));
  }

  @Test
  void aRemoteClustersObjectsAreSplitByTheirOwnClusterName() {
    List<String> names = deployments("shard-remote", 16);
    // "west" is this same API server under another name, as a KollectCluster could name it
    ClusterConnections west = ClusterConnections.of(Map.of("west", api.cluster().client()));
    Map<Integer, RecordingSink> sinks = new HashMap<>();
    for (int i = 0; i < 3; i++) {
      KollectEngine engine = api.closedAfterTest(KollectEngine.builder(api.cluster().client())
          .cluster(CLUSTER).shard(new Shard(3, i)).clusterConnections(west).build());
      RecordingSink sink = new RecordingSink("rec");
      engine.putProfile("p", deploymentProfile());
      engine.putSink(sink, fastSink());
      TargetSpec spec = TargetSpec.builder(new TargetId("kollect", "remote"), "p")
          .scope(TargetScope.namespaces("shard-remote")).sinkRefs(List.of("rec"))
          .clusters(List.of("west")).build();
      engine.putTarget(spec);
      engine.start();
      EngineIT.awaitStatus(engine, spec.id(), TargetStatus::ready);
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      sinks.put(i, sink);
    }
    Set<String> union = new TreeSet<>();
    for (int i = 0; i < 3; i++) {
      Shard shard = new Shard(3, i);
      Set<String> got = sinks.get(i).ops(Op.UPSERT).stream()
          .peek(r -> assertThat(r.cluster()).isEqualTo("west"))
          .map(r -> r.namespace() + "/" + r.name())
          .collect(Collectors.toCollection(TreeSet::new));
      Set<String> want = names.stream()
          .filter(n -> shard.owns("west", "apps", "Deployment", "shard-remote", n))
          .map(n -> "shard-remote/" + n).collect(Collectors.toCollection(TreeSet::new));
      assertThat(got).as("shard %s", shard).isEqualTo(want);
      assertThat(union).doesNotContainAnyElementsOf(got);
      union.addAll(got);
    }
    assertThat(union).isEqualTo(ownedBy(Shard.NONE, "shard-remote", names));
    // hashed with "west", not with the engine's own name: that split would differ. (Three
    // shards, not two: FNV-1a's lowest bit is only the parity of the odd bytes, so modulo 2
    // "it" and "west" happen to split these names alike.)
    assertThat(ownedBy(new Shard(3, 0), "shard-remote", names)).isNotEqualTo(
        names.stream().filter(n -> new Shard(3, 0).owns("west", "apps", "Deployment",
            "shard-remote", n)).map(n -> "shard-remote/" + n)
            .collect(Collectors.toCollection(TreeSet::new)));
  }

  private static Set<String> exportNamespaces(Running r, ProfileSpec profile, TargetId id) {
    RecordingSink sink = new RecordingSink("ns-rec");
    r.engine().putProfile("namespaces", profile);
    r.engine().putSink(sink, fastSink());
    r.engine().putTarget(new TargetSpec(id, 1, "namespaces", TargetScope.everything(),
        List.of("ns-rec"), false));
    EngineIT.awaitStatus(r.engine(), id, TargetStatus::ready);
    assertThat(r.engine().awaitIdle(WAIT)).isTrue();
    return sink.ops(Op.UPSERT).stream().map(Record::name)
        .collect(Collectors.toCollection(TreeSet::new));
  }
}

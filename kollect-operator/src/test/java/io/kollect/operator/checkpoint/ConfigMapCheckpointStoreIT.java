package io.kollect.operator.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.Shard;
import io.kollect.export.ExportedEntry;
import io.kollect.extract.GroupVersionKind;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.shard.ShardNames;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ConfigMap checkpoint store (format 3: a snapshot generation plus delta objects) on a real API
 * server: round trip across instances, upgrade from format 2 objects, a crash between a delta and
 * its compaction, deletion; and, when {@code -Dkollect.bench.checkpoint=true}, the API bytes and
 * writes per change reported in docs/benchmarks.md.
 */
class ConfigMapCheckpointStoreIT {

  private static final String NS = "kollect-system";
  private static final GroupVersionKind CM = new GroupVersionKind("", "v1", "ConfigMap");
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start();
    cluster.namespace(NS);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** An entry of the benchmark's shape: a ConfigMap in one of 20 namespaces, SHA-256 hash. */
  static ExportedEntry entry(int i, int version) {
    String hash = sha256("cm-" + i + "@" + version);
    return new ExportedEntry(CM, "ns-" + (i % 20), "cm-" + i,
        java.util.UUID.nameUUIDFromBytes(("uid" + i).getBytes(StandardCharsets.UTF_8)).toString(),
        "bench", hash, "local", 1_767_225_600_000_000L + i * 1000L + version,
        Instant.parse("2026-11-24T04:00:00Z").plusSeconds(version));
  }

  static Map<String, ExportedEntry> entries(int n, int version) {
    Map<String, ExportedEntry> out = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      ExportedEntry e = entry(i, version);
      out.put(e.key(), e);
    }
    return out;
  }

  static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<ConfigMap> objects(String target, String sink) {
    return cluster.client().configMaps().inNamespace(NS)
        .withLabel(ConfigMapCheckpointStore.LABEL, ConfigMapCheckpointStore.id(target, sink))
        .list().getItems();
  }

  private static ConfigMapCheckpointStore store(int partBytes) {
    return new ConfigMapCheckpointStore(cluster.newClient(), NS, partBytes, Duration.ofMillis(10));
  }

  @Test
  void snapshotAndDeltasRoundTripToAnotherInstanceSplitIntoPartsBelowTheLimit() {
    ConfigMapCheckpointStore store = store(4096);
    Map<String, ExportedEntry> model = new HashMap<>(entries(300, 1));
    store.save("ns/t", "a", model);
    assertThat(objects("ns/t", "a")).as("split into parts").hasSizeGreaterThan(2)
        .allSatisfy(cm -> assertThat(cm.getMetadata().getAnnotations())
            .containsEntry(CheckpointObjects.FORMAT, "3"));

    ExportedEntry changed = entry(7, 2);
    store.apply("ns/t", "a", Map.of(changed.key(), changed), Set.of(entry(8, 1).key()));
    model.put(changed.key(), changed);
    model.remove(entry(8, 1).key());
    List<ConfigMap> deltas = objects("ns/t", "a").stream()
        .filter(ConfigMapCheckpointStoreIT::isDelta).toList();
    assertThat(deltas).hasSize(1);
    assertThat(cm(deltas.get(0))).as("a delta is small").isLessThan(2_000);

    assertThat(store(4096).load("ns/t", "a")).isEqualTo(model);
    assertThat(store(4096).load("ns/t", "other-sink")).isEmpty();
  }

  @Test
  void deltasAreCompactedInTheBackgroundIntoANewGeneration() throws Exception {
    ConfigMapCheckpointStore store = store(4096);
    Map<String, ExportedEntry> model = new HashMap<>(entries(30, 1));
    store.save("ns/t", "compact", model);
    for (int round = 2; round < 2 + ConfigMapCheckpointStore.MAX_DELTAS; round++) {
      ExportedEntry e = entry(round % 30, round);
      store.apply("ns/t", "compact", Map.of(e.key(), e), Set.of());
      model.put(e.key(), e);
    }
    assertThat(store.awaitCompactions(Duration.ofSeconds(30))).isTrue();
    List<ConfigMap> left = objects("ns/t", "compact");
    assertThat(left).noneMatch(cm -> cm.getMetadata().getName().contains("-s1-"));
    assertThat(left.stream().filter(ConfigMapCheckpointStoreIT::isDelta).count())
        .isLessThan(ConfigMapCheckpointStore.MAX_DELTAS);
    assertThat(store(4096).load("ns/t", "compact")).isEqualTo(model);
  }

  @Test
  void aVersionTwoCheckpointIsReadOnUpgradeAndReplacedByTheNextSnapshot() throws Exception {
    Map<String, ExportedEntry> v2 = entries(200, 1);
    String id = ConfigMapCheckpointStore.id("ns/t", "upgrade");
    // objects exactly as the previous release wrote them: <id>-<part>, format "2"
    byte[] json = new ObjectMapper().writeValueAsBytes(v2);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
      zip.write(json);
    }
    byte[] gz = out.toByteArray();
    int partBytes = 4096;
    int count = (gz.length + partBytes - 1) / partBytes;
    assertThat(count).isGreaterThan(1);
    for (int i = 0; i < count; i++) {
      cluster.client().configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
          .withNewMetadata().withName(id + "-" + i).withNamespace(NS)
          .addToLabels(ConfigMapCheckpointStore.LABEL, id)
          .addToAnnotations("kollect.io/parts", Integer.toString(count))
          .addToAnnotations("kollect.io/digest", "d1")
          .addToAnnotations(CheckpointObjects.FORMAT, "2")
          .endMetadata()
          .addToBinaryData("entries.json.gz", Base64.getEncoder().encodeToString(
              Arrays.copyOfRange(gz, i * partBytes, Math.min(gz.length, (i + 1) * partBytes))))
          .build()).create();
    }
    ConfigMapCheckpointStore store = store(partBytes);
    assertThat(store.load("ns/t", "upgrade")).isEqualTo(v2);

    // deltas apply on top of the version 2 snapshot ...
    Map<String, ExportedEntry> model = new HashMap<>(v2);
    ExportedEntry e = entry(3, 2);
    store.apply("ns/t", "upgrade", Map.of(e.key(), e), Set.of(entry(4, 1).key()));
    model.put(e.key(), e);
    model.remove(entry(4, 1).key());
    assertThat(store(partBytes).load("ns/t", "upgrade")).isEqualTo(model);

    // ... and the next snapshot replaces the old objects
    store.save("ns/t", "upgrade", model);
    assertThat(objects("ns/t", "upgrade")).allSatisfy(cm -> assertThat(
        cm.getMetadata().getAnnotations()).containsEntry(CheckpointObjects.FORMAT, "3"));
    assertThat(store(partBytes).load("ns/t", "upgrade")).isEqualTo(model);

    // a version 1 checkpoint (no annotation) is read as it is
    String id1 = ConfigMapCheckpointStore.id("ns/t", "v1");
    Map<String, ExportedEntry> v1 = Map.of("apps/Deployment/ns/a", new ExportedEntry(
        new GroupVersionKind("apps", "v1", "Deployment"), "ns", "a", "uid-a", "p", "h"));
    out = new ByteArrayOutputStream();
    try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
      zip.write(new ObjectMapper().writeValueAsBytes(v1));
    }
    cluster.client().configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(id1 + "-0").withNamespace(NS)
        .addToLabels(ConfigMapCheckpointStore.LABEL, id1)
        .addToAnnotations("kollect.io/parts", "1").addToAnnotations("kollect.io/digest", "d")
        .endMetadata()
        .addToBinaryData("entries.json.gz", Base64.getEncoder().encodeToString(out.toByteArray()))
        .build()).create();
    assertThat(store(partBytes).load("ns/t", "v1")).isEqualTo(v1);
  }

  @Test
  void aCrashBetweenDeltaWritesAndCompactionLosesNothing() throws Exception {
    ConfigMapCheckpointStore store = store(4096);
    Map<String, ExportedEntry> model = new HashMap<>(entries(100, 1));
    store.save("ns/t", "crash", model);
    for (int round = 2; round < 6; round++) {
      ExportedEntry e = entry(round, round);
      store.apply("ns/t", "crash", Map.of(e.key(), e), Set.of(entry(50 + round, 1).key()));
      model.put(e.key(), e);
      model.remove(entry(50 + round, 1).key());
    }
    // killed while writing the next generation: its first part exists, the others do not
    ConfigMap part = objects("ns/t", "crash").stream()
        .filter(cm -> cm.getMetadata().getName().endsWith("-s1-0")).findFirst().orElseThrow();
    String name = part.getMetadata().getName().replace("-s1-0", "-s2-0");
    cluster.client().configMaps().inNamespace(NS).resource(new ConfigMapBuilder(part)
        .editMetadata().withName(name).withResourceVersion(null).withUid(null)
        .addToAnnotations("kollect.io/generation", "2")
        .addToAnnotations("kollect.io/digest", "of-an-interrupted-write")
        .addToAnnotations("kollect.io/through", "4")
        .endMetadata().build()).create();

    // a new leader reads the older complete generation plus every delta
    ConfigMapCheckpointStore next = store(4096);
    assertThat(next.load("ns/t", "crash")).isEqualTo(model);
    ExportedEntry after = entry(99, 9);
    next.apply("ns/t", "crash", Map.of(after.key(), after), Set.of());
    model.put(after.key(), after);
    assertThat(store(4096).load("ns/t", "crash")).isEqualTo(model);

    // killed after writing a complete generation, before deleting what it superseded: the
    // deltas it contains are still there, and are not applied twice out of order
    List<ConfigMap> deltasBefore = objects("ns/t", "crash").stream()
        .filter(ConfigMapCheckpointStoreIT::isDelta).toList();
    next.save("ns/t", "crash", model);
    for (ConfigMap d : deltasBefore) {
      cluster.client().configMaps().inNamespace(NS).resource(new ConfigMapBuilder(d)
          .editMetadata().withResourceVersion(null).withUid(null).endMetadata().build()).create();
    }
    assertThat(store(4096).load("ns/t", "crash")).isEqualTo(model);
    assertThat(objects("ns/t", "crash")).noneMatch(cm -> cm.getMetadata().getName().contains("-s2-"));
  }

  @Test
  void aTornSnapshotWithoutAnOlderOneAndANewerFormatReadAsEmpty() {
    ConfigMapCheckpointStore store = store(4096);
    store.save("ns/t", "torn", entries(300, 1));
    List<ConfigMap> parts = objects("ns/t", "torn");
    assertThat(parts.size()).isGreaterThan(2);
    cluster.client().configMaps().inNamespace(NS).withName(parts.get(1).getMetadata().getName())
        .delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> store(4096).load("ns/t", "torn").isEmpty());

    store.save("ns/t", "newer", entries(3, 1));
    ConfigMap only = objects("ns/t", "newer").get(0);
    only.getMetadata().getAnnotations().put(CheckpointObjects.FORMAT, "4");
    cluster.client().configMaps().inNamespace(NS).resource(only).update();
    ConfigMapCheckpointStore reader = store(4096);
    assertThat(reader.load("ns/t", "newer")).isEmpty();
    // the next write replaces what could not be read with the writer's view (empty + delta)
    ExportedEntry e = entry(1, 5);
    reader.apply("ns/t", "newer", Map.of(e.key(), e), Set.of());
    assertThat(store(4096).load("ns/t", "newer")).isEqualTo(Map.of(e.key(), e));
  }

  @Test
  void deleteRemovesSnapshotAndDeltas() {
    ConfigMapCheckpointStore store = store(4096);
    store.save("ns/t", "gone", entries(50, 1));
    ExportedEntry e = entry(1, 2);
    store.apply("ns/t", "gone", Map.of(e.key(), e), Set.of());
    store.delete("ns/t", "gone");
    await().atMost(Duration.ofSeconds(10)).until(() -> objects("ns/t", "gone").isEmpty());
    assertThat(store(4096).load("ns/t", "gone")).isEmpty();
  }

  private static ConfigMapCheckpointStore shardStore(int total, int index) {
    return new ConfigMapCheckpointStore(cluster.newClient(), NS, 4096, Duration.ofMillis(10),
        new Shard(total, index));
  }

  private static Map<String, ExportedEntry> some(int... indexes) {
    Map<String, ExportedEntry> out = new TreeMap<>();
    for (int i : indexes) {
      ExportedEntry e = entry(i, 1);
      out.put(e.key(), e);
    }
    return out;
  }

  private static String k(int i) {
    return entry(i, 1).key();
  }

  @Test
  void aShardReadsTheCheckpointsOfTheOtherShardsAndOfTheUnshardedOperatorButNotItsOwn() {
    store(4096).save("ns/peers", "a", some(1, 2));
    // an unsharded checkpoint written before the peer label existed is found by its id
    for (ConfigMap cm : objects("ns/peers", "a")) {
      cluster.client().configMaps().inNamespace(NS).withName(cm.getMetadata().getName())
          .edit(c -> { c.getMetadata().getLabels().remove(CheckpointObjects.PEER_LABEL);
            return c; });
    }
    shardStore(3, 0).apply("ns/peers", "a", some(3), Set.of());
    shardStore(3, 1).apply("ns/peers", "a", some(4), Set.of());
    shardStore(3, 0).apply("ns/peers", "other-sink", some(5), Set.of());

    assertThat(shardStore(3, 1).loadPeers("ns/peers", "a")).extracting(Map::keySet)
        .containsExactlyInAnyOrder(Set.of(k(1), k(2)), Set.of(k(3)));
    // the unsharded operator's peers are the shards
    assertThat(store(4096).loadPeers("ns/peers", "a")).extracting(Map::keySet)
        .containsExactlyInAnyOrder(Set.of(k(3)), Set.of(k(4)));
    assertThat(shardStore(3, 2).loadPeers("ns/peers", "nothing")).isEmpty();
  }

  @Test
  void takingKeysOverAppendsARemovalToEachPeerAfterWhichThePeersOwnWriterStillAppends() {
    ConfigMapCheckpointStore unsharded = store(4096);
    ConfigMapCheckpointStore shard0 = shardStore(3, 0);
    unsharded.save("ns/take", "a", some(1, 2));
    shard0.apply("ns/take", "a", some(1, 3, 4), Set.of()); // shard 0 now knows its log's end

    shardStore(3, 2).takeOver("ns/take", "a", Set.of(k(1), k(3), k(9)));
    // shard 0's writer, still running, appends: its number was taken, it appends after
    shard0.apply("ns/take", "a", some(5), Set.of());

    assertThat(store(4096).load("ns/take", "a").keySet()).containsExactly(k(2));
    assertThat(shardStore(3, 0).load("ns/take", "a").keySet())
        .containsExactlyInAnyOrder(k(4), k(5));
    // the removal is an object of the peer's checkpoint: its id, its shard label
    assertThat(cluster.client().configMaps().inNamespace(NS)
        .withLabel(ConfigMapCheckpointStore.LABEL, ConfigMapCheckpointStore.id("ns/take", "a")
            + "-shard-0").list().getItems())
        .allSatisfy(cm -> assertThat(cm.getMetadata().getLabels())
            .containsEntry(ShardNames.SHARD_LABEL, "0")
            .containsEntry(CheckpointObjects.PEER_LABEL,
                ConfigMapCheckpointStore.id("ns/take", "a")));
    assertThat(shardStore(3, 2).load("ns/take", "a")).isEmpty();
  }

  @Test
  void aPeersCompactionAfterATakeOverKeepsTheRemoval() throws Exception {
    ConfigMapCheckpointStore shard0 = shardStore(2, 0);
    shard0.save("ns/take-compact", "a", some(1, 2, 3));
    shardStore(3, 2).takeOver("ns/take-compact", "a", Set.of(k(1)));
    for (int round = 2; round < 2 + ConfigMapCheckpointStore.MAX_DELTAS; round++) {
      ExportedEntry e = entry(2, round);
      shard0.apply("ns/take-compact", "a", Map.of(e.key(), e), Set.of());
    }
    assertThat(shard0.awaitCompactions(Duration.ofSeconds(30))).isTrue();
    assertThat(shardStore(2, 0).load("ns/take-compact", "a").keySet())
        .containsExactlyInAnyOrder(k(2), k(3));
  }

  private static boolean isDelta(ConfigMap cm) {
    return cm.getMetadata().getAnnotations().containsKey("kollect.io/delta-seq");
  }

  private static int cm(ConfigMap cm) {
    return cluster.client().getKubernetesSerialization().asJson(cm)
        .getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * The figure of docs/benchmarks.md: API bytes (request bodies) and writes per change at 20
   * changes/s, the exporter writing once per 1 s checkpoint interval, with 5k and 50k keys, the
   * format 2 full rewrite beside format 3 deltas plus compactions. Time is simulated (one apply is
   * one second) so the figure does not depend on this machine; compactions run in the
   * background as in production and are waited for at the end.
   */
  @Test
  void benchmarkBytesAndWritesPerChange() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("kollect.bench.checkpoint"),
        "run with -Dkollect.bench.checkpoint=true");
    int seconds = Integer.getInteger("kollect.bench.seconds", 300);
    int perSecond = 20;
    StringBuilder report = new StringBuilder("\n| keys | store | API bytes / change | writes / s |\n"
        + "|---|---|---|---|\n");
    for (int keys : new int[] {5_000, 50_000}) {
      Map<String, ExportedEntry> state = entries(keys, 1);
      // format 2 behaviour: the whole state rewritten once per interval
      ConfigMapCheckpointStore whole = new ConfigMapCheckpointStore(cluster.newClient(), NS);
      whole.save("bench/" + keys, "whole", state);
      long b0 = whole.bytesSent();
      long w0 = whole.writes();
      int rewrites = 3;
      for (int i = 0; i < rewrites; i++) {
        ExportedEntry e = entry(i, 100 + i);
        state.put(e.key(), e);
        whole.save("bench/" + keys, "whole", state);
      }
      double wholeBytes = (whole.bytesSent() - b0) / (double) (rewrites * perSecond);
      double wholeWrites = (whole.writes() - w0) / (double) rewrites;
      whole.delete("bench/" + keys, "whole");

      ConfigMapCheckpointStore log = new ConfigMapCheckpointStore(cluster.newClient(), NS);
      log.save("bench/" + keys, "log", entries(keys, 1));
      assertThat(log.awaitCompactions(Duration.ofMinutes(2))).isTrue();
      long b1 = log.bytesSent();
      long w1 = log.writes();
      java.util.Random random = new java.util.Random(1);
      for (int s = 0; s < seconds; s++) {
        Map<String, ExportedEntry> changed = new HashMap<>();
        while (changed.size() < perSecond) {
          ExportedEntry e = entry(random.nextInt(keys), 1000 + s);
          changed.put(e.key(), e);
        }
        log.apply("bench/" + keys, "log", changed, Set.of());
        // in production a compaction (a few paced requests, seconds) ends long before the next
        // one is due (64 one-second intervals later); simulated time must not skip them
        assertThat(log.awaitCompactions(Duration.ofMinutes(2))).isTrue();
      }
      assertThat(log.awaitCompactions(Duration.ofMinutes(5))).isTrue();
      double logBytes = (log.bytesSent() - b1) / (double) (seconds * perSecond);
      double logWrites = (log.writes() - w1) / (double) seconds;
      log.delete("bench/" + keys, "log");
      report.append(String.format("| %,d | format 2 (whole rewrite) | %,.0f | %.2f |%n", keys,
          wholeBytes, wholeWrites));
      report.append(String.format("| %,d | format 3 (deltas + compaction) | %,.0f | %.2f |%n",
          keys, logBytes, logWrites));
    }
    System.out.println("ConfigMap checkpoint, " + perSecond + " changes/s, " + seconds
        + " s simulated:" + report);
  }
}

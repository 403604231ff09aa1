package io.kollect.operator.shard;

import static io.kollect.operator.shard.ShardedConfigMaps.APPS;
import static io.kollect.operator.shard.ShardedConfigMaps.owns;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kollect.core.Shard;
import io.kollect.operator.TestOperator;
import io.kollect.operator.checkpoint.ConfigMapCheckpointStore;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.http.BindAddress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sharding across replicas, in the operator: operators given {@code --total-shards N
 * --shard I} over one API server, one KollectTarget, one http sink. Every operator also prints its
 * records ({@code --stdout}), which tells which shard sent what. The target's status has one
 * entry per shard with that shard's objects, and their total at the top level.
 */
class ShardedOperatorIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "sharded";
  private static final int OBJECTS = 40;
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @RegisterExtension
  static final ShardedConfigMaps world = new ShardedConfigMaps(NS, OBJECTS, true);
  /** The shards' operators, by start order. */
  private static final List<TestOperator> operators = new ArrayList<>();
  private static final List<ByteArrayOutputStream> printed = new ArrayList<>();

  private static void startShards(int total) {
    for (int i = 0; i < total; i++) {
      Shard shard = new Shard(total, i);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      printed.add(out);
      operators.add(world.startShard(shard, operator -> operator
          .configure(c -> c.toBuilder().metricsAddress(BindAddress.loopback(0)).build())
          .stdout(new PrintStream(out, true, StandardCharsets.UTF_8))));
    }
  }

  private static void stopOperators() {
    world.stopShards();
    operators.clear();
  }

  private static Set<String> ownedBy(Shard shard, Set<String> names) {
    return names.stream().filter(n -> owns(shard, n)).collect(Collectors.toSet());
  }

  /** The records one operator (by start order) printed, in order. */
  private static List<JsonNode> printedBy(int operator) {
    List<JsonNode> out = new ArrayList<>();
    for (String line : printed.get(operator).toString(StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) {
        try {
          out.add(JSON.readTree(line));
        } catch (java.io.IOException e) {
          // a line being written right now: read on the next poll
        }
      }
    }
    return out;
  }

  /** Records in an inventory object, by object name then record name. */
  private static Map<String, Set<String>> inventoryObjects() {
    Map<String, Set<String>> out = new HashMap<>();
    for (KollectInventory inv : world.cluster().client().resources(KollectInventory.class)
        .inNamespace(NS).list().getItems()) {
      Set<String> names = new HashSet<>();
      if (inv.getSpec() != null && inv.getSpec().records() != null) {
        inv.getSpec().records().forEach(r -> names.add(r.path("name").asText()));
      }
      out.put(inv.getMetadata().getName(), names);
    }
    return out;
  }

  /** The sum of {@code kollect_informer_cached_objects} for ConfigMaps of one operator. */
  private static long cachedConfigMaps(TestOperator operator) throws Exception {
    URI uri = URI.create("http://127.0.0.1:"
        + operator.operator().metricsAddress().orElseThrow().getPort() + "/metrics");
    String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    double sum = 0;
    for (String line : body.split("\n")) {
      if (line.startsWith("kollect_informer_cached_objects{") && line.contains("ConfigMap")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return Math.round(sum);
  }

  /**
   * The target's status: one {@code status.shards[]} entry per shard counting that shard's
   * objects, and at the top level the total of all shards, Ready.
   */
  private static void assertStatusPerShard(int total, Set<String> names) {
    KollectTarget t = world.cluster().client().resources(KollectTarget.class).inNamespace(NS)
        .withName("t").get();
    KollectTargetStatus status = t.getStatus();
    assertThat(status).isNotNull();
    assertThat(status.shards()).extracting(KollectTargetStatus.ShardEntry::index)
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.IntStream.range(0, total).boxed().toList());
    for (KollectTargetStatus.ShardEntry e : status.shards()) {
      assertThat(e.objects()).as("objects of shard %s", e.index())
          .isEqualTo(ownedBy(new Shard(total, e.index()), names).size());
      assertThat(e.ready()).isEqualTo("True");
    }
    assertThat(status.objects()).isEqualTo(names.size());
    assertThat(status.conditions()).filteredOn(c -> c.getType().equals("Ready")).singleElement()
        .satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
  }

  @Test
  void twoShardsSplitTheObjectsAndAThirdShardMovesThemWithoutADelete() throws Exception {
    // ---- two shards -------------------------------------------------------------------------
    startShards(2);
    Set<String> names = world.clusterState().keySet();
    await().atMost(CONVERGE)
        .untilAsserted(() -> assertThat(world.folded()).isEqualTo(world.clusterState()));

    // each object came from exactly its owner: the names each shard printed are its own
    for (int i = 0; i < 2; i++) {
      Shard shard = new Shard(2, i);
      Set<String> sent = printedBy(i).stream().map(r -> r.path("name").asText())
          .collect(Collectors.toSet());
      assertThat(sent).as("shard %s", shard).isEqualTo(ownedBy(shard, names));
    }
    assertThat(ownedBy(new Shard(2, 0), names)).hasSizeBetween(OBJECTS / 4, OBJECTS * 3 / 4);

    // each operator's cache holds its own objects only
    for (int i = 0; i < 2; i++) {
      int index = i;
      await().atMost(CONVERGE)
          .untilAsserted(() -> assertThat(cachedConfigMaps(operators.get(index)))
          .isEqualTo(ownedBy(new Shard(2, index), names).size()));
    }

    // per-shard identity: inventory objects and checkpoints carry the shard index
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(inventoryObjects()).isEqualTo(Map.of(
        "t-shard-0-0", ownedBy(new Shard(2, 0), names),
        "t-shard-1-0", ownedBy(new Shard(2, 1), names))));
    List<ConfigMap> checkpoints = world.cluster().client().configMaps()
        .inNamespace("kollect-system")
        .withLabel(ConfigMapCheckpointStore.LABEL).list().getItems();
    assertThat(checkpoints).isNotEmpty().allSatisfy(cm -> {
      String shard = cm.getMetadata().getLabels().get(ShardNames.SHARD_LABEL);
      assertThat(shard).isIn("0", "1");
      assertThat(cm.getMetadata().getLabels().get(ConfigMapCheckpointStore.LABEL))
          .endsWith("-shard-" + shard);
    });

    await().atMost(CONVERGE).untilAsserted(() -> assertStatusPerShard(2, names));

    // ---- restart both with three shards -------------------------------------------------------
    stopOperators();
    int before = printed.size();
    startShards(3);
    Set<String> names3 = world.clusterState().keySet();
    // every shard has written its part: the records it lost are out of its inventory objects
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(inventoryObjects()).isEqualTo(Map.of(
        "t-shard-0-0", ownedBy(new Shard(3, 0), names3),
        "t-shard-1-0", ownedBy(new Shard(3, 1), names3),
        "t-shard-2-0", ownedBy(new Shard(3, 2), names3))));
    assertThat(world.folded()).isEqualTo(world.clusterState());
    // churn after the move: a change, a delete and a new object reach their new owners
    world.configMap("cm-1", "changed");
    world.cluster().client().configMaps().inNamespace(APPS).withName("cm-2").delete();
    world.configMap("cm-new", "fresh");
    await().atMost(CONVERGE)
        .untilAsserted(() -> assertThat(world.folded()).isEqualTo(world.clusterState()));
    Set<String> now = world.clusterState().keySet();
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(inventoryObjects()).isEqualTo(Map.of(
        "t-shard-0-0", ownedBy(new Shard(3, 0), now),
        "t-shard-1-0", ownedBy(new Shard(3, 1), now),
        "t-shard-2-0", ownedBy(new Shard(3, 2), now))));
    await().atMost(CONVERGE).untilAsserted(() -> assertStatusPerShard(3, now));

    // the move sent no DELETE: the only one is of the deleted object, from its owner
    for (int i = 0; i < 3; i++) {
      Shard shard = new Shard(3, i);
      List<JsonNode> records = printedBy(before + i);
      assertThat(records).allSatisfy(r -> assertThat(owns(shard, r.path("name").asText()))
          .as("%s sent %s", shard, r.path("name").asText()).isTrue());
      assertThat(records.stream().filter(r -> r.path("op").asText().equals("DELETE"))
          .map(r -> r.path("name").asText()))
          .as("DELETEs of %s", shard)
          .isSubsetOf("cm-2");
    }
    // a shard that kept an object did not send it again unless it changed
    Shard zero = new Shard(3, 0);
    Set<String> keptByZero = names.stream()
        .filter(n -> owns(new Shard(2, 0), n) && owns(zero, n) && !n.equals("cm-1")
            && !n.equals("cm-2"))
        .collect(Collectors.toSet());
    assertThat(keptByZero).isNotEmpty();
    assertThat(printedBy(before).stream().map(r -> r.path("name").asText()))
        .doesNotContainAnyElementsOf(keptByZero);
    assertThat(world.receiver().unsequenced()).isZero();
  }
}

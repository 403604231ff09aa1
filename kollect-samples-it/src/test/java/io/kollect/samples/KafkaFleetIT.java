package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.Shard;
import io.kollect.export.kafka.KafkaBroker;
import io.kollect.export.kafka.TopicContent;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Fleet scale (the Kafka sink and sharding) with what ships: the packaged operator ({@code java -jar kollect.jar run}) as
 * OS processes against a real API server and a real in-process KRaft broker ({@link KafkaBroker}).
 * Each scenario has its own namespace, {@code KollectSink} {@code fleet} ({@code type: kafka},
 * its own topic, created compacted with 3 partitions) and {@code KollectTarget} {@code cms} (the
 * namespace's ConfigMaps, field {@code v} = {@code data.v}). After each, a consumer that reads the
 * topic from the beginning and folds by key (a tombstone deletes) must hold exactly the cluster's
 * ConfigMaps: the same message keys ({@code fleet/<ns>/cms//ConfigMap/<ns>/<name>}) and the same
 * {@code v}; and every key's {@code sequence} header grows from message to message.
 *
 * <p>The first three scenarios share one unsharded operator (it reads only their namespaces), the
 * last two run 2, then 3 shards on a namespace of their own. The tests run in order.
 *
 * <p>The shard count change (2 to 3) happens while no shard runs, with deletes of objects that
 * move: the case the checkpoint handover between shards is for (docs/architecture.md,
 * "Re-balancing").
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaFleetIT {

  private static final String CLUSTER = "fleet";
  private static final String OPERATOR_NAMESPACE = FleetCluster.OPERATOR_NAMESPACE;
  private static final List<String> SOLO_NAMESPACES = List.of("churn", "crash", "outage");
  private static final String SHARDED = "sharded";
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  /**
   * How far the stored checkpoint may lag the broker's acks at a kill -9: the exporter writes it
   * at most once per second (its {@code checkpointInterval}) after the acks it holds, plus that
   * ConfigMap write itself, given two seconds on this shared machine.
   */
  private static final Duration CHECKPOINT_LAG = Duration.ofSeconds(3);

  private static FleetCluster fleet;
  private static KubernetesClient admin;
  private static KafkaBroker broker;
  /** The unsharded operator of the first three scenarios. */
  private static OperatorProcess solo;
  private static final List<OperatorProcess> shards = new ArrayList<>();

  @BeforeAll
  static void apiServerBrokerAndProfile() throws Exception {
    fleet = FleetCluster.start("kafka-fleet");
    admin = fleet.admin();
    broker = KafkaBroker.launch();
  }

  @AfterAll
  static void stopEverything() throws Exception {
    stopShards();
    if (solo != null) {
      solo.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  // ---- 1. churn ------------------------------------------------------------------------------

  @Test
  @Order(1)
  void theFoldedTopicEqualsTheClusterAfterChurnWithDeletesAndReCreatesOfTheSameNames() {
    String ns = "churn";
    scenario(ns, 30);
    solo = startSolo("solo-1");
    awaitExact(ns);

    Random random = new Random(15);
    Set<String> deleted = new HashSet<>();
    for (int step = 0; step < 120; step++) {
      String name = "cm-" + random.nextInt(30);
      int action = random.nextInt(4);
      if (deleted.contains(name)) {
        put(ns, name, "re" + step);
        deleted.remove(name);
      } else if (action == 0) {
        delete(ns, name);
        deleted.add(name);
      } else if (action == 1) {
        // delete and re-create at once: the operator may see both or only the new object
        delete(ns, name);
        put(ns, name, "again" + step);
      } else {
        put(ns, name, "u" + step);
      }
      if (step % 20 == 0) {
        put(ns, "new-" + step, "n" + step);
      }
    }
    awaitExact(ns);

    List<TopicContent.Message> messages = TopicLog.read(broker.bootstrapServers(), topic(ns));
    assertThat(deleted).as("names deleted and not re-created").isNotEmpty();
    Map<String, List<TopicContent.Message>> byKey = TopicLog.byKey(messages);
    for (String name : deleted) {
      List<TopicContent.Message> ofKey = byKey.get(key(ns, name));
      assertThat(ofKey.get(ofKey.size() - 1))
          .as("last message of deleted %s", name)
          .satisfies(m -> {
            assertThat(m.value()).isNull();
            assertThat(m.op()).isEqualTo("DELETE");
          });
    }
    // a name deleted and re-created after the operator saw the delete: tombstone, then a value
    assertThat(byKey.values()).anySatisfy(ofKey -> assertThat(ofKey.stream()
        .map(m -> m.value() == null ? "tombstone" : "value")
        .collect(Collectors.joining(","))).contains("tombstone,value"));
    assertSequencesGrowPerKey(messages);
  }

  // ---- 2. kill -9 ----------------------------------------------------------------------------

  /**
   * The operator is killed with SIGKILL while ConfigMaps change at about 10 per second; the burst
   * goes on while it is down, then deletes and creates; a new process on the same checkpoints
   * (ConfigMaps in {@value #OPERATOR_NAMESPACE}) must make the topic exact again, re-sending at
   * most the tail the checkpoint had not caught up with. A re-sent state shows as a duplicate: an
   * UPSERT whose {@code contentHash} equals the key's previous message's. The bound: a checkpoint
   * lags the broker's acks by at most {@link #CHECKPOINT_LAG}, so only keys whose last message
   * before the kill is that recent may be duplicated, each at most once, and objects the burst
   * never touched are not sent again at all.
   */
  @Test
  @Order(2)
  void afterAKill9MidBurstTheRestartedOperatorMakesTheTopicExactResendingOnlyTheUncheckpointedTail()
      throws Exception {
    String ns = "crash";
    int burst = 60;
    int still = 20;
    scenario(ns, burst + still);
    awaitExact(ns);
    Set<String> before = positions(TopicLog.read(broker.bootstrapServers(), topic(ns)));

    // kill -9 once the operator has delivered most of the burst so far, mid-stream
    long killedAt = fleet.killMidBurst(solo, ns, burst, () ->
        TopicLog.read(broker.bootstrapServers(), topic(ns)).stream()
            .filter(m -> m.value() != null && m.value().contains("\"burst-")).count() >= 40);
    // while it is down: deletes (of objects whose state the topic has), an update, new objects
    for (int i = 0; i < 4; i++) {
      delete(ns, "cm-" + i);
    }
    delete(ns, "cm-" + (burst - 1));
    put(ns, "cm-10", "while-down");
    put(ns, "new-0", "while-down");
    put(ns, "new-1", "while-down");
    assertThat(TopicLog.read(broker.bootstrapServers(), topic(ns)).stream()
        .filter(m -> m.value() != null && m.value().contains("\"burst-")).count())
        .as("burst messages when killed: the kill came mid-burst").isLessThan(burst);

    solo = startSolo("solo-2");
    awaitExact(ns);

    List<TopicContent.Message> messages = TopicLog.read(broker.bootstrapServers(), topic(ns));
    Map<String, List<TopicContent.Message>> byKey = TopicLog.byKey(messages);
    for (int i = burst; i < burst + still; i++) {
      assertThat(byKey.get(key(ns, "cm-" + i)))
          .as("messages of cm-%s, never changed: only the first run's", i)
          .hasSize(1)
          .allSatisfy(m -> assertThat(positions(List.of(m))).isSubsetOf(before));
    }
    List<TopicContent.Message> duplicates = new ArrayList<>();
    Map<String, Long> ageAtKill = new TreeMap<>();
    byKey.forEach((key, ofKey) -> {
      for (int i = 1; i < ofKey.size(); i++) {
        TopicContent.Message previous = ofKey.get(i - 1);
        TopicContent.Message m = ofKey.get(i);
        if ("UPSERT".equals(m.op()) && "UPSERT".equals(previous.op())
            && m.contentHash().equals(previous.contentHash())) {
          duplicates.add(m);
          ageAtKill.put(key.substring(key.lastIndexOf('/') + 1), killedAt - previous.timestamp());
        }
      }
    });
    System.out.printf("KafkaFleetIT kill -9: %d duplicate UPSERTs after the restart, age of the "
        + "duplicated state at the kill (ms): %s%n", duplicates.size(), ageAtKill);
    assertThat(duplicates).extracting(TopicContent.Message::key)
        .as("keys re-sent: each at most once").doesNotHaveDuplicates();
    assertThat(duplicates).allSatisfy(m ->
        assertThat(m.timestamp()).as("re-sent after the kill").isGreaterThan(killedAt));
    assertThat(ageAtKill.values())
        .as("age at the kill of each re-sent state (ms): only the tail the checkpoint had not "
            + "caught up with")
        .allSatisfy(age -> assertThat(age).isLessThanOrEqualTo(CHECKPOINT_LAG.toMillis()));
    for (int i = 0; i < 4; i++) {
      List<TopicContent.Message> ofKey = byKey.get(key(ns, "cm-" + i));
      assertThat(ofKey.get(ofKey.size() - 1).value())
          .as("cm-%s deleted while the operator was down: tombstone", i).isNull();
    }
    assertSequencesGrowPerKey(messages);
  }

  // ---- 3. broker outage ----------------------------------------------------------------------

  /**
   * The broker is stopped mid-burst and stays down while ConfigMaps change, are deleted and
   * created; the KollectSink says the deliveries fail ({@code Degraded=True}, {@code
   * DeliveryFailing}) and the target's {@code status.sinks[]} counts failures; with the broker
   * back on the same port and log, the topic is exact and both statuses recover.
   */
  @Test
  @Order(3)
  void aBrokerStoppedMidBurstShowsOnTheSinkStatusAndTheTopicIsExactOnceItIsBack()
      throws Exception {
    String ns = "outage";
    int burst = 40;
    scenario(ns, burst);
    awaitExact(ns);

    CompletableFuture<Void> changes = fleet.burst(ns, burst);
    await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200)).until(() ->
        TopicLog.read(broker.bootstrapServers(), topic(ns)).stream()
            .filter(m -> m.value() != null && m.value().contains("\"burst-")).count() >= 10);
    broker.stop();
    try {
      changes.get();
      for (int i = 0; i < 3; i++) {
        delete(ns, "cm-" + i);
      }
      put(ns, "cm-20", "while-broker-down");
      put(ns, "new-0", "while-broker-down");
      await().atMost(CONVERGE).untilAsserted(() -> {
        Condition degraded = sinkCondition(ns, "Degraded");
        assertThat(degraded).isNotNull();
        assertThat(degraded.getStatus()).isEqualTo("True");
        assertThat(degraded.getReason()).isEqualTo("DeliveryFailing");
        KollectTargetStatus.SinkStatus delivery = targetSinkStatus(ns);
        assertThat(delivery).isNotNull();
        assertThat(delivery.consecutiveFailures()).isPositive();
        assertThat(delivery.lastError()).contains(broker.bootstrapServers(), topic(ns));
      });
    } finally {
      broker.start();
    }
    awaitExact(ns);
    await().atMost(CONVERGE).untilAsserted(() -> {
      Condition degraded = sinkCondition(ns, "Degraded");
      assertThat(degraded.getStatus()).isEqualTo("False");
      assertThat(degraded.getReason()).isEqualTo("Delivering");
      KollectTargetStatus.SinkStatus delivery = targetSinkStatus(ns);
      assertThat(delivery.consecutiveFailures()).isIn(null, 0);
    });
    // status.sinks[].pending is a figure, written at most every few minutes once the conditions
    // settled; the metrics carry it live
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(metricsText(solo).lines()
        .filter(l -> l.startsWith("kollect_target_sink_pending_records{")
            && l.contains("sink=\"" + ns + "/fleet\""))
        .toList()).isNotEmpty().allSatisfy(l -> assertThat(l).endsWith(" 0.0")));
    assertSequencesGrowPerKey(TopicLog.read(broker.bootstrapServers(), topic(ns)));
  }

  // ---- a deleted kafka sink's gauges ---------------------------------------------------------

  /**
   * The operator's sink-health loop (every 5 s) drops the kafka meters of a deleted kafka sink
   * (the exporter's {@code kollect_export_*} counters of every sink type stay, as before).
   */
  @Test
  @Order(4)
  void aDeletedKafkaSinkLosesItsLagAndProducerGaugesWhileTheOthersKeepTheirs() throws Exception {
    // the sink of the kill scenario: the restarted operator's producer wrote to it, so it has
    // producer gauges besides the lag
    String gone = "crash/fleet";
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(metricsText(solo))
        .contains("kollect_export_kafka_lag{sink=\"" + gone + "\"}")
        .contains("kollect_kafka_producer_record_send_rate{sink=\"" + gone + "\"}"));
    admin.resources(KollectSink.class).inNamespace("crash").withName("fleet").delete();
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(metricsText(solo))
        .doesNotContain("kollect_export_kafka_lag{sink=\"" + gone + "\"}")
        .doesNotContain("kollect_kafka_producer_record_send_rate{sink=\"" + gone + "\"}")
        .doesNotContain("kollect_kafka_producer_request_latency_avg_ms{sink=\"" + gone + "\"}")
        .doesNotContain("kollect_kafka_producer_record_errors{sink=\"" + gone + "\"}")
        .contains("kollect_export_kafka_lag{sink=\"churn/fleet\"}")
        .contains("kollect_export_kafka_lag{sink=\"outage/fleet\"}")
        .contains("kollect_kafka_producer_record_send_rate{sink=\"outage/fleet\"}"));
    solo.close();
    solo = null;
  }

  private static String metricsText(OperatorProcess p) {
    return p.getMetricsListener("/metrics", null).body();
  }

  // ---- 4. two shards -------------------------------------------------------------------------

  /**
   * Two processes, {@code --total-shards 2 --shard 0|1}, write one topic. Which process sent
   * which record is observable twice: each also prints its records ({@code --stdout}), and each
   * counts what its kafka sink delivered ({@code kollect_export_records_sent}); the counts add up
   * to the topic's messages, so no message was written by both.
   */
  @Test
  @Order(5)
  void twoShardsWriteOneTopicEachKeyFromItsOwnerOnlyAndTheFoldIsExact() throws Exception {
    String ns = SHARDED;
    // compressed batches: producerProperties reach the producer of the packaged operator, whose
    // jar must carry zstd's native library
    scenario(ns, 40, "{compression.type: zstd}");
    startShards(2);
    awaitExact(ns);
    put(ns, "cm-3", "changed");
    put(ns, "cm-4", "changed");
    delete(ns, "cm-5");
    delete(ns, "cm-6");
    put(ns, "new-0", "fresh");
    put(ns, "new-1", "fresh");
    awaitExact(ns);

    List<TopicContent.Message> messages = TopicLog.read(broker.bootstrapServers(), topic(ns));
    Map<String, Set<Integer>> senders = senders();
    Set<String> names = messages.stream().map(m -> nameOf(m.key())).collect(Collectors.toSet());
    assertThat(senders.keySet()).as("names printed by the shards").isEqualTo(names);
    names.forEach(name -> assertThat(senders.get(name))
        .as("shards that sent %s", name).containsExactly(owner(2, ns, name)));
    assertThat(IntStream.range(0, 2).mapToObj(i -> senders.values().stream()
        .filter(s -> s.contains(i)).count()))
        .as("names per shard").allSatisfy(n -> assertThat(n).isGreaterThan(5L));
    assertThat(TopicLog.storedCompression(broker.logDir(), topic(ns)))
        .as("compression of the stored batches (spec.kafka.producerProperties)")
        .containsExactly("zstd");
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(
        shards.stream().mapToDouble(p -> recordsSent(p, ns)).sum())
        .as("messages the shards' kafka sinks delivered, summed")
        .isEqualTo((double) messages.size()));
    assertSequencesGrowPerKey(messages);
  }

  // ---- 5. 2 -> 3 shards ----------------------------------------------------------------------

  /**
   * Both shards stop; while no shard runs, ConfigMaps change, new ones appear and some are
   * deleted, among them objects whose owner changes with the new count; three shards start with
   * {@code --total-shards 3}. The new owners take the moved objects' checkpoint entries over from
   * the old shards' checkpoints, so: a moved object that did not change is not sent again, one
   * deleted while no shard ran gets its tombstone from its new owner (no ghost in the topic), a
   * changed one gets exactly one UPSERT from its new owner, and no object that still exists gets a
   * tombstone.
   */
  @Test
  @Order(6)
  void aShardCountChangeFromTwoToThreeHandsObjectsOverSoEvenDeletesWhileNoShardRanReachTheTopic()
      throws Exception {
    String ns = SHARDED;
    assertThat(shards).as("the two shards of the previous test run").hasSize(2);
    stopShards();
    Set<String> before = positions(TopicLog.read(broker.bootstrapServers(), topic(ns)));
    List<String> beforeNames = clusterState(ns).keySet().stream().map(KafkaFleetIT::nameOf)
        .sorted().toList();
    List<String> moving = beforeNames.stream()
        .filter(n -> owner(2, ns, n) != owner(3, ns, n)).toList();
    List<String> staying = beforeNames.stream()
        .filter(n -> owner(2, ns, n) == owner(3, ns, n)).toList();
    assertThat(moving).as("objects that move to another shard").hasSizeGreaterThanOrEqualTo(4);
    assertThat(staying).as("objects that stay with their shard").hasSizeGreaterThanOrEqualTo(3);
    Set<String> deleted = Set.of(moving.get(0), moving.get(1), staying.get(0));
    Set<String> changed = Set.of(moving.get(2), staying.get(1), "added-0", "added-1");
    deleted.forEach(name -> delete(ns, name));
    changed.forEach(name -> put(ns, name, "while-stopped"));

    startShards(3);
    awaitExact(ns);

    List<TopicContent.Message> after = TopicLog.read(broker.bootstrapServers(), topic(ns)).stream()
        .filter(m -> !before.contains(position(m))).toList();
    Map<String, List<TopicContent.Message>> byName = after.stream()
        .collect(Collectors.groupingBy(m -> nameOf(m.key())));
    for (String name : deleted) {
      assertThat(byName.get(name)).as("messages of %s, deleted while no shard ran (%s)", name,
              moving.contains(name) ? "moved" : "kept its shard")
          .singleElement().satisfies(m -> assertThat(m.value()).as("a tombstone").isNull());
    }
    for (String name : changed) {
      assertThat(byName.get(name)).as("messages of %s, changed or created while no shard ran",
          name).singleElement().satisfies(m -> {
            assertThat(m.value()).isNotNull();
            assertThat(m.op()).isEqualTo("UPSERT");
          });
    }
    for (String name : beforeNames) {
      if (!deleted.contains(name) && !changed.contains(name)) {
        assertThat(byName.get(name)).as("messages of %s: unchanged, %s", name,
            moving.contains(name) ? "moved to shard " + owner(3, ns, name) + " with its entry"
                : "kept by shard " + owner(3, ns, name)).isNull();
      }
    }
    // Who sent the upserts: each process prints what it sends on --stdout too (a sink of its
    // own, which takes nothing over, so it also prints the unchanged objects it gained).
    Map<String, Set<Integer>> senders = senders();
    after.stream().filter(m -> m.value() != null).forEach(m ->
        assertThat(senders.get(nameOf(m.key()))).as("new shards that sent %s", nameOf(m.key()))
            .containsExactly(owner(3, ns, nameOf(m.key()))));
    assertSequencesGrowPerKey(TopicLog.read(broker.bootstrapServers(), topic(ns)));
  }

  // ---- scenario set-up -----------------------------------------------------------------------

  private static String topic(String ns) {
    return "inventory-" + ns;
  }

  private static String key(String ns, String name) {
    return CLUSTER + "/" + ns + "/cms//ConfigMap/" + ns + "/" + name;
  }

  private static String nameOf(String key) {
    return key.substring(key.lastIndexOf('/') + 1);
  }

  /** Namespace {@code ns} with ConfigMaps cm-0..cm-(objects-1), its kafka sink and target. */
  private static void scenario(String ns, int objects) {
    scenario(ns, objects, "{}");
  }

  /** As {@link #scenario(String, int)}, the sink with {@code spec.kafka.producerProperties}. */
  private static void scenario(String ns, int objects, String producerProperties) {
    Fixtures.ensureNamespace(admin, ns);
    for (int i = 0; i < objects; i++) {
      put(ns, "cm-" + i, "0");
    }
    // deliveryTimeout 5s: a write to a stopped broker fails after 5 s, not the default 30 s
    fleet.sinkAndTarget(ns, """
        type: kafka
        kafka:
          bootstrapServers: ["%s"]
          topic: %s
          createTopic: {partitions: 3, replicationFactor: 1}
          deliveryTimeout: 5s
          producerProperties: %s
        """.formatted(broker.bootstrapServers(), topic(ns), producerProperties));
  }

  private static void put(String ns, String name, String v) {
    fleet.put(ns, name, v);
  }

  private static void delete(String ns, String name) {
    admin.configMaps().inNamespace(ns).withName(name).delete();
  }

  // ---- operators -----------------------------------------------------------------------------

  private static List<String> runArgs(String namespaces) {
    return fleet.runArgs(CLUSTER, namespaces);
  }

  private static OperatorProcess startSolo(String name) {
    OperatorProcess p = fleet.startOperator(name, runArgs(String.join(",", SOLO_NAMESPACES)));
    awaitReady(p);
    return p;
  }

  private static void startShards(int total) {
    for (int i = 0; i < total; i++) {
      List<String> args = new ArrayList<>(runArgs(SHARDED));
      args.addAll(List.of("--total-shards", Integer.toString(total), "--shard",
          Integer.toString(i), "--stdout"));
      shards.add(fleet.startOperator("shard-" + i + "-of-" + total, args));
    }
    shards.forEach(KafkaFleetIT::awaitReady);
  }

  private static void stopShards() throws InterruptedException {
    for (OperatorProcess p : shards) {
      p.close();
    }
    shards.clear();
  }

  private static void awaitReady(OperatorProcess p) {
    FleetCluster.awaitReady(p);
  }

  private static List<OperatorProcess> running() {
    List<OperatorProcess> out = new ArrayList<>(shards);
    if (solo != null) {
      out.add(solo);
    }
    return out;
  }

  /** Names to the indexes of the running shards that printed a record of them. */
  private static Map<String, Set<Integer>> senders() {
    Map<String, Set<Integer>> out = new HashMap<>();
    for (int i = 0; i < shards.size(); i++) {
      for (String line : shards.get(i).stdoutText().split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode record;
        try {
          record = Sample.JSON.readTree(line);
        } catch (IOException e) {
          continue; // a line being written right now
        }
        out.computeIfAbsent(record.path("name").asText(), n -> new HashSet<>()).add(i);
      }
    }
    return out;
  }

  private static int owner(int total, String ns, String name) {
    for (int i = 0; i < total; i++) {
      if (new Shard(total, i).owns(CLUSTER, "", "ConfigMap", ns, name)) {
        return i;
      }
    }
    throw new AssertionError("no shard of " + total + " owns " + name);
  }

  /** {@code kollect_export_records_sent} of the kafka sink of {@code ns} in one process. */
  private static double recordsSent(OperatorProcess p, String ns) {
    return metric(p, "kollect_export_records_sent(?:_total)?", ns + "/fleet");
  }

  private static double metric(OperatorProcess p, String name, String sink) {
    Matcher m = Pattern.compile("^" + name + "\\{([^}]*)\\}\\s+(\\S+)", Pattern.MULTILINE)
        .matcher(p.getMetricsListener("/metrics", null).body());
    double sum = 0;
    while (m.find()) {
      if (m.group(1).contains("sink=\"" + sink + "\"")) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }

  // ---- what the cluster holds, what the topic holds -------------------------------------------

  /** The ConfigMaps of {@code ns} as the API server has them: message key to {@code data.v}. */
  private static Map<String, String> clusterState(String ns) {
    Map<String, String> out = new TreeMap<>();
    for (ConfigMap cm : admin.configMaps().inNamespace(ns).list().getItems()) {
      out.put(key(ns, cm.getMetadata().getName()), cm.getData().get("v"));
    }
    return out;
  }

  /** What a consumer folds from the topic from the beginning: message key to field {@code v}. */
  private static Map<String, String> folded(String ns) throws Exception {
    assertThat(TopicLog.exists(broker.bootstrapServers(), topic(ns))).as("topic exists").isTrue();
    Map<String, String> out = new TreeMap<>();
    for (var e : TopicLog.fold(TopicLog.read(broker.bootstrapServers(), topic(ns))).entrySet()) {
      out.put(e.getKey(), Sample.JSON.readTree(e.getValue().value())
          .path("fields").path("v").asText(null));
    }
    return out;
  }

  /**
   * Waits until the fold equals the cluster and no running operator holds records of the
   * scenario's sink in its queue (so no late message is on its way).
   */
  private static void awaitExact(String ns) {
    await().atMost(CONVERGE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
        .untilAsserted(() -> {
          assertThat(folded(ns)).as("topic %s folded by key", topic(ns))
              .isEqualTo(clusterState(ns));
          for (OperatorProcess p : running()) {
            assertThat(metric(p, "kollect_export_queue_depth", ns + "/fleet"))
                .as("records queued for the sink").isZero();
          }
        });
  }

  /** Per key, in offset order, each message's {@code sequence} is larger than the one before. */
  private static void assertSequencesGrowPerKey(List<TopicContent.Message> messages) {
    TopicLog.byKey(messages).forEach((key, ofKey) -> {
      for (int i = 1; i < ofKey.size(); i++) {
        assertThat(Long.parseLong(ofKey.get(i).headers().get("sequence")))
            .as("sequence of message %s of %s", i, key)
            .isGreaterThan(Long.parseLong(ofKey.get(i - 1).headers().get("sequence")));
      }
    });
  }

  private static Set<String> positions(List<TopicContent.Message> messages) {
    return messages.stream().map(KafkaFleetIT::position).collect(Collectors.toSet());
  }

  private static String position(TopicContent.Message m) {
    return m.partition() + "@" + m.offset();
  }

  private static Condition sinkCondition(String ns, String type) {
    KollectSink s = admin.resources(KollectSink.class).inNamespace(ns).withName("fleet").get();
    if (s == null || s.getStatus() == null || s.getStatus().conditions() == null) {
      return null;
    }
    return s.getStatus().conditions().stream().filter(c -> c.getType().equals(type))
        .findFirst().orElse(null);
  }

  private static KollectTargetStatus.SinkStatus targetSinkStatus(String ns) {
    KollectTarget t = admin.resources(KollectTarget.class).inNamespace(ns).withName("cms").get();
    if (t == null || t.getStatus() == null || t.getStatus().sinks() == null) {
      return null;
    }
    return t.getStatus().sinks().stream().filter(s -> s.name().equals("fleet")).findFirst()
        .orElse(null);
  }
}

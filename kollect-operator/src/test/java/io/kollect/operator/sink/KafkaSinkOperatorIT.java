package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.kafka.KafkaBroker;
import io.kollect.export.kafka.TopicContent;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectSink;
import io.kollect.testing.SequencedRecordReceiver;
import io.kollect.testing.TestCertificateAuthority;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KollectSink {@code type: kafka} on a real API server and a real in-process KRaft
 * broker ({@link KafkaBroker} from kollect-export-kafka's test-jar). One target sends the
 * ConfigMaps of {@value #NS} to four sinks: {@code fleet} (kafka, topic created compacted by the
 * sink), {@code plain} (kafka, an existing topic with {@code cleanup.policy=delete}), {@code
 * broken} (kafka, nothing listens on its address) and {@code receiver} (http). The tests run in
 * order; the one of Order(4) restarts the operator.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaSinkOperatorIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "shop";
  private static final String TOPIC = "kollect-inventory";
  private static final String PLAIN_TOPIC = "not-compacted";
  /** The record identity a consumer keys by: cluster/target ns/target name/group/kind/ns/name. */
  private static final String KEY_PREFIX = "it/" + NS + "/shop-configmaps//ConfigMap/" + NS + "/";

  @RegisterExtension static final SinkScenario scenario = SinkScenario.in(NS);

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static KafkaBroker broker;
  private static SequencedRecordReceiver receiver;
  private static TestOperator operator;

  @BeforeAll
  static void start() throws Exception {
    cluster = scenario.cluster();
    client = scenario.client();
    broker = scenario.closeAfter(KafkaBroker.launch());
    broker.createTopic(PLAIN_TOPIC, 1, Map.of("cleanup.policy", "delete"));
    receiver = scenario.closeAfter(new SequencedRecordReceiver());
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: fleet, namespace: %1$s}
        spec:
          type: kafka
          kafka:
            bootstrapServers: ["%2$s"]
            topic: %3$s
            createTopic: {partitions: 1, replicationFactor: 1}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: plain, namespace: %1$s}
        spec:
          type: kafka
          kafka: {bootstrapServers: ["%2$s"], topic: %4$s}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: broken, namespace: %1$s}
        spec:
          type: kafka
          kafka: {bootstrapServers: ["127.0.0.1:1"], topic: %3$s, deliveryTimeout: 2s}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: receiver, namespace: %1$s}
        spec:
          type: http
          http: {url: "%5$s"}
          batch: {linger: 50ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: shop-configmaps, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%1$s]}
          sinkRefs: [fleet, plain, broken, receiver]
        """.formatted(NS, broker.bootstrapServers(), TOPIC, PLAIN_TOPIC, receiver.uri()));
    for (int i = 1; i <= 5; i++) {
      configMap("cm-" + i, "1");
    }
    operator = startOperator();
  }

  private static TestOperator startOperator() {
    // the shipped example's target lives in platform
    return scenario.startOperator(o -> o.trusting(NS, "platform"));
  }

  private static void configMap(String name, String v) {
    scenario.configMap(name, v);
  }

  /** The ConfigMaps of {@value #NS} as the API server has them: message key to {@code data.v}. */
  private static Map<String, String> cluster() {
    Map<String, String> out = new TreeMap<>();
    for (ConfigMap cm : client.configMaps().inNamespace(NS).list().getItems()) {
      out.put(KEY_PREFIX + cm.getMetadata().getName(),
          cm.getData() == null ? null : cm.getData().get("v"));
    }
    return out;
  }

  /**
   * What a consumer folds from {@code topic} from the beginning: key to the record's field v. Asks
   * for the topic only once it exists: a consumer's metadata request could otherwise have the
   * broker auto-create it, not compacted, before the sink creates it compacted.
   */
  private static Map<String, String> folded(String topic) throws Exception {
    try (var admin = broker.admin()) {
      assertThat(admin.listTopics().names().get()).as("topics").contains(topic);
    }
    Map<String, String> out = new TreeMap<>();
    for (var e : TopicContent.fold(broker.bootstrapServers(), topic).entrySet()) {
      JsonNode record = JSON.readTree(e.getValue().value());
      out.put(e.getKey(), record.path("fields").path("v").asText(null));
    }
    return out;
  }

  private static Condition condition(String sink, String type) {
    return scenario.condition(sink, type);
  }

  /**
   * The shipped sample, as it is, is accepted by the CRD and configured by the operator (its
   * Secrets resolve); its brokers do not exist here, which the sink's Ready condition says.
   */
  @Test
  @Order(0)
  void theShippedExampleIsAcceptedAndItsUnreachableBrokersAreANotReadyCondition() throws Exception {
    Path examples = Path.of(System.getProperty("user.dir")).getParent()
        .resolve("docs/examples/kafka");
    cluster.namespace("platform");
    client.secrets().inNamespace("platform").resource(new SecretBuilder()
        .withNewMetadata().withName("kafka-ca").withNamespace("platform").endMetadata()
        .withStringData(Map.of("ca.crt",
            TestCertificateAuthority.create("kafka-example-ca").certificatePem()))
        .build()).create();
    cluster.apply(Files.readString(examples.resolve("sink.yaml")));
    cluster.apply(Files.readString(examples.resolve("target.yaml")));
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      KollectSink s = client.resources(KollectSink.class).inNamespace("platform")
          .withName("fleet").get();
      Condition ready = s.getStatus().conditions().stream()
          .filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("TopicCheckFailed");
      assertThat(ready.getMessage()).contains("kafka-0.kafka.kafka.svc:9093");
    });
  }

  @Test
  @Order(1)
  void theTopicFoldedByKeyEqualsTheClusterAfterCreatesUpdatesAndDeletes() {
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(folded(TOPIC)).hasSize(5).isEqualTo(cluster());
    });

    configMap("cm-2", "2");
    configMap("cm-3", "3");
    configMap("cm-6", "1");
    client.configMaps().inNamespace(NS).withName("cm-1").delete();
    client.configMaps().inNamespace(NS).withName("cm-4").delete();
    // a re-created object: deleted (tombstone), then a new state under the same key
    client.configMaps().inNamespace(NS).withName("cm-5").delete();
    await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(folded(TOPIC)).doesNotContainKey(KEY_PREFIX + "cm-5"));
    configMap("cm-5", "5");

    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Map<String, String> expected = cluster();
      assertThat(expected).containsOnlyKeys(KEY_PREFIX + "cm-2", KEY_PREFIX + "cm-3",
          KEY_PREFIX + "cm-5", KEY_PREFIX + "cm-6");
      assertThat(folded(TOPIC)).isEqualTo(expected);
    });
    // every message carries the op and sequence headers, deletes as tombstones (the default)
    List<TopicContent.Message> messages = TopicContent.read(broker.bootstrapServers(), TOPIC);
    assertThat(messages).allSatisfy(m -> assertThat(m.headers()).containsKeys("op", "sequence"));
    assertThat(messages).filteredOn(m -> "DELETE".equals(m.headers().get("op")))
        .isNotEmpty().allSatisfy(m -> assertThat(m.value()).isNull());

    // a first write may race the sink's first topic check (both create the topic; the loser
    // cannot describe it yet): the status follows the write's own check within a recheck
    await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(condition("fleet", "Ready").getStatus()).isEqualTo("True"));
    assertThat(condition("fleet", "Warning")).isNull();
  }

  @Test
  @Order(2)
  void aTopicWithoutCompactionIsAWarningConditionWhileTheSinkStaysReadyAndWrites() {
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Condition warning = condition("plain", "Warning");
      assertThat(warning).isNotNull();
      assertThat(warning.getStatus()).isEqualTo("True");
      assertThat(warning.getReason()).isEqualTo("TopicNotCompacted");
      assertThat(warning.getMessage()).contains(PLAIN_TOPIC, "cleanup.policy=delete");
      assertThat(condition("plain", "Ready").getStatus()).isEqualTo("True");
      assertThat(folded(PLAIN_TOPIC)).isEqualTo(cluster());
    });
  }

  @Test
  @Order(3)
  void aBadBootstrapAddressIsANotReadyConditionOnThatSinkWhileTheHttpSinkOfTheTargetDelivers() {
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Condition ready = condition("broken", "Ready");
      assertThat(ready).isNotNull();
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("TopicCheckFailed");
      assertThat(ready.getMessage()).contains("127.0.0.1:1");
    });
    configMap("cm-7", "7");
    await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(receiver.byName()).containsOnlyKeys("cm-2", "cm-3", "cm-5", "cm-6", "cm-7");
      assertThat(receiver.byName().get("cm-7").path("fields").path("v").asText()).isEqualTo("7");
      assertThat(folded(TOPIC)).isEqualTo(cluster());
    });
    assertThat(condition("fleet", "Ready").getStatus()).isEqualTo("True");
    assertThat(condition("receiver", "Ready").getStatus()).isEqualTo("True");
  }

  /**
   * A clean restart on the same checkpoints (ConfigMaps in kollect-system). The stand-in for kill
   * -9: what a killed operator had not checkpointed is re-sent, which this cannot show; that the
   * checkpoint is written only after the broker's ack is KafkaSink's own test (ExporterRestartIT).
   * Nothing unchanged is sent again: the marker is created only once the restarted operator is
   * ready (every target reconciled once, its records handed to the exporter), and the exporter
   * writes a target's records to a sink in the order handed over, so a re-sent unchanged object
   * would be in the topic before the marker. Without the checkpoint (a fresh checkpoint
   * directory) this test fails listing every object.
   */
  @Test
  @Order(4)
  void anOperatorRestartOnTheSameCheckpointSendsNothingUnchangedToTheTopic() throws Exception {
    await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(folded(TOPIC)).isEqualTo(cluster()));
    operator.close();
    int before = TopicContent.read(broker.bootstrapServers(), TOPIC).size();

    operator = startOperator();
    // Ready: every target reconciled once, so whatever the restarted operator would re-send is
    // handed to the sink's lane of the target before the marker's record, which goes in after it
    await().atMost(Duration.ofSeconds(60)).until(() -> operator.operator().isReady());
    configMap("after-restart", "1");
    await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(folded(TOPIC)).isEqualTo(cluster()).containsKey(KEY_PREFIX + "after-restart"));

    List<TopicContent.Message> messages = TopicContent.read(broker.bootstrapServers(), TOPIC);
    assertThat(messages.subList(before, messages.size()))
        .extracting(TopicContent.Message::key)
        .containsOnly(KEY_PREFIX + "after-restart");
  }

  @Test
  @Order(5)
  void aBootstrapAddressWithoutPortIsAnInvalidSinkConditionNamingTheFieldAndOthersDeliver()
      throws Exception {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: noport, namespace: %s}
        spec:
          type: kafka
          kafka: {bootstrapServers: [kafka-0], topic: %s}
        """.formatted(NS, TOPIC));
    await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Condition ready = condition("noport", "Ready");
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("InvalidSink");
      assertThat(ready.getMessage())
          .contains("spec.kafka.bootstrapServers: 'kafka-0' is not host:port");
    });
    configMap("cm-8", "8");
    await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(folded(TOPIC)).isEqualTo(cluster()).containsKey(KEY_PREFIX + "cm-8"));
    assertThat(condition("fleet", "Ready").getStatus()).isEqualTo("True");
  }
}

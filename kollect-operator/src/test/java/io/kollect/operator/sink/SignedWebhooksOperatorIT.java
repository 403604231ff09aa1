package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.StandardWebhooksReceiver;
import io.kollect.operator.cluster.TestCluster;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KollectSink {@code type: http} with {@code format: cloudevents} and {@code cloudevents-binary},
 * signed with {@code whsec_} keys from a Secret, through the operator on a real API server. Each
 * sink posts to its own loopback receiver that verifies every request with the Standard Webhooks
 * reference library (npm {@code standardwebhooks}, kollect-export's {@link
 * StandardWebhooksReceiver}): a request it could not verify is logged with status 401. The tests
 * run in order, each on the objects it creates.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SignedWebhooksOperatorIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "hooks";
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String KEY_1 = key();
  private static final String KEY_2 = key();

  // the operator reads a Secret at most every 30 s; the rotation should not wait for that
  @RegisterExtension
  static final SinkScenario scenario = SinkScenario.in(NS).secretsReadEverySecond();

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static StandardWebhooksReceiver batch;
  private static StandardWebhooksReceiver binary;

  private static String key() {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    return "whsec_" + Base64.getEncoder().encodeToString(bytes);
  }

  @BeforeAll
  static void start() throws Exception {
    cluster = scenario.cluster();
    client = scenario.client();
    batch = scenario.closeAfter(StandardWebhooksReceiver.start(KEY_1));
    binary = scenario.closeAfter(StandardWebhooksReceiver.start(KEY_1));
    signingKeys("hook-keys", KEY_1);
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: ce-batch, namespace: %1$s}
        spec:
          type: http
          http:
            url: "%2$s"
            timeout: 1s
            format: cloudevents
            signing: {secretRef: {name: hook-keys}}
          batch: {linger: 50ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: ce-binary, namespace: %1$s}
        spec:
          type: http
          http:
            url: "%3$s"
            format: cloudevents-binary
            signing: {secretRef: {name: hook-keys}}
          batch: {linger: 50ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: hooks-configmaps, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%1$s]}
          sinkRefs: [ce-batch, ce-binary]
        """.formatted(NS, batch.uri(), binary.uri()));
    scenario.startOperator();
  }

  private static void signingKeys(String secret, String keys) {
    client.secrets().inNamespace(NS).resource(new SecretBuilder()
        .withNewMetadata().withName(secret).withNamespace(NS).endMetadata()
        .withStringData(Map.of("signing-keys", keys)).build()).createOr(o -> o.update());
  }

  private static void configMap(String name, String v) {
    scenario.configMap(name, v);
  }

  /** One event as the receiver logged it, with the request's status and webhook-id. */
  private record Delivered(int status, boolean duplicate, String webhookId, JsonNode attributes,
      JsonNode data) {
    String subject() {
      return attributes.path("subject").asText();
    }
  }

  /**
   * Every event of every request the receiver got, in arrival order. A request it refused (401)
   * or answered as a duplicate of an earlier webhook-id has none.
   */
  private static List<Delivered> delivered(StandardWebhooksReceiver receiver) throws Exception {
    return delivered(receiver.log());
  }

  private static List<Delivered> delivered(List<JsonNode> log) throws Exception {
    List<Delivered> out = new ArrayList<>();
    for (JsonNode entry : log) {
      for (JsonNode event : entry.path("events")) {
        out.add(new Delivered(entry.path("status").asInt(), entry.path("duplicate").asBoolean(),
            entry.path("id").asText(), event.path("attributes"),
            JSON.readTree(event.path("data").asText())));
      }
    }
    return out;
  }

  /** The statuses of every request the receiver got, in arrival order. */
  private static List<Integer> statuses(StandardWebhooksReceiver receiver) throws Exception {
    return receiver.log().stream().map(e -> e.path("status").asInt()).toList();
  }

  private static List<Delivered> of(List<Delivered> events, String name) {
    return events.stream().filter(d -> d.subject().equals("/ConfigMap/" + NS + "/" + name))
        .toList();
  }

  private static Condition condition(String sink, String type) {
    return scenario.condition(sink, type);
  }

  @Test
  @Order(1)
  void anUpsertAndADeleteArriveAsVerifiedCloudEventsInTheBatchedAndTheBinaryMode()
      throws Exception {
    configMap("a", "1");
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(of(delivered(batch), "a")).isNotEmpty();
      assertThat(of(delivered(binary), "a")).isNotEmpty();
    });
    client.configMaps().inNamespace(NS).withName("a").delete();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(of(delivered(batch), "a")).hasSize(2);
      assertThat(of(delivered(binary), "a")).hasSize(2);
    });
    for (StandardWebhooksReceiver receiver : List.of(batch, binary)) {
      List<Delivered> a = of(delivered(receiver), "a");
      assertThat(a).allSatisfy(d -> {
        // 200: the reference library verified the signature and the timestamp
        assertThat(d.status()).isEqualTo(200);
        assertThat(d.attributes().path("specversion").asText()).isEqualTo("1.0");
        assertThat(d.attributes().path("source").asText())
            .isEqualTo("kollect://it/" + NS + "/hooks-configmaps");
        assertThat(d.attributes().path("id").asText()).matches("[0-9a-f]{32}");
        assertThat(d.data().path("name").asText()).isEqualTo("a");
        assertThat(d.data().path("sequence").isIntegralNumber()).isTrue();
      });
      assertThat(a.get(0).attributes().path("type").asText())
          .isEqualTo("io.kollect.record.upsert");
      assertThat(a.get(0).data().path("op").asText()).isEqualTo("UPSERT");
      assertThat(a.get(0).data().path("fields").path("v").asText()).isEqualTo("1");
      assertThat(a.get(1).attributes().path("type").asText())
          .isEqualTo("io.kollect.record.delete");
      assertThat(a.get(1).data().path("op").asText()).isEqualTo("DELETE");
      assertThat(statuses(receiver)).doesNotContain(401);
    }
    // binary mode: one request per record, its webhook-id the event id
    assertThat(of(delivered(binary), "a")).allSatisfy(d ->
        assertThat(d.webhookId()).isEqualTo(d.attributes().path("id").asText()));
  }

  /**
   * The receiver holds the first delivery of {@code slow} past the sink's 1 s timeout; the sink
   * retries with the same webhook-id and a fresh timestamp, which the receiver verifies and
   * answers 200 as a duplicate: never refused as a replay.
   */
  @Test
  @Order(2)
  void aRetryAfterATimeoutIsVerifiedAndAnsweredAsADuplicateNotRefused() throws Exception {
    batch.stall(1, Duration.ofSeconds(4));
    configMap("slow", "1");
    await().atMost(WAIT).untilAsserted(() -> {
      List<Delivered> slow = of(delivered(batch), "slow");
      assertThat(slow).hasSize(1);
      assertThat(slow.get(0).status()).as("the stalled first attempt").isEqualTo(0);
      String id = slow.get(0).webhookId();
      // the retry: same webhook-id, verified (fresh timestamp), answered 200 as a duplicate
      assertThat(batch.log()).anySatisfy(entry -> {
        assertThat(entry.path("id").asText()).isEqualTo(id);
        assertThat(entry.path("status").asInt()).isEqualTo(200);
        assertThat(entry.path("duplicate").asBoolean()).isTrue();
      });
    });
    assertThat(statuses(batch)).doesNotContain(401);
  }

  /**
   * The receiver switches to a new key: the sink's requests, signed with the old key alone, are
   * refused (401, retried by the sink). The Secret then holds old and new key: the next attempt
   * carries both signatures and is accepted, on the same sink (no change of the KollectSink, no
   * restart); then the new key alone. Nothing delivered before the rotation is sent again.
   */
  @Test
  @Order(3)
  void aKeyRotatedInTheSecretIsUsedWithoutARestartAndOldAndNewKeySignSideBySide()
      throws Exception {
    batch.verifyWith(KEY_2);
    int before = batch.log().size();
    configMap("rotated", "1");
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(statuses(batch).subList(before, statuses(batch).size())).contains(401));
    signingKeys("hook-keys", KEY_1 + "\n" + KEY_2);
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(of(delivered(batch), "rotated")).extracting(Delivered::status).contains(200));
    signingKeys("hook-keys", KEY_2);
    configMap("after-rotation", "1");
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(of(delivered(batch), "after-rotation")).extracting(Delivered::status)
            .contains(200));
    List<JsonNode> log = batch.log();
    List<Delivered> since = delivered(log.subList(before, log.size()));
    assertThat(since).extracting(Delivered::subject).containsOnly(
        "/ConfigMap/" + NS + "/rotated", "/ConfigMap/" + NS + "/after-rotation");
  }

  @Test
  @Order(4)
  void aMalformedKeyInTheSecretIsAnInvalidSinkConditionNamingTheFieldAndPositionNeverTheValue() {
    signingKeys("bad-keys", KEY_1 + " whsec_not*base64");
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: bad-key, namespace: %s}
        spec:
          type: http
          http: {url: "%s", format: cloudevents, signing: {secretRef: {name: bad-keys}}}
        """.formatted(NS, batch.uri()));
    await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
      Condition ready = condition("bad-key", "Ready");
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("InvalidSink");
      assertThat(ready.getMessage()).contains("spec.http.signing.secretRef: Secret " + NS
          + "/bad-keys key signing-keys: key 2 of 2 is not base64 after 'whsec_'")
          .doesNotContain(KEY_1.substring(6)).doesNotContain("not*base64");
    });
  }
}

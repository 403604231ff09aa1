package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.otlp.AnyValues;
import io.kollect.export.otlp.OtlpReceiver;
import io.kollect.export.otlp.OtlpSinkConfig;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.http.BindAddress;
import io.opentelemetry.proto.logs.v1.LogRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KollectSink {@code type: otlp} through the operator on a real API server, into real OTLP
 * receivers on loopback (kollect-export-otlp's {@link OtlpReceiver}: the official protobuf
 * definitions on the JDK's HTTP server and on grpc-java; no OpenTelemetry Collector binary is
 * installable on the build machines). One target sends the ConfigMaps of {@value #NS} to {@code
 * otel-http} (http/protobuf, an API key from a Secret, heartbeat 10m) and {@code otel-grpc}
 * (grpc, heartbeat off). The tests run in order, each on the objects it creates.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OtlpSinkOperatorIT {

  private static final String NS = "obs";
  private static final Duration WAIT = Duration.ofSeconds(60);

  // the operator reads a Secret at most every 30 s, an otlp sink asks for its headers at most
  // every 10 s and retries up to 2 min apart: the key rotation and the outage should not wait
  // for any of these
  @RegisterExtension
  static final SinkScenario scenario =
      SinkScenario.in(NS).secretsReadEverySecond().retriedEverySecond();

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static OtlpReceiver http;
  private static OtlpReceiver grpc;
  private static TestOperator operator;

  @BeforeAll
  static void start() throws Exception {
    cluster = scenario.cluster();
    client = scenario.client();
    http = scenario.closeAfter(OtlpReceiver.start(OtlpSinkConfig.Protocol.HTTP_PROTOBUF));
    grpc = scenario.closeAfter(OtlpReceiver.start(OtlpSinkConfig.Protocol.GRPC));
    client.secrets().inNamespace(NS).resource(new SecretBuilder()
        .withNewMetadata().withName("otel-auth").withNamespace(NS).endMetadata()
        .withStringData(Map.of("token", "Bearer k-1\n")).build()).create();
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: configmaps}
        spec:
          resources:
            - version: v1
              kind: ConfigMap
              fields: [{name: v, path: "{.data.v}"}]
              labels: [app]
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: otel-http, namespace: %1$s}
        spec:
          type: otlp
          otlp:
            endpoint: "%2$s"
            headerSecretRefs: {Authorization: {name: otel-auth, key: token}}
            resourceAttributes: {deployment.environment.name: it}
          batch: {linger: 50ms}
          heartbeatInterval: 10m
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: otel-grpc, namespace: %1$s}
        spec:
          type: otlp
          otlp: {endpoint: "%3$s", protocol: grpc, timeout: 5s}
          batch: {linger: 50ms}
          heartbeatInterval: 0s
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: obs-configmaps, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%1$s]}
          sinkRefs: [otel-http, otel-grpc]
        """.formatted(NS, http.endpoint(), grpc.endpoint()));
    operator = scenario.startOperator(o -> o.configure(c -> c.toBuilder()
        .metricsAddress(BindAddress.loopback(0)).build()));
  }

  private static void configMap(String name, String v) {
    cluster.apply("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: %s, namespace: %s, labels: {app: shop, tier: web}}
        data: {v: "%s"}
        """.formatted(name, NS, v));
  }

  /** One received log record with its resource's attributes, as plain values. */
  private record Event(Map<String, Object> resource, String name, Map<String, Object> attributes,
      Object body) {}

  /** Every log record the receiver accepted, in arrival order. */
  private static List<Event> events(OtlpReceiver receiver) {
    List<Event> out = new ArrayList<>();
    for (OtlpReceiver.Received r : receiver.received()) {
      for (var resourceLogs : r.request().getResourceLogsList()) {
        Map<String, Object> resource = AnyValues.map(
            resourceLogs.getResource().getAttributesList());
        for (var scopeLogs : resourceLogs.getScopeLogsList()) {
          for (LogRecord log : scopeLogs.getLogRecordsList()) {
            out.add(new Event(resource, log.getEventName(),
                AnyValues.map(log.getAttributesList()),
                log.hasBody() ? AnyValues.plain(log.getBody()) : null));
          }
        }
      }
    }
    return out;
  }

  /** The events of the ConfigMap {@code name}, in arrival order. */
  private static List<Event> eventsOf(OtlpReceiver receiver, String name) {
    return events(receiver).stream().filter(e -> e.attributes().get("entity.id") instanceof Map<?, ?> id
        && name.equals(id.get("k8s.configmap.name"))).toList();
  }

  private static Map<String, Object> entityId(String name) {
    Map<String, Object> id = new LinkedHashMap<>();
    id.put("k8s.cluster.name", "it");
    id.put("kollect.target", NS + "/obs-configmaps");
    id.put("kollect.resource.group", "");
    id.put("kollect.resource.kind", "ConfigMap");
    id.put("k8s.namespace.name", NS);
    id.put("k8s.configmap.name", name);
    return id;
  }

  private static Condition condition(String sink, String type) {
    return scenario.condition(sink, type);
  }

  private static String metrics() throws Exception {
    int port = operator.operator().metricsAddress().orElseThrow().getPort();
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  @Order(1)
  void createUpdateAndDeleteArriveAsTheExactEntityEventsOverHttpProtobufAndGrpc() {
    configMap("web", "1");
    String uid = client.configMaps().inNamespace(NS).withName("web").get().getMetadata().getUid();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(eventsOf(http, "web")).isNotEmpty();
      assertThat(eventsOf(grpc, "web")).isNotEmpty();
    });
    for (OtlpReceiver receiver : List.of(http, grpc)) {
      Event state = eventsOf(receiver, "web").get(0);
      assertThat(state.name()).isEqualTo("entity.state");
      assertThat(state.resource()).containsEntry("service.name", "kollect");
      assertThat(state.attributes().get("entity.type")).isEqualTo("k8s.configmap");
      assertThat(state.attributes().get("entity.id")).isEqualTo(entityId("web"));
      @SuppressWarnings("unchecked")
      Map<String, Object> description = (Map<String, Object>) state.attributes()
          .get("entity.description");
      // the profile copies the label app only; the uid is descriptive, not identifying
      assertThat(description).containsEntry("k8s.configmap.uid", uid)
          .containsEntry("k8s.configmap.label.app", "shop")
          .containsEntry("kollect.resource.api_version", "v1")
          .containsEntry("kollect.profile", "configmaps")
          .doesNotContainKey("k8s.configmap.label.tier");
      assertThat(state.attributes().get("kollect.sequence")).isInstanceOf(Long.class);
      assertThat(state.attributes().get("kollect.content_hash")).isInstanceOf(String.class);
      assertThat(state.body()).isEqualTo(Map.of("v", "1"));
    }
    // the heartbeat is the entity.report.interval (ms); off for the grpc sink, so absent there
    assertThat(eventsOf(http, "web").get(0).attributes()).containsEntry("entity.report.interval",
        600_000L);
    assertThat(eventsOf(http, "web").get(0).resource())
        .containsEntry("deployment.environment.name", "it");
    assertThat(eventsOf(grpc, "web").get(0).attributes())
        .doesNotContainKey("entity.report.interval");
    // the API key comes from the Secret, stripped of its trailing newline
    assertThat(http.received().get(0).headers()).containsEntry("authorization", "Bearer k-1");

    configMap("web", "2");
    await().atMost(WAIT).untilAsserted(() -> {
      for (OtlpReceiver receiver : List.of(http, grpc)) {
        List<Event> web = eventsOf(receiver, "web");
        Event last = web.get(web.size() - 1);
        assertThat(last.name()).isEqualTo("entity.state");
        assertThat(last.body()).isEqualTo(Map.of("v", "2"));
        assertThat((Long) last.attributes().get("kollect.sequence"))
            .isGreaterThan((Long) web.get(0).attributes().get("kollect.sequence"));
      }
    });

    client.configMaps().inNamespace(NS).withName("web").delete();
    await().atMost(WAIT).untilAsserted(() -> {
      for (OtlpReceiver receiver : List.of(http, grpc)) {
        List<Event> web = eventsOf(receiver, "web");
        Event last = web.get(web.size() - 1);
        assertThat(last.name()).isEqualTo("entity.delete");
        assertThat(last.attributes()).containsOnlyKeys("entity.type", "entity.id",
            "entity.delete.reason", "kollect.sequence");
        assertThat(last.attributes()).containsEntry("entity.type", "k8s.configmap")
            .containsEntry("entity.id", entityId("web"))
            .containsEntry("entity.delete.reason", "deleted");
        assertThat(last.body()).isNull();
      }
    });
  }

  @Test
  @Order(2)
  void aReceiverOutageLosesNothingTheRecordArrivesOnceTheReceiverAnswersAgain() {
    grpc.answerNext(new OtlpReceiver.Unavailable(), new OtlpReceiver.Unavailable());
    configMap("outage", "1");
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(grpc.refused()).isGreaterThanOrEqualTo(2);
      assertThat(eventsOf(grpc, "outage")).extracting(Event::body).contains(Map.of("v", "1"));
    });
  }

  /**
   * A partial success is acknowledged, never retried (OTLP forbids it): a ConfigMap created after
   * it arrives, and the rejected state was sent exactly once before it (a retry would travel in
   * the same target's lane, so before or with the later object).
   */
  @Test
  @Order(3)
  void aPartialSuccessIsAcknowledgedAndShownAsAWarningConditionAndACounter() throws Exception {
    http.answerNext(new OtlpReceiver.Partial(1, "attribute value too long"));
    configMap("partial", "1");
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(eventsOf(http, "partial")).hasSize(1));
    configMap("after-partial", "1");
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(eventsOf(http, "after-partial")).hasSize(1));
    assertThat(eventsOf(http, "partial")).hasSize(1);

    await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
      Condition warning = condition("otel-http", "Warning");
      assertThat(warning.getStatus()).isEqualTo("True");
      assertThat(warning.getReason()).isEqualTo("PartialSuccess");
      assertThat(warning.getMessage()).contains("dropped 1 log record(s)",
          "attribute value too long");
      assertThat(condition("otel-http", "Ready").getStatus()).isEqualTo("True");
      assertThat(condition("otel-http", "Degraded").getStatus()).isEqualTo("False");
      assertThat(condition("otel-grpc", "Warning")).isNull();
    });
    assertThat(metrics())
        .contains("kollect_export_otlp_rejected_log_records_total{sink=\"" + NS
            + "/otel-http\"} 1.0")
        .contains("kollect_export_otlp_partial_successes_total{sink=\"" + NS
            + "/otel-http\"} 1.0")
        .contains("kollect_export_otlp_rejected_log_records_total{sink=\"" + NS
            + "/otel-grpc\"} 0.0");
  }

  /**
   * The API key is rotated in its Secret: the same sink (no change of the KollectSink, no restart)
   * sends the new one once it asked its header supplier again (at most every 10 s, every second
   * here) and the Secret was read again (at most every second here). A ConfigMap is changed every 2 s until a request
   * carries the new key.
   */
  @Test
  @Order(4)
  void anApiKeyRotatedInItsSecretIsSentWithoutARestart() {
    client.secrets().inNamespace(NS).withName("otel-auth").edit(s -> new SecretBuilder(s)
        .withData(null).withStringData(Map.of("token", "Bearer k-2")).build());
    java.util.concurrent.atomic.AtomicInteger v = new java.util.concurrent.atomic.AtomicInteger();
    await().atMost(WAIT).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
      configMap("key-probe", String.valueOf(v.incrementAndGet()));
      List<OtlpReceiver.Received> received = http.received();
      assertThat(received.get(received.size() - 1).headers())
          .containsEntry("authorization", "Bearer k-2");
    });
  }

  @Test
  @Order(5)
  void aMissingHeaderSecretAndAnEndpointWithoutTheLogsPathAreInvalidSinkConditionsNamingTheField() {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: no-secret, namespace: %1$s}
        spec:
          type: otlp
          otlp:
            endpoint: "%2$s"
            headerSecretRefs: {Authorization: {name: missing, key: token}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: no-path, namespace: %1$s}
        spec:
          type: otlp
          otlp: {endpoint: "http://otel-collector:4318"}
        """.formatted(NS, http.endpoint()));
    await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
      Condition noSecret = condition("no-secret", "Ready");
      assertThat(noSecret.getStatus()).isEqualTo("False");
      assertThat(noSecret.getReason()).isEqualTo("InvalidSink");
      assertThat(noSecret.getMessage()).contains(
          "spec.otlp.headerSecretRefs.Authorization: Secret obs/missing does not exist");
      Condition noPath = condition("no-path", "Ready");
      assertThat(noPath.getReason()).isEqualTo("InvalidSink");
      assertThat(noPath.getMessage()).contains("spec.otlp.endpoint: http/protobuf posts to "
          + "exactly this URL: give the logs path, e.g. http://otel-collector:4318/v1/logs");
    });
  }
}

package io.kollect.export.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.SinkException;
import io.kollect.extract.Record;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The otlp sink against a real OTLP receiver on loopback, over both transports. */
class OtlpSinkTest {

  private static final long T0_NANOS = Records.T0.getEpochSecond() * 1_000_000_000L
      + Records.T0.getNano();

  private static OtlpSinkConfig.Builder config(OtlpReceiver receiver,
      OtlpSinkConfig.Protocol protocol) {
    return OtlpSinkConfig.builder().endpoint(receiver.endpoint()).protocol(protocol)
        .timeout(Duration.ofSeconds(5));
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void batchArrivesAsOneRequestOfExactEntityEvents(OtlpSinkConfig.Protocol protocol)
      throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol);
        OtlpSink sink = new OtlpSink("otel", config(receiver, protocol)
            .reportInterval(Duration.ofMinutes(10)).resourceAttribute("deployment.environment",
                "prod").build())) {
      sink.write(List.of(Records.deployment(), Records.configMapDelete("cm-1", 8)));

      assertThat(receiver.received()).hasSize(1);
      ExportLogsServiceRequest request = receiver.received().get(0).request();
      assertThat(request.getResourceLogsList()).hasSize(1);
      ResourceLogs resourceLogs = request.getResourceLogs(0);
      assertThat(AnyValues.map(resourceLogs.getResource().getAttributesList())).isEqualTo(Map.of(
          "service.name", "kollect", "deployment.environment", "prod"));
      assertThat(resourceLogs.getSchemaUrl()).isEqualTo("https://opentelemetry.io/schemas/1.42.0");
      ScopeLogs scopeLogs = resourceLogs.getScopeLogs(0);
      assertThat(scopeLogs.getScope().getName()).isEqualTo("io.kollect.export.otlp");
      assertThat(scopeLogs.getLogRecordsList()).hasSize(2);

      LogRecord state = scopeLogs.getLogRecords(0);
      assertThat(state.getEventName()).isEqualTo("entity.state");
      assertThat(state.getTimeUnixNano()).isEqualTo(T0_NANOS);
      assertThat(state.getObservedTimeUnixNano()).isEqualTo(T0_NANOS);
      assertThat(AnyValues.map(state.getAttributesList())).isEqualTo(
          orderedMap(
              "entity.type", "k8s.deployment",
              "entity.id", orderedMap(
                  "k8s.cluster.name", "prod-eu-1",
                  "kollect.target", "platform/cms",
                  "kollect.resource.group", "apps",
                  "kollect.resource.kind", "Deployment",
                  "k8s.namespace.name", "shop",
                  "k8s.deployment.name", "web"),
              "kollect.sequence", 7L,
              "entity.description", orderedMap(
                  "k8s.deployment.uid", "uid-web",
                  "kollect.resource.api_version", "apps/v1",
                  "kollect.resource_version", "4711",
                  "kollect.profile", "workloads",
                  "k8s.deployment.label.app", "web",
                  "k8s.deployment.label.team", "shop",
                  "k8s.deployment.annotation.kollect.io/owner", "team-shop"),
              "entity.report.interval", 600_000L,
              "kollect.content_hash", "h-web-1"));
      assertThat(AnyValues.plain(state.getBody())).isEqualTo(orderedMap(
          "replicas", 3L,
          "image", "nginx:1.27",
          "paused", false,
          "cpu", 0.5,
          "ports", List.of(80L, 443L),
          "strategy", orderedMap("type", "RollingUpdate", "maxSurge", AnyValues.EMPTY)));

      LogRecord delete = scopeLogs.getLogRecords(1);
      assertThat(delete.getEventName()).isEqualTo("entity.delete");
      assertThat(delete.getTimeUnixNano()).isEqualTo(T0_NANOS + 1_000_000_000L);
      assertThat(AnyValues.map(delete.getAttributesList())).isEqualTo(orderedMap(
          "entity.type", "k8s.configmap",
          "entity.id", orderedMap(
              "k8s.cluster.name", "prod-eu-1",
              "kollect.target", "platform/cms",
              "kollect.resource.group", "",
              "kollect.resource.kind", "ConfigMap",
              "k8s.namespace.name", "load",
              "k8s.configmap.name", "cm-1"),
          "kollect.sequence", 8L,
          "entity.delete.reason", "deleted"));
      assertThat(delete.hasBody()).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void heartbeatOffOmitsTheReportInterval(OtlpSinkConfig.Protocol protocol) throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol);
        OtlpSink sink = new OtlpSink("otel", config(receiver, protocol)
            .reportInterval(Duration.ZERO).build())) {
      sink.write(List.of(Records.deployment()));

      LogRecord state = receiver.received().get(0).request().getResourceLogs(0).getScopeLogs(0)
          .getLogRecords(0);
      assertThat(AnyValues.map(state.getAttributesList())).containsKey("entity.type")
          .doesNotContainKey("entity.report.interval");
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void partialSuccessIsAcknowledgedCountedAndKeptForTheStatus(OtlpSinkConfig.Protocol protocol)
      throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol);
        OtlpSink sink = new OtlpSink("otel", config(receiver, protocol).build())) {
      receiver.answerNext(new OtlpReceiver.Partial(2, "2 log records over the quota"));

      sink.write(Records.configMaps(5));

      assertThat(receiver.received()).hasSize(1);
      assertThat(sink.rejectedLogRecords()).isEqualTo(2);
      assertThat(sink.partialSuccesses()).isEqualTo(1);
      assertThat(sink.lastPartialSuccess()).hasValueSatisfying(p -> {
        assertThat(p.rejectedLogRecords()).isEqualTo(2);
        assertThat(p.errorMessage()).isEqualTo("2 log records over the quota");
      });

      sink.write(Records.configMaps(1));
      assertThat(sink.rejectedLogRecords()).isEqualTo(2);
      assertThat(sink.partialSuccesses()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void unavailableReceiverFailsRetryablyOnceAndTheRetryDeliversEverything(
      OtlpSinkConfig.Protocol protocol) throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol);
        OtlpSink sink = new OtlpSink("otel", config(receiver, protocol).build())) {
      receiver.answerNext(new OtlpReceiver.Unavailable());
      List<Record> batch = Records.configMaps(3);

      assertThatThrownBy(() -> sink.write(batch)).isInstanceOfSatisfying(SinkException.class,
          e -> assertThat(e.retryable()).isTrue());
      // the exporter's own retry is off: the refused request was not sent again behind our back
      assertThat(receiver.received()).isEmpty();

      sink.write(batch);

      assertThat(receiver.received()).hasSize(1);
      assertThat(receiver.received().get(0).request().getResourceLogs(0).getScopeLogs(0)
          .getLogRecordsList()).extracting(r -> AnyValues.map(r.getAttributesList())
              .get("kollect.sequence")).containsExactly(1L, 2L, 3L);
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void unreachableReceiverFailsRetryably(OtlpSinkConfig.Protocol protocol) throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    String endpoint = "http://localhost:" + port
        + (protocol == OtlpSinkConfig.Protocol.GRPC ? "" : "/v1/logs");
    try (OtlpSink sink = new OtlpSink("otel", OtlpSinkConfig.builder().endpoint(endpoint)
        .protocol(protocol).timeout(Duration.ofSeconds(2)).build())) {
      assertThatThrownBy(() -> sink.write(Records.configMaps(1)))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).contains("localhost:" + port);
          });
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void headersComeFromSuppliersAndARotatedValueIsSentAfterTheCheckInterval(
      OtlpSinkConfig.Protocol protocol) throws Exception {
    AtomicReference<String> apiKey = new AtomicReference<>("Bearer key-1");
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol);
        OtlpSink sink = new OtlpSink("otel", config(receiver, protocol)
            .header("Authorization", apiKey::get).credentialsCheckInterval(Duration.ZERO)
            .build())) {
      sink.write(Records.configMaps(1));
      apiKey.set("Bearer key-2");
      sink.write(Records.configMaps(1));

      assertThat(receiver.received()).extracting(r -> r.headers().get("authorization"))
          .containsExactly("Bearer key-1", "Bearer key-2");
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void aHeaderSupplierThatFailsFailsTheWriteRetryablyNamingTheHeaderOnly(
      OtlpSinkConfig.Protocol protocol) throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol);
        OtlpSink sink = new OtlpSink("otel", config(receiver, protocol)
            .header("Authorization", () -> {
              throw new IllegalStateException("secret s3cr3t not found");
            }).build())) {
      assertThatThrownBy(() -> sink.write(Records.configMaps(1)))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).contains("headers.Authorization")
                .doesNotContain("s3cr3t");
          });
      assertThat(receiver.received()).isEmpty();
    }
  }

  /** A map of the given entries (compared by content: OTLP attribute order is the SDK's). */
  static Map<String, Object> orderedMap(Object... keysAndValues) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }
}

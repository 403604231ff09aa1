package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.otlp.OtlpSink;
import io.kollect.export.otlp.OtlpSinkConfig;
import io.kollect.operator.crd.KollectSink;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** KollectSink {@code type: otlp} to an {@link OtlpSink} without Secrets. */
class OtlpSinkTranslationTest {

  private final SinkTranslation translation = new SinkTranslation(null);

  private static KollectSink sink(String spec) {
    return KollectSinkYaml.parse("platform", "otel", spec);
  }

  private static OtlpSinkConfig config(SinkTranslation.Built built) {
    assertThat(built.sink()).isInstanceOf(OtlpSink.class);
    return ((OtlpSink) built.sink()).config();
  }

  @Test
  void anHttpProtobufSinkSendsTheHeartbeatAsTheEntityReportInterval() {
    var built = translation.build("platform/otel", sink("""
        type: otlp
        otlp:
          endpoint: http://otel-collector.observability:4318/v1/logs
          timeout: 3s
          resourceAttributes: {deployment.environment.name: prod}
        heartbeatInterval: 15m
        """));
    OtlpSinkConfig config = config(built);
    assertThat(config.endpoint()).isEqualTo(
        URI.create("http://otel-collector.observability:4318/v1/logs"));
    assertThat(config.protocol()).isEqualTo(OtlpSinkConfig.Protocol.HTTP_PROTOBUF);
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.reportInterval()).isEqualTo(Duration.ofMinutes(15));
    assertThat(config.resourceAttributes()).isEqualTo(Map.of("deployment.environment.name", "prod"));
    assertThat(built.options().heartbeatInterval()).isEqualTo(Duration.ofMinutes(15));
    built.sink().close();
  }

  @Test
  void aGrpcSinkWithTheHeartbeatOffOmitsTheReportInterval() {
    var built = translation.build("platform/otel", sink("""
        type: otlp
        otlp: {endpoint: "http://otel-collector:4317", protocol: grpc}
        heartbeatInterval: 0s
        """));
    OtlpSinkConfig config = config(built);
    assertThat(config.protocol()).isEqualTo(OtlpSinkConfig.Protocol.GRPC);
    assertThat(config.reportInterval()).isEqualTo(Duration.ZERO);
    built.sink().close();
  }

  @Test
  void eachUnusableOtlpSettingIsReportedNamingItsField() {
    assertThatThrownBy(() -> translation.build("p/o", sink("type: otlp")))
        .hasMessage("spec.otlp: is required for type otlp");
    assertThatThrownBy(() -> translation.build("p/o", sink("type: otlp\notlp: {timeout: 1s}")))
        .hasMessage("spec.otlp.endpoint: is required");
    assertThatThrownBy(() -> translation.build("p/o",
        sink("type: otlp\notlp: {endpoint: \"http://c:4318/v1/logs\", protocol: http/json}")))
        .hasMessage("spec.otlp.protocol: one of http/protobuf, grpc, got http/json");
    assertThatThrownBy(() -> translation.build("p/o",
        sink("type: otlp\notlp: {endpoint: \"http://c:4318\"}")))
        .hasMessage("spec.otlp.endpoint: http/protobuf posts to exactly this URL: give the logs "
            + "path, e.g. http://c:4318/v1/logs");
    assertThatThrownBy(() -> translation.build("p/o",
        sink("type: otlp\notlp: {endpoint: \"http://c:4317/v1/logs\", protocol: grpc}")))
        .hasMessage("spec.otlp.endpoint: grpc takes scheme, host and port only, got the path "
            + "/v1/logs");
    assertThatThrownBy(() -> translation.build("p/o",
        sink("type: otlp\notlp: {endpoint: \"ftp://c/v1/logs\"}")))
        .hasMessage("spec.otlp.endpoint: must be an http or https URL, got ftp://c/v1/logs");
    assertThatThrownBy(() -> translation.build("p/o",
        sink("type: otlp\notlp: {endpoint: \"http://c:4318/v1/logs\", timeout: 10ms}")))
        .hasMessage("spec.otlp.timeout: must be at least 100ms, got PT0.01S");
    assertThatThrownBy(() -> translation.build("p/o", sink("""
        type: otlp
        otlp: {endpoint: "http://c:4318/v1/logs"}
        tls: {insecureSkipVerify: true}
        """)))
        .hasMessageStartingWith("spec.tls.insecureSkipVerify: not supported by the otlp sink");
    assertThatThrownBy(() -> translation.build("p/o", sink("""
        type: otlp
        otlp: {endpoint: "http://c:4318/v1/logs"}
        tls: {}
        """)))
        .hasMessage("spec.tls: the endpoint http://c:4318/v1/logs is not https://; TLS settings "
            + "need an https endpoint");
    assertThatThrownBy(() -> translation.build("p/o", sink("""
        type: otlp
        otlp:
          endpoint: "http://c:4318/v1/logs"
          headerSecretRefs: {"Bad Header": {name: s, key: k}}
        """)))
        .hasMessage("spec.otlp.headerSecretRefs.Bad Header: 'Bad Header' is not a header name");
  }
}

package io.kollect.export.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.SinkException;
import io.kollect.export.TlsConfig;
import io.kollect.testing.TestCertificateAuthority;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** TLS and mutual TLS to a real OTLP receiver, from PEM supplied at write time. */
class OtlpTlsTest {

  private static TestCertificateAuthority serverCa;
  private static TestCertificateAuthority clientCa;
  private static TestCertificateAuthority.Issued server;
  private static TestCertificateAuthority.Issued client;

  @BeforeAll
  static void certificates() {
    serverCa = TestCertificateAuthority.create("otlp-server-ca");
    clientCa = TestCertificateAuthority.create("otlp-client-ca");
    server = serverCa.server("localhost", "127.0.0.1");
    client = clientCa.client("kollect");
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void mutualTlsWithSuppliedPemDelivers(OtlpSinkConfig.Protocol protocol) throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol, server, clientCa);
        OtlpSink sink = new OtlpSink("otel", OtlpSinkConfig.builder()
            .endpoint(receiver.endpoint()).protocol(protocol).timeout(Duration.ofSeconds(5))
            .tls(TlsConfig.trusting(serverCa::certificatePem).withClientCertificate(
                client::certificatePem, client::pkcs8KeyPem)).build())) {
      sink.write(Records.configMaps(2));

      assertThat(receiver.received()).hasSize(1);
      assertThat(receiver.received().get(0).request().getResourceLogs(0).getScopeLogs(0)
          .getLogRecordsCount()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void aRotatedCaTakesEffectWithoutANewSink(OtlpSinkConfig.Protocol protocol) throws Exception {
    TestCertificateAuthority stranger = TestCertificateAuthority.create("some-other-ca");
    AtomicReference<String> caPem = new AtomicReference<>(stranger.certificatePem());
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol, server, null);
        OtlpSink sink = new OtlpSink("otel", OtlpSinkConfig.builder()
            .endpoint(receiver.endpoint()).protocol(protocol).timeout(Duration.ofSeconds(5))
            .credentialsCheckInterval(Duration.ZERO)
            .tls(TlsConfig.trusting(caPem::get)).build())) {
      assertThatThrownBy(() -> sink.write(Records.configMaps(1)))
          .isInstanceOfSatisfying(SinkException.class, e -> assertThat(e.retryable()).isTrue());
      assertThat(receiver.received()).isEmpty();

      caPem.set(serverCa.certificatePem());
      sink.write(Records.configMaps(1));

      assertThat(receiver.received()).hasSize(1);
    }
  }

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void aReceiverRequiringAClientCertificateRefusesASinkWithoutOne(
      OtlpSinkConfig.Protocol protocol) throws Exception {
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol, server, clientCa);
        OtlpSink sink = new OtlpSink("otel", OtlpSinkConfig.builder()
            .endpoint(receiver.endpoint()).protocol(protocol).timeout(Duration.ofSeconds(5))
            .tls(TlsConfig.trusting(serverCa::certificatePem)).build())) {
      assertThatThrownBy(() -> sink.write(Records.configMaps(1)))
          .isInstanceOfSatisfying(SinkException.class, e -> assertThat(e.retryable()).isTrue());
      assertThat(receiver.received()).isEmpty();
    }
  }
}

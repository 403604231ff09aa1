package io.kollect.export;

import static io.kollect.export.TestRecords.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kollect.export.HttpsReceiver.Received;
import io.kollect.testing.TestCertificateAuthority.Issued;
import io.kollect.testing.TestCertificateAuthority;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP sink against a real HTTPS server on loopback, with a CA, server and client
 * certificates generated at test time.
 */
class HttpsSinkTest {

  static final TestCertificateAuthority CA = TestCertificateAuthority.create("kollect-test-ca");
  static final TestCertificateAuthority OTHER_CA = TestCertificateAuthority.create("other-ca");
  static final TestCertificateAuthority CLIENT_CA = TestCertificateAuthority.create("client-ca");
  static final Issued SERVER = CA.server("127.0.0.1", "localhost");

  HttpsReceiver receiver;

  @AfterEach
  void stop() {
    if (receiver != null) {
      receiver.close();
    }
  }

  private HttpSink sink(String host, TlsConfig tls) {
    // a loopback connect timed out after 5 s on two cores shared by several builds; no test here
    // waits for the timeout, a refused handshake fails at once
    HttpSinkConfig config = HttpSinkConfig.of(receiver.uri(host))
        .withTimeout(Duration.ofSeconds(30));
    return new HttpSink("https", tls == null ? config : config.withTls(tls));
  }

  private static SinkException failure(HttpSink sink) {
    try {
      sink.write(records("t", 2, 1));
    } catch (SinkException e) {
      return e;
    }
    throw new AssertionError("the write succeeded");
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1", "localhost"})
  void serverCertificateFromTheConfiguredCaIsAcceptedForItsIpAndDnsNames(String host)
      throws Exception {
    receiver = HttpsReceiver.start(SERVER, null);
    sink(host, TlsConfig.trusting(CA::certificatePem)).write(records("t", 3, 1));
    assertThat(receiver.received).extracting(Received::records).containsExactly(3);
  }

  @Test
  void serverCertificateFromAnotherCaIsRefusedNamingTheEndpoint() throws Exception {
    receiver = HttpsReceiver.start(SERVER, null);
    SinkException e = failure(sink("127.0.0.1", TlsConfig.trusting(OTHER_CA::certificatePem)));
    assertThat(e.getMessage())
        .startsWith("POST " + receiver.uri("127.0.0.1") + ": server certificate for https://127.0.0.1:"
            + receiver.port() + " is not trusted by the configured CA (subject CN=server, issuer "
            + "CN=kollect-test-ca");
    assertThat(e.retryable()).isTrue();
    assertThat(receiver.received).isEmpty();
  }

  @Test
  void withoutATlsBlockTheServerIsVerifiedAgainstTheJdkTrustStore() throws Exception {
    receiver = HttpsReceiver.start(SERVER, null);
    assertThat(failure(sink("127.0.0.1", null)).getMessage()).contains("server certificate for "
        + "https://127.0.0.1:" + receiver.port() + " is not trusted by the JDK's default trust store");
    assertThat(receiver.received).isEmpty();
  }

  @Test
  void certificateForAnotherHostIsRefusedByDefault() throws Exception {
    receiver = HttpsReceiver.start(CA.server("wrong.example", "10.9.8.7"), null);
    SinkException e = failure(sink("127.0.0.1", TlsConfig.trusting(CA::certificatePem)));
    assertThat(e.getMessage()).contains("server certificate for https://127.0.0.1:"
        + receiver.port() + " does not match the host 127.0.0.1")
        .contains("names [DNS:wrong.example, IP:10.9.8.7]");
    assertThat(receiver.received).isEmpty();
  }

  @Test
  void expiredServerCertificateIsRefusedNamingWhenItExpired() throws Exception {
    Issued expired = CA.expiredServer("127.0.0.1");
    receiver = HttpsReceiver.start(expired, null);
    SinkException e = failure(sink("127.0.0.1", TlsConfig.trusting(CA::certificatePem)));
    assertThat(e.getMessage()).contains("server certificate for https://127.0.0.1:"
        + receiver.port() + " expired at " + expired.certificate().getNotAfter().toInstant());
    assertThat(receiver.received).isEmpty();
  }

  @Test
  void insecureSkipVerifyAcceptsAnUnknownCaAndAnotherHost() throws Exception {
    receiver = HttpsReceiver.start(OTHER_CA.server("wrong.example"), null);
    sink("127.0.0.1", TlsConfig.trusting(CA::certificatePem).withInsecureSkipVerify(true))
        .write(records("t", 2, 1));
    assertThat(receiver.received).extracting(Received::records).containsExactly(2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"EC PKCS#8", "EC SEC1", "RSA PKCS#8", "RSA PKCS#1"})
  void mutualTlsPresentsTheClientCertificateWithAKeyInEveryPemFormat(String format)
      throws Exception {
    Issued client = CLIENT_CA.client("kollect-client", format.substring(0, format.indexOf(' ')));
    String keyPem = switch (format) {
      case "EC SEC1" -> client.sec1KeyPem();
      case "RSA PKCS#1" -> client.pkcs1KeyPem();
      default -> client.pkcs8KeyPem();
    };
    assertThat(keyPem).startsWith(switch (format) {
      case "EC SEC1" -> "-----BEGIN EC PRIVATE KEY-----";
      case "RSA PKCS#1" -> "-----BEGIN RSA PRIVATE KEY-----";
      default -> "-----BEGIN PRIVATE KEY-----";
    });
    receiver = HttpsReceiver.start(SERVER, CLIENT_CA);
    sink("localhost", TlsConfig.trusting(CA::certificatePem)
        .withClientCertificate(client::certificatePem, () -> keyPem))
        .write(records("t", 1, 1));
    assertThat(receiver.received).extracting(Received::clientSubject)
        .containsExactly("CN=kollect-client");
  }

  @Test
  void serverThatRequiresAClientCertificateIsReportedWhenNoneIsConfigured() throws Exception {
    receiver = HttpsReceiver.start(SERVER, CLIENT_CA);
    SinkException e = failure(sink("127.0.0.1", TlsConfig.trusting(CA::certificatePem)));
    assertThat(e.getMessage()).startsWith("POST " + receiver.uri("127.0.0.1") + ": ")
        .doesNotContain("null");
    assertThat(e.getMessage()).contains("TLS connection to https://127.0.0.1:" + receiver.port()
        + " failed: the server asked for a client certificate issued by [CN=client-ca] and none "
        + "is configured (set the tls client certificate and key)");
    assertThat(receiver.received).isEmpty();
  }

  @Test
  void rotatedCaTakesEffectOnTheNextRequestOfTheSameSink() throws Exception {
    receiver = HttpsReceiver.start(SERVER, null);
    AtomicReference<String> ca = new AtomicReference<>(OTHER_CA.certificatePem());
    HttpSink sink = sink("127.0.0.1", TlsConfig.trusting(ca::get));
    assertThat(failure(sink).getMessage()).contains("is not trusted by the configured CA");
    ca.set(CA.certificatePem());
    sink.write(records("t", 2, 1));
    assertThat(receiver.received).extracting(Received::records).containsExactly(2);
  }

  @Test
  void exporterKeepsRetryingAnUntrustedServerAndDeliversOnceTheRotatedCaArrives()
      throws Exception {
    receiver = HttpsReceiver.start(SERVER, CLIENT_CA);
    Issued client = CLIENT_CA.client("kollect-client", "RSA");
    AtomicReference<String> ca = new AtomicReference<>(OTHER_CA.certificatePem());
    CountingMetrics metrics = new CountingMetrics();
    try (Exporter exporter = Exporter.builder().metrics(metrics)
        .closeTimeout(Duration.ofMillis(200)).build()) {
      exporter.addSink(sink("localhost", TlsConfig.trusting(ca::get)
              .withClientCertificate(client::certificatePem, client::pkcs1KeyPem)),
          SinkOptions.defaults().withLinger(Duration.ofMillis(5))
              .withHeartbeatInterval(Duration.ZERO)
              .withBackoff(Duration.ofMillis(20), Duration.ofMillis(100)));
      exporter.converge("t", Set.of("https"), records("t", 20, 1));
      await().atMost(Duration.ofSeconds(20))
          .until(() -> metrics.get("failedRetryable", "https") >= 40);
      assertThat(metrics.get("dropped", "https")).isZero();
      assertThat(receiver.received).isEmpty();

      ca.set(CA.certificatePem());
      assertThat(exporter.awaitIdle(Duration.ofSeconds(20))).isTrue();
      assertThat(receiver.received.stream().mapToInt(Received::records).sum()).isEqualTo(20);
      assertThat(receiver.received).extracting(Received::clientSubject)
          .containsOnly("CN=kollect-client");
    }
  }

  @Test
  void rotatedClientCertificateIsPresentedOnTheNextRequestAndUnchangedMaterialKeepsTheConnection()
      throws Exception {
    receiver = HttpsReceiver.start(SERVER, CLIENT_CA);
    Issued first = CLIENT_CA.client("client-1", "EC");
    Issued second = CLIENT_CA.client("client-2", "EC");
    AtomicReference<Issued> current = new AtomicReference<>(first);
    AtomicInteger reads = new AtomicInteger();
    HttpSink sink = sink("127.0.0.1", TlsConfig.trusting(CA::certificatePem)
        .withClientCertificate(() -> {
          reads.incrementAndGet();
          return current.get().certificatePem();
        }, () -> current.get().pkcs8KeyPem()));
    sink.write(records("t", 1, 1));
    sink.write(records("t", 1, 2));
    current.set(second);
    sink.write(records("t", 1, 3));

    assertThat(reads).hasValue(3); // asked before every request
    List<Received> got = receiver.received;
    assertThat(got).extracting(Received::clientSubject)
        .containsExactly("CN=client-1", "CN=client-1", "CN=client-2");
    // unchanged material: the same client, so the same TLS session; rotated: a new handshake
    assertThat(got.get(1).sessionId()).isEqualTo(got.get(0).sessionId());
    assertThat(got.get(2).sessionId()).isNotEqualTo(got.get(0).sessionId());
  }

  @Test
  void clientCertificateFromAnUntrustedIssuerIsReportedAndARotatedOneIsAccepted()
      throws Exception {
    receiver = HttpsReceiver.start(SERVER, CLIENT_CA);
    AtomicReference<Issued> current = new AtomicReference<>(OTHER_CA.client("stranger", "EC"));
    HttpSink sink = sink("127.0.0.1", TlsConfig.trusting(CA::certificatePem)
        .withClientCertificate(() -> current.get().certificatePem(),
            () -> current.get().pkcs8KeyPem()));
    SinkException e = failure(sink);
    assertThat(e.getMessage()).contains("TLS connection to https://127.0.0.1:" + receiver.port()
        + " failed: the server asked for a client certificate issued by [CN=client-ca]; the "
        + "configured one (subject CN=stranger, issuer CN=other-ca");
    current.set(CLIENT_CA.client("kollect-client", "EC"));
    sink.write(records("t", 1, 1));
    assertThat(receiver.received).extracting(Received::clientSubject)
        .containsExactly("CN=kollect-client");
  }

  @Test
  void clientCertificateTheServerRefusesAfterItWasSentIsReported() throws Exception {
    receiver = HttpsReceiver.start(SERVER, CLIENT_CA);
    Issued expired = CLIENT_CA.expiredClient("kollect-client");
    SinkException e = failure(sink("127.0.0.1", TlsConfig.trusting(CA::certificatePem)
        .withClientCertificate(expired::certificatePem, expired::pkcs8KeyPem)));
    assertThat(e.getMessage()).contains("TLS connection to https://127.0.0.1:" + receiver.port()
        + " failed: the server asked for a client certificate issued by [CN=client-ca] and the "
        + "connection failed after the configured one was sent; the server probably refused it "
        + "(subject CN=kollect-client, issuer CN=client-ca");
    assertThat(receiver.received).isEmpty();
  }

  @Test
  void missingOrGarbledPemIsAnErrorNamingThePart() throws Exception {
    receiver = HttpsReceiver.start(SERVER, CLIENT_CA);
    Issued client = CLIENT_CA.client("kollect-client", "EC");
    Issued otherClient = CLIENT_CA.client("other", "EC");
    Supplier<String> ca = CA::certificatePem;
    Supplier<String> cert = client::certificatePem;
    Supplier<String> key = client::pkcs8KeyPem;
    Function<TlsConfig, String> error = tls -> failure(sink("127.0.0.1", tls)).getMessage();
    String prefix = "POST " + receiver.uri("127.0.0.1") + ": TLS configuration: the ";

    assertThat(error.apply(TlsConfig.trusting(() -> "")))
        .isEqualTo(prefix + "CA certificate (tls.caPem) is missing (empty)");
    assertThat(error.apply(TlsConfig.trusting(() -> {
      throw new IllegalStateException("secret ns/ca not found");
    }))).isEqualTo(prefix.replace(": the ", ": ") + "cannot read the CA certificate (tls.caPem) (IllegalStateException)");
    assertThat(error.apply(TlsConfig.trusting(() -> "not a certificate")))
        .isEqualTo(prefix + "CA certificate (tls.caPem) holds no PEM certificate (no "
            + "-----BEGIN CERTIFICATE----- block)");
    String garbled = CA.certificatePem().replaceFirst("\n(.)", "\n!$1");
    assertThat(error.apply(TlsConfig.trusting(() -> garbled)))
        .isEqualTo(prefix + "CA certificate (tls.caPem) is not valid PEM: the CERTIFICATE block "
            + "is not valid base64");
    String truncated = CA.certificatePem().replaceFirst("\n.{20}", "\n");
    assertThat(error.apply(TlsConfig.trusting(() -> truncated)))
        .startsWith(prefix + "CA certificate (tls.caPem) is not valid PEM: ");
    assertThat(error.apply(TlsConfig.trusting(ca).withClientCertificate(cert, () -> " ")))
        .isEqualTo(prefix + "client key (tls.clientKeyPem) is missing (empty)");
    assertThat(error.apply(TlsConfig.trusting(ca).withClientCertificate(cert, cert)))
        .isEqualTo(prefix + "client key (tls.clientKeyPem) holds no PEM private key (expected a "
            + "PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block)");
    assertThat(error.apply(TlsConfig.trusting(ca).withClientCertificate(key, key)))
        .startsWith(prefix + "client certificate (tls.clientCertPem) holds no PEM certificate");
    assertThat(error.apply(TlsConfig.trusting(ca)
        .withClientCertificate(cert, otherClient::pkcs8KeyPem)))
        .startsWith(prefix + "client key (tls.clientKeyPem) does not belong to the client "
            + "certificate (tls.clientCertPem) (subject CN=kollect-client");
    assertThat(error.apply(TlsConfig.trusting(ca).withClientCertificate(cert,
        () -> "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----")))
        .isEqualTo(prefix + "client key (tls.clientKeyPem) is encrypted (ENCRYPTED PRIVATE KEY); "
            + "give it unencrypted");
    String mangledKey = key.get().replace("-----END PRIVATE KEY-----", "-----END RSA KEY-----");
    assertThat(error.apply(TlsConfig.trusting(ca).withClientCertificate(cert, () -> mangledKey)))
        .contains("client key (tls.clientKeyPem)");
    assertThat(receiver.received).isEmpty();
  }

  @Test
  void secretMaterialNeverAppearsInConfigTextOrErrors() throws Exception {
    receiver = HttpsReceiver.start(SERVER, null);
    Issued client = CLIENT_CA.client("kollect-client", "EC");
    TlsConfig tls = TlsConfig.trusting(OTHER_CA::certificatePem)
        .withClientCertificate(client::certificatePem, client::pkcs8KeyPem);
    String keyBody = client.pkcs8KeyPem().split("\n")[1];
    assertThat(HttpSinkConfig.of(receiver.uri("127.0.0.1")).withTls(tls).toString())
        .contains("tls=TlsConfig[ca=custom, clientCertificate=true, insecureSkipVerify=false]")
        .doesNotContain(keyBody);
    assertThat(tls.read().toString()).doesNotContain(keyBody);
    assertThat(failure(sink("127.0.0.1", tls)).getMessage()).doesNotContain(keyBody);
  }

  @Test
  void tlsConfigurationIsCheckedWhenBuilt() {
    assertThatThrownBy(() -> new TlsConfig(null, () -> "cert", null, false))
        .hasMessageStartingWith("clientCertPem, clientKeyPem: set both or neither");
    assertThatThrownBy(() -> HttpSinkConfig.of(java.net.URI.create("http://localhost:8080/x"))
        .withTls(TlsConfig.defaults()))
        .hasMessageStartingWith("tls: applies only to an https url");
  }
}

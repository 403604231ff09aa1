package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.cli.RunCommandIT;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.testing.TestCertificateAuthority;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sink TLS on a real API server: an {@code https} KollectSink whose {@code spec.tls} names
 * a CA Secret and a {@code kubernetes.io/tls} client Secret delivers over mutual TLS to a real
 * HTTPS receiver on loopback (certificates generated here); when the receiver's certificate
 * changes to one of a new CA, the target's status names the endpoint and says it is not trusted,
 * and updating the CA Secret delivers the pending change without restarting the operator; the same
 * for a receiver that starts requiring client certificates of a new CA and the client Secret.
 * {@code insecureSkipVerify} is reported on the sink. The tests run in order, each building on the
 * state the previous one left.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpsSinkIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "tls-shop";
  private static final TestCertificateAuthority CA = TestCertificateAuthority.create("kollect-it-ca");
  private static final TestCertificateAuthority NEW_CA = TestCertificateAuthority.create("kollect-it-new-ca");
  private static final TestCertificateAuthority.Issued CLIENT = CA.client("kollect-operator");
  private static final TestCertificateAuthority NEW_CLIENT_CA =
      TestCertificateAuthority.create("kollect-it-new-client-ca");

  /** One record as the receiver got it, with the subject of the client certificate presented. */
  record Received(JsonNode record, String clientSubject) {}

  // The operator reads a Secret at most every 30 s; the rotation step should not wait for that.
  @RegisterExtension
  static final SinkScenario scenario = SinkScenario.in(NS).secretsReadEverySecond();

  private static final List<Received> received = new CopyOnWriteArrayList<>();
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static HttpsServer receiver;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    cluster = scenario.cluster();
    client = scenario.client();
    // The receiver presents a certificate of CA for 127.0.0.1 and localhost and requires a client
    // certificate issued by CA. Later steps replace it on the same port: the one running at the
    // end is stopped.
    receiver = receiver(0, CA.server("127.0.0.1", "localhost").serverContext(CA));
    scenario.closeAfter(() -> receiver.stop(0));
    port = receiver.getAddress().getPort();

    client.secrets().inNamespace(NS).resource(new SecretBuilder()
        .withNewMetadata().withName("receiver-ca").withNamespace(NS).endMetadata()
        .withData(Map.of("ca.crt", base64(CA.certificatePem())))
        .build()).create();
    client.secrets().inNamespace(NS).resource(new SecretBuilder()
        .withNewMetadata().withName("kollect-client").withNamespace(NS).endMetadata()
        .withType("kubernetes.io/tls")
        .withData(Map.of("tls.crt", base64(CLIENT.certificatePem()),
            "tls.key", base64(CLIENT.pkcs8KeyPem())))
        .build()).create();
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: receiver, namespace: %s}
        spec:
          type: http
          http: {url: "https://127.0.0.1:%d/ingest", gzip: true, timeout: 5s}
          batch: {linger: 100ms}
          tls:
            caSecretRef: {name: receiver-ca}
            clientCertSecretRef: {name: kollect-client}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: shop-configmaps, namespace: %s}
        spec: {profileRef: configmaps, scope: {namespaces: [%s]}, sinkRefs: [receiver]}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: app-config, namespace: %s}
        data: {v: "1"}
        """.formatted(NS, port, NS, NS, NS));

    scenario.startOperator();
  }

  /**
   * An HTTPS receiver on 127.0.0.1:{@code port} (0: any) with {@code context}, requiring a client
   * certificate, recording every record of the JSON arrays POSTed to {@code /ingest}.
   */
  private static HttpsServer receiver(int port, SSLContext context) throws IOException {
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(context) {
      @Override
      public void configure(HttpsParameters params) {
        SSLParameters p = context.getDefaultSSLParameters();
        p.setNeedClientAuth(true);
        params.setSSLParameters(p);
      }
    });
    server.createContext("/ingest", ex -> {
      byte[] body = ex.getRequestBody().readAllBytes();
      if ("gzip".equals(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
        body = new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();
      }
      String subject;
      try {
        subject = ((X509Certificate) ((HttpsExchange) ex).getSSLSession().getPeerCertificates()[0])
            .getSubjectX500Principal().getName();
      } catch (SSLPeerUnverifiedException e) {
        subject = null;
      }
      for (JsonNode r : JSON.readTree(body)) {
        received.add(new Received(r, subject));
      }
      ex.sendResponseHeaders(204, -1);
      ex.close();
    });
    server.start();
    return server;
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static List<Received> appConfig(String v) {
    return received.stream().filter(r -> "app-config".equals(r.record().path("name").asText())
        && v.equals(r.record().path("fields").path("v").asText())).toList();
  }

  private static void setConfigMap(String v) {
    client.configMaps().inNamespace(NS).withName("app-config").edit(c -> {
      c.setData(Map.of("v", v));
      return c;
    });
  }

  private static KollectTarget target() {
    return client.resources(KollectTarget.class).inNamespace(NS).withName("shop-configmaps").get();
  }

  private static KollectTargetStatus.SinkStatus sinkStatus(KollectTarget t) {
    assertThat(t.getStatus()).isNotNull();
    assertThat(t.getStatus().sinks()).isNotNull();
    return t.getStatus().sinks().stream().filter(s -> "receiver".equals(s.name())).findFirst()
        .orElseThrow(() -> new AssertionError("no sink receiver in " + t.getStatus().sinks()));
  }

  private static Condition condition(List<Condition> conditions, String type) {
    return RunCommandIT.condition(conditions, type);
  }

  @Test
  @Order(1)
  void recordsReachTheHttpsReceiverOverMutualTlsWithTheCaAndClientCertificateFromSecrets() {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(appConfig("1")).isNotEmpty());
    assertThat(appConfig("1")).extracting(Received::clientSubject)
        .as("the client certificate of Secret kollect-client was presented")
        .containsOnly("CN=kollect-operator");
    // (status.sinks[].lastAcknowledgedTime follows within the engine's 30 s figure throttle; the
    // receiver above is the evidence of delivery)
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTarget t = target();
      assertThat(condition(t.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      assertThat(sinkStatus(t).consecutiveFailures()).isZero();
      assertThat(sinkStatus(t).lastError()).isNull();
      KollectSink s = client.resources(KollectSink.class).inNamespace(NS).withName("receiver")
          .get();
      assertThat(condition(s.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      assertThat(s.getStatus().conditions()).extracting(Condition::getType)
          .doesNotContain("Insecure");
    });
  }

  @Test
  @Order(2)
  void aServerCertificateOfAnotherCaIsNamedInStatusAndRotatingTheCaSecretDeliversWithoutRestart()
      throws Exception {
    // The receiver comes back on the same port with a certificate of a new CA (still requiring
    // the client certificate of the old one): the sink's CA no longer trusts it.
    receiver.stop(0);
    receiver = receiver(port, NEW_CA.server("127.0.0.1", "localhost").serverContext(CA));
    setConfigMap("2");

    String notTrusted = "POST https://127.0.0.1:" + port + "/ingest: server certificate for "
        + "https://127.0.0.1:" + port + " is not trusted by the configured CA (subject CN=server, "
        + "issuer CN=kollect-it-new-ca";
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      KollectTarget t = target();
      KollectTargetStatus.SinkStatus sink = sinkStatus(t);
      assertThat(sink.lastError()).startsWith(notTrusted);
      assertThat(sink.consecutiveFailures()).isGreaterThanOrEqualTo(3);
      assertThat(sink.pending()).isPositive();
      Condition ready = condition(t.getStatus().conditions(), "Ready");
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("SinkDeliveryFailing");
      assertThat(ready.getMessage()).contains("sink " + NS + "/receiver keeps failing")
          .contains(notTrusted);
    });
    assertThat(appConfig("2")).as("nothing reaches a server the sink does not trust").isEmpty();

    // The CA Secret is rotated to the new CA; the same operator delivers the pending change.
    client.secrets().inNamespace(NS).withName("receiver-ca").edit(s -> {
      s.setData(Map.of("ca.crt", base64(NEW_CA.certificatePem())));
      return s;
    });
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
        assertThat(appConfig("2")).isNotEmpty());
    assertThat(appConfig("2")).extracting(Received::clientSubject)
        .containsOnly("CN=kollect-operator");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTarget t = target();
      assertThat(condition(t.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      assertThat(sinkStatus(t).consecutiveFailures()).isZero();
      assertThat(sinkStatus(t).lastError()).isNull();
      assertThat(sinkStatus(t).pending()).isZero();
    });
  }

  @Test
  @Order(3)
  void aReceiverRequiringAnotherClientCaIsNamedInStatusAndRotatingTheClientSecretDelivers()
      throws Exception {
    // The receiver now accepts only client certificates of a new client CA.
    receiver.stop(0);
    receiver = receiver(port, NEW_CA.server("127.0.0.1", "localhost").serverContext(NEW_CLIENT_CA));
    setConfigMap("3");

    String refused = "POST https://127.0.0.1:" + port + "/ingest: TLS connection to "
        + "https://127.0.0.1:" + port + " failed: the server asked for a client certificate "
        + "issued by [CN=kollect-it-new-client-ca]";
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      KollectTarget t = target();
      assertThat(sinkStatus(t).lastError()).startsWith(refused);
      Condition ready = condition(t.getStatus().conditions(), "Ready");
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("SinkDeliveryFailing");
      assertThat(ready.getMessage()).contains(refused);
    });
    assertThat(appConfig("3")).isEmpty();

    // The client Secret is rotated to a certificate of the new client CA.
    TestCertificateAuthority.Issued rotated = NEW_CLIENT_CA.client("kollect-operator-rotated");
    client.secrets().inNamespace(NS).withName("kollect-client").edit(s -> {
      s.setData(Map.of("tls.crt", base64(rotated.certificatePem()),
          "tls.key", base64(rotated.pkcs8KeyPem())));
      return s;
    });
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
        assertThat(appConfig("3")).isNotEmpty());
    assertThat(appConfig("3")).extracting(Received::clientSubject)
        .containsOnly("CN=kollect-operator-rotated");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTarget t = target();
      assertThat(condition(t.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      assertThat(sinkStatus(t).lastError()).isNull();
    });
  }

  @Test
  @Order(4)
  void aSinkWithInsecureSkipVerifyIsReadyWithAnInsecureWarningCondition() {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: unverified, namespace: %s}
        spec:
          type: http
          http: {url: "https://127.0.0.1:%d/ingest"}
          tls: {insecureSkipVerify: true}
        """.formatted(NS, port));
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectSink s = client.resources(KollectSink.class).inNamespace(NS).withName("unverified")
          .get();
      assertThat(s.getStatus()).isNotNull();
      assertThat(condition(s.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      Condition insecure = condition(s.getStatus().conditions(), "Insecure");
      assertThat(insecure.getStatus()).isEqualTo("True");
      assertThat(insecure.getReason()).isEqualTo("InsecureSkipVerify");
      assertThat(insecure.getMessage()).isEqualTo(SinkTranslation.INSECURE_WARNING);
    });
  }
}

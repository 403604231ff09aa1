package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.kafka.KafkaBroker;
import io.kollect.export.kafka.TopicContent;
import io.kollect.operator.LineCapture;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectTarget;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka credentials stay secret, adversarially: {@code kollect run --log-level=trace} with kafka
 * KollectSinks that authenticate with SCRAM-SHA-512 to a real broker, one with the right password
 * and one with a wrong one (so the failure paths log too). Neither password, nor its base64 form,
 * appears in the log (kafka-clients' own trace included), {@code /metrics}, the sinks' and the
 * target's status, or Events.
 */
class KafkaCredentialsLeakIT {

  private static final String NS = "leak";
  private static final String USER = "kollect";
  private static final String PASSWORD = "kafka-Pass-Value-5150";
  private static final String WRONG_PASSWORD = "kafka-Wrong-Value-8086";

  /** The operator of this test is {@code kollect run} on a thread, not the scenario's. */
  @RegisterExtension static final SinkScenario scenario = SinkScenario.in(NS);

  private static TestCluster cluster;
  private static KafkaBroker broker;

  @TempDir static Path tmp;

  @BeforeAll
  static void start() throws Exception {
    cluster = scenario.cluster();
    broker = scenario.closeAfter(KafkaBroker.launchWithScram(USER, PASSWORD));
  }

  @Test
  void noKafkaPasswordReachesTheLogMetricsStatusOrEventsEvenAtTrace() throws Exception {
    KubernetesClient admin = cluster.client();
    String bootstrap = broker.secureBootstrapServers();
    cluster.apply(TestCluster.CONFIGMAP_PROFILE
        + ScramSinks.secret(NS, "kafka-user", "username: " + USER + ", password: " + PASSWORD)
        + ScramSinks.secret(NS, "kafka-wrong", "username: " + USER + ", password: "
            + WRONG_PASSWORD)
        + ScramSinks.sink(NS, "fleet", bootstrap, "inventory-leak", "", "name: kafka-user")
        + ScramSinks.sink(NS, "denied", bootstrap, "inventory-denied", "deliveryTimeout: 3s",
            "name: kafka-wrong") + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: cms, namespace: %1$s}
        spec: {profileRef: configmaps, scope: {namespaces: [%1$s]}, sinkRefs: [fleet, denied]}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cm-1, namespace: %1$s}
        data: {v: "1"}
        """.formatted(NS));
    Path kubeconfig = cluster.writeKubeconfig(tmp);
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    AtomicInteger exit = new AtomicInteger(-1);
    List<String> args = new ArrayList<>(List.of("run", "--kubeconfig", kubeconfig.toString(),
        "--metrics-bind-address", "127.0.0.1:0",
        "--health-probe-bind-address", "0", "--log-level", "trace", "--log-format", "text",
        "--leader-elect-namespace", "kollect-system", "--status-write-interval", "1s",
        // not a tenancy test: the platform trusts the namespace of its target
        "--cluster-wide-namespaces", "kollect-system," + NS));
    Thread thread = new Thread(() -> exit.set(KollectCommand.execute(out.printStream(),
        err.printStream(), args.toArray(String[]::new))), "kollect-run-kafka-trace");
    thread.start();
    String metrics;
    try {
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(() -> TopicContent.fold(broker.bootstrapServers(), "inventory-leak").size() == 1);
      // the wrong password has been tried and refused, and that is in the target's status
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> {
        KollectTarget t = admin.resources(KollectTarget.class).inNamespace(NS).withName("cms")
            .get();
        return t.getStatus() != null && t.getStatus().sinks() != null
            && t.getStatus().sinks().stream().anyMatch(s -> s.name().endsWith("denied")
                && s.lastError() != null);
      });
      metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + err.awaitListeningPort("metrics") + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } finally {
      thread.interrupt();
      thread.join(30_000);
    }

    String log = err.text();
    assertThat(log).as("the log is really at trace: kafka-clients' debug lines are there")
        .contains("DEBUG").contains("org.apache.kafka");
    assertThat(log).as("the SCRAM exchange ran").containsIgnoringCase("SCRAM");
    StringBuilder elsewhere = new StringBuilder(metrics);
    var json = admin.getKubernetesSerialization();
    elsewhere.append(json.asJson(admin.resources(KollectTarget.class).inNamespace(NS).list()));
    elsewhere.append(json.asJson(admin.resources(KollectSink.class).inNamespace(NS).list()));
    elsewhere.append(json.asJson(admin.v1().events().inAnyNamespace().list().getItems()));
    for (String value : List.of(PASSWORD, WRONG_PASSWORD, b64(PASSWORD), b64(WRONG_PASSWORD))) {
      assertThat(log).as("log").doesNotContain(value);
      assertThat(elsewhere.toString()).as("metrics, statuses, events").doesNotContain(value);
    }
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}

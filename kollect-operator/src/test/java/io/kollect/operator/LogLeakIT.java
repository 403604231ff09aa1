package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.testing.TestApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secret values stay out of the log: {@code kollect run --log-level=trace} against a real API
 * server, with a Secret and a Deployment whose env carries a password, authenticated by a bearer
 * token. Neither the Secret's values, nor the env value, nor the token appear in the log, {@code
 * /metrics}, the target's status, Events or the checkpoints.
 */
class LogLeakIT {

  private static final String TOKEN = "leak-test-bearer-0f9e8d7c6b5a";
  private static final String SECRET_VALUE = "s3cr3t-Secret-Value-42";
  private static final String SECRET_VALUE_2 = "rotated-Secret-Value-43";
  private static final String ENV_VALUE = "env-Pass-Value-77";
  private static final String ENV_VALUE_2 = "env-Pass-Value-78";
  private static TestCluster cluster;

  @TempDir static Path tmp;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start(TestApiServer.builder().tokenUser(TOKEN, "kollect-trace",
        "system:masters"));
    cluster.namespace("shop");
    cluster.namespace("kollect-system");
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String deployment(String envValue, int replicas) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: api, namespace: shop}
        spec:
          replicas: %d
          selector: {matchLabels: {app: api}}
          template:
            metadata: {labels: {app: api}}
            spec:
              containers:
                - name: main
                  image: example.org/api:1
                  env: [{name: DB_PASSWORD, value: "%s"}]
        """.formatted(replicas, envValue);
  }

  private static String secret(String value) {
    return """
        apiVersion: v1
        kind: Secret
        metadata: {name: db, namespace: shop}
        stringData: {password: "%s"}
        """.formatted(value);
  }

  @Test
  void nothingSecretReachesTheLogMetricsStatusEventsOrCheckpointsEvenAtTrace() throws Exception {
    KubernetesClient admin = cluster.client();
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: leak}
        spec:
          resources:
            - group: apps
              version: v1
              kind: Deployment
              fields: [{name: replicas, path: "{.spec.replicas}"}]
            - version: v1
              kind: Secret
              fields: [{name: type, path: "{.type}"}]
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: leak, namespace: shop}
        spec: {profileRef: leak, scope: {namespaces: [shop]}, writeInventory: true}
        """);
    cluster.apply(deployment(ENV_VALUE, 1));
    cluster.apply(secret(SECRET_VALUE));
    Path kubeconfig = tmp.resolve("kubeconfig");
    Files.writeString(kubeconfig, cluster.kubeconfigForToken("kollect-trace", TOKEN));
    Path checkpoints = tmp.resolve("checkpoints");
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    AtomicInteger exit = new AtomicInteger(-1);
    List<String> args = new ArrayList<>(List.of("run", "--kubeconfig", kubeconfig.toString(),
        "--stdout", "--metrics-bind-address", "127.0.0.1:0",
        "--health-probe-bind-address", "0", "--log-level", "trace", "--log-format", "text",
        "--checkpoint-dir", checkpoints.toString(), "--leader-elect-namespace", "kollect-system",
        "--status-write-interval", "1s",
        // not a tenancy test: the platform trusts the namespace of its targets
        "--cluster-wide-namespaces", "kollect-system,shop"));
    Thread thread = new Thread(() -> exit.set(KollectCommand.execute(out.printStream(),
        err.printStream(), args.toArray(String[]::new))), "kollect-run-trace");
    thread.start();
    String metrics;
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> out.text().contains("\"name\":\"api\"")
          && out.text().contains("\"name\":\"db\""));
      // Changes travel through watches, whose events carry the whole objects.
      cluster.apply(deployment(ENV_VALUE_2, 2));
      cluster.apply(secret(SECRET_VALUE_2));
      await().atMost(Duration.ofSeconds(60)).until(() -> out.text().contains("\"replicas\":2"));
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        KollectTarget t = admin.resources(KollectTarget.class).inNamespace("shop")
            .withName("leak").get();
        return t.getStatus() != null && t.getStatus().objects() != null && t.getStatus()
            .objects() == 2;
      });
      metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + err.awaitListeningPort("metrics") + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } finally {
      thread.interrupt();
      thread.join(30_000);
    }

    String log = err.text();
    assertThat(log).as("the log is really at trace: library debug lines are there")
        .contains("DEBUG").contains("io.fabric8");
    List<String> forbidden = List.of(TOKEN, SECRET_VALUE, SECRET_VALUE_2, b64(SECRET_VALUE),
        b64(SECRET_VALUE_2), ENV_VALUE, ENV_VALUE_2);
    StringBuilder elsewhere = new StringBuilder();
    elsewhere.append(metrics);
    elsewhere.append(admin.getKubernetesSerialization().asJson(
        admin.resources(KollectTarget.class).inNamespace("shop").withName("leak").get()
            .getStatus()));
    elsewhere.append(admin.getKubernetesSerialization().asJson(
        admin.v1().events().inAnyNamespace().list().getItems()));
    elsewhere.append(admin.getKubernetesSerialization().asJson(
        admin.resources(KollectInventory.class).inNamespace("shop").list().getItems()));
    try (Stream<Path> files = Files.walk(checkpoints)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        elsewhere.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      }
    }
    for (String value : forbidden) {
      assertThat(log).as("log").doesNotContain(value);
      assertThat(elsewhere.toString()).as("metrics, status, events, inventory, checkpoints")
          .doesNotContain(value);
    }
    assertThat(log).doesNotContainIgnoringCase("authorization: bearer");
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}

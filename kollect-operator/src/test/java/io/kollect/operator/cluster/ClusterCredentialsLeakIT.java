package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.operator.LineCapture;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.crd.KollectCluster;
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
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remote cluster credentials stay secret: {@code kollect run --log-level=trace} reading a remote
 * cluster twice, from a {@code --cluster} kubeconfig file and from a KollectCluster's Secret that
 * is then rotated, plus a KollectCluster whose kubeconfig is refused. None of the bearer tokens
 * (nor their base64, nor a refused exec plugin's arguments) appear in the log, {@code /metrics},
 * the statuses of targets and KollectClusters, or Events.
 */
class ClusterCredentialsLeakIT {

  private static final String FILE_TOKEN = "file-cluster-token-5e6f7a8b";
  private static final String SECRET_TOKEN = "secret-cluster-token-1a2b3c4d";
  private static final String ROTATED_TOKEN = "rotated-cluster-token-9c8d7e6f";
  private static final String EXEC_ARG = "exec-plugin-password-31415";

  private static TestCluster home;
  private static TestApiServer remote;

  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    home = TestCluster.start();
    home.namespace("kollect-system");
    home.namespace("shop");
    remote = TestApiServer.builder()
        .tokenUser(FILE_TOKEN, "file-user", "system:masters")
        .tokenUser(SECRET_TOKEN, "secret-user", "system:masters")
        .tokenUser(ROTATED_TOKEN, "rotated-user", "system:masters").start();
    remote.namespace("apps");
    remote.admin().configMaps().inNamespace("apps").resource(new ConfigMapBuilder()
        .withNewMetadata().withName("settings").endMetadata().withData(Map.of("v", "1")).build())
        .create();
  }

  @AfterAll
  static void stop() {
    if (remote != null) {
      remote.close();
    }
    if (home != null) {
      home.close();
    }
  }

  private static void secret(String name, String kubeconfig) {
    home.client().secrets().inNamespace("shop").resource(new SecretBuilder().withNewMetadata()
        .withName(name).endMetadata().withStringData(Map.of("value", kubeconfig)).build())
        .createOr(NonDeletingOperation::update);
  }

  @Test
  void noClusterCredentialReachesTheLogMetricsStatusOrEventsEvenAtTrace() throws Exception {
    KubernetesClient admin = home.client();
    secret("east-kc", remote.kubeconfigForToken("secret-user", SECRET_TOKEN));
    secret("exec-kc", remote.kubeconfigForToken("secret-user", SECRET_TOKEN).replace(
        "      token: " + SECRET_TOKEN + "\n", "      exec:\n        command: /bin/echo\n"
            + "        args: [\"" + EXEC_ARG + "\"]\n"));
    home.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: kollect.io/v1alpha1
        kind: KollectCluster
        metadata: {name: east-secret, namespace: shop}
        spec: {kubeConfig: {secretRef: {name: east-kc}}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectCluster
        metadata: {name: east-exec, namespace: shop}
        spec: {kubeConfig: {secretRef: {name: exec-kc}}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: from-secret, namespace: shop}
        spec: {profileRef: configmaps, scope: {namespaces: [apps]}, clusterRef: {name: east-secret}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: from-file, namespace: shop}
        spec: {profileRef: configmaps, scope: {namespaces: [apps]}, clusterRef: {name: east-file}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: from-exec, namespace: shop}
        spec: {profileRef: configmaps, scope: {namespaces: [apps]}, clusterRef: {name: east-exec}}
        """);
    Path homeKubeconfig = home.writeKubeconfig(tmp);
    Path fileCluster = Files.writeString(tmp.resolve("east-file.yaml"),
        remote.kubeconfigForToken("file-user", FILE_TOKEN));
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    AtomicInteger exit = new AtomicInteger(-1);
    List<String> args = new ArrayList<>(List.of("run", "--kubeconfig", homeKubeconfig.toString(),
        "--cluster", "east-file=" + fileCluster, "--stdout",
        "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "0",
        "--log-level", "trace", "--log-format", "text",
        "--checkpoint-dir", tmp.resolve("checkpoints").toString(),
        "--leader-elect-namespace", "kollect-system", "--status-write-interval", "1s",
        // the file cluster serves targets of trusted namespaces
        "--cluster-wide-namespaces", "kollect-system,shop"));
    Thread thread = new Thread(() -> exit.set(KollectCommand.execute(out.printStream(),
        err.printStream(), args.toArray(String[]::new))), "kollect-run-clusters-trace");
    thread.start();
    String metrics;
    try {
      await().atMost(Duration.ofSeconds(90)).until(() ->
          out.text().contains("\"cluster\":\"east-file\"")
              && out.text().contains("\"cluster\":\"east-secret\""));
      secret("east-kc", remote.kubeconfigForToken("rotated-user", ROTATED_TOKEN));
      remote.admin().configMaps().inNamespace("apps").withName("settings")
          .edit(c -> new ConfigMapBuilder(c).withData(Map.of("v", "2")).build());
      await().atMost(Duration.ofSeconds(60)).until(() -> out.text().contains("\"v\":\"2\""));
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        KollectCluster exec = admin.resources(KollectCluster.class).inNamespace("shop")
            .withName("east-exec").get();
        assertThat(exec.getStatus()).isNotNull();
        assertThat(exec.getStatus().conditions().get(0).getReason())
            .isEqualTo("InvalidKubeConfig");
        assertThat(admin.resources(KollectTarget.class).inNamespace("shop").withName("from-exec")
            .get().getStatus()).isNotNull();
      });
      // The cluster's meters appear with its first health report (checked every second).
      URI metricsUri = URI.create("http://127.0.0.1:" + err.awaitListeningPort("metrics") + "/metrics");
      await().atMost(Duration.ofSeconds(30)).until(() -> scrape(metricsUri)
          .contains("kollect_cluster_watches{cluster=\"east-secret\"}"));
      metrics = scrape(metricsUri);
    } finally {
      thread.interrupt();
      thread.join(30_000);
    }

    String log = err.text();
    assertThat(log).as("the log is really at trace").contains("DEBUG").contains("io.fabric8");
    StringBuilder elsewhere = new StringBuilder(metrics);
    var json = admin.getKubernetesSerialization();
    elsewhere.append(json.asJson(admin.resources(KollectTarget.class).inNamespace("shop").list()));
    elsewhere.append(json.asJson(admin.resources(KollectCluster.class).inNamespace("shop").list()));
    elsewhere.append(json.asJson(admin.v1().events().inAnyNamespace().list().getItems()));
    for (String value : List.of(FILE_TOKEN, SECRET_TOKEN, ROTATED_TOKEN, EXEC_ARG)) {
      for (String form : List.of(value, b64(value))) {
        assertThat(log).as("log").doesNotContain(form);
        assertThat(elsewhere.toString()).as("metrics, status, events").doesNotContain(form);
        assertThat(out.text()).as("records").doesNotContain(form);
      }
    }
    assertThat(log).doesNotContainIgnoringCase("authorization: bearer");
  }

  private static String scrape(URI uri) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}

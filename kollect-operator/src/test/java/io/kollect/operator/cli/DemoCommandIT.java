package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.operator.LineCapture;
import io.kollect.operator.cli.KollectCommand;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kollect demo}, the README's first command, end to end with the bundled samples and the
 * second cluster ({@code edge}) of the fleet view.
 */
class DemoCommandIT {

  private static final Pattern EDGE_QUERY =
      Pattern.compile("Bearer \\$\\(cat (\\S+)\\)\\\" '(http://\\S+/inventory\\?cluster=edge)'");

  @TempDir Path tmp;

  @Test
  void theDemoRunsTheSampleCatalogOnTwoClustersPrintsRecordsOfBothAndTheSummaryAndStopsBothApiServers()
      throws Exception {
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    // The duration counts from after the how-to, the SQL answer and the first table: 4 s leave
    // one local HTTP request plenty of time, and are the only fixed wait of this test.
    CompletableFuture<Integer> demo = CompletableFuture.supplyAsync(() ->
        KollectCommand.execute(out.printStream(), err.printStream(), "demo", "--duration", "4s",
            "--dir", tmp.toString(), "--inventory-address", "127.0.0.1:0"));

    // While it runs: /inventory?cluster=edge answers with the edge cluster's records only.
    Matcher how = await().atMost(Duration.ofMinutes(3)).until(
        () -> EDGE_QUERY.matcher(err.text()), m -> m.find() || demo.isDone());
    assertThat(demo.isDone()).as(err.text()).isFalse();
    String token = Files.readString(Path.of(how.group(1))).trim();
    HttpResponse<String> edgeInventory = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(how.group(2)))
            .header("Authorization", "Bearer " + token).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(edgeInventory.statusCode()).isEqualTo(200);
    ObjectMapper json = new ObjectMapper();
    JsonNode edgeRecords = json.readTree(edgeInventory.body());
    assertThat(edgeRecords).extracting(r -> r.get("cluster").asText() + " " + r.get("target")
        .asText() + " " + r.get("name").asText())
        .containsExactly("edge kollect-demo/fleet-deployments checkout-api",
            "edge kollect-demo/fleet-deployments edge-gateway");

    int exit = demo.get();
    assertThat(exit).as(err.text()).isZero();

    List<JsonNode> records = out.lines().stream().map(l -> {
      try {
        return json.readTree(l);
      } catch (Exception e) {
        throw new AssertionError("stdout is not pure JSON lines: " + l, e);
      }
    }).toList();
    Set<String> targets = records.stream().map(r -> r.get("target").asText())
        .collect(Collectors.toSet());
    // Every bundled sample's target exported its records, and the fleet target too.
    try (var samples = Files.list(Path.of("target/classes/kollect/samples"))) {
      Set<String> expected = samples.filter(Files::isDirectory)
          .map(p -> "kollect-demo/" + p.getFileName()).collect(Collectors.toSet());
      assertThat(expected).isNotEmpty();
      expected.add("kollect-demo/fleet-deployments");
      assertThat(targets).containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThat(out.lines()).allSatisfy(l -> assertThat(l).contains("\"op\":\"UPSERT\""));
    // The same namespace/name on both clusters: two records, told apart by cluster.
    assertThat(records.stream()
        .filter(r -> r.get("name").asText().equals("checkout-api")
            && r.get("resource").get("kind").asText().equals("Deployment"))
        .map(r -> r.get("cluster").asText() + " " + r.get("target").asText()
            + " " + r.get("fields").get("replicas").asInt()))
        .containsExactlyInAnyOrder("demo kollect-demo/deployment-inventory 3",
            "edge kollect-demo/fleet-deployments 2");

    String messages = err.text();
    assertThat(messages).contains("TARGET", "CLUSTER", "PROFILE", "READY", "OBJECTS", "LAST EXPORT");
    assertThat(messages).containsPattern(
        "kollect-demo/deployment-inventory +demo +deployment-inventory +True");
    assertThat(messages).containsPattern(
        "kollect-demo/fleet-deployments +edge +deployment-inventory +True +2 apps/v1/Deployment");
    assertThat(messages).containsPattern("kollect-demo/edge +edge +True +Connected +v?1\\.20");
    assertThat(messages).contains("export KUBECONFIG=" + tmp.resolve("kubeconfig").toAbsolutePath());
    assertThat(messages).contains("--kubeconfig " + tmp.resolve("kubeconfig-edge").toAbsolutePath());
    assertThat(messages).contains("Authorization: Bearer");
    assertThat(tmp.resolve("inventory-token")).isNotEmptyFile();

    // Both embedded API servers are gone once the demo returns.
    for (String kubeconfigFile : new String[] {"kubeconfig", "kubeconfig-edge"}) {
      Config config = Config.fromKubeconfig(Files.readString(tmp.resolve(kubeconfigFile)));
      config.setRequestRetryBackoffLimit(0);
      config.setConnectionTimeout(2000);
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.namespaces().list())
            .as(kubeconfigFile)
            .isInstanceOf(io.fabric8.kubernetes.client.KubernetesClientException.class);
      }
    }
  }
}

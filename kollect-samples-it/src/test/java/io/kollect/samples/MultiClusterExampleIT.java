package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kollect.core.ClientJson;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.OperatorConfig;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.testing.TestApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The golden check of {@code docs/examples/multi-cluster/}: its files, as a user would apply them,
 * on three real API servers (the management cluster the operator runs in, and the two workload
 * clusters its KollectClusters name), through the operator in-process as {@code kollect run} hosts
 * it. The records delivered (its {@code --stdout} sink) and those in the KollectInventory objects
 * must equal the folder's {@code expected.jsonl}, ignoring only what the API server assigns or the
 * clock decides ({@link #IGNORED}); {@code cluster} and {@code target} are compared.
 *
 * <p>The example's Secrets hold placeholder kubeconfigs; the test replaces each {@code value} with
 * a real one of the same shape (server, inline CA, a token of the {@code kollect-reader} user that
 * the example's {@code workload-rbac.yaml} lets read Deployments). Run with {@code
 * -Dkollect.golden.update=true} to rewrite {@code expected.jsonl}, then review it.
 */
class MultiClusterExampleIT {

  static final Path EXAMPLE = SamplePaths.repoRoot().resolve("docs/examples/multi-cluster");
  static final String TARGET = "platform/prod-deployments";
  static final Set<String> IGNORED = Set.of("observedAt", "uid", "resourceVersion", "sequence");
  private static final Duration CONVERGE = Duration.ofSeconds(120);

  private static TestApiServer management;
  private static final Map<String, TestApiServer> workloads = new LinkedHashMap<>();
  private static KollectOperator operator;
  private static final LineCapture exported = new LineCapture();

  @BeforeAll
  static void applyTheExampleAndRunTheOperator() throws IOException {
    management = TestApiServer.builder().reused().start();
    for (String cluster : List.of("prod-eu-1", "prod-us-1")) {
      TestApiServer server = TestApiServer.builder()
          .tokenUser(token(cluster), "kollect-reader", "kollect-readers").start();
      workloads.put(cluster, server);
      Sample.readAll(List.of(EXAMPLE.resolve("workload-rbac.yaml")))
          .forEach(d -> Fixtures.apply(server.admin(), d));
      Fixtures.ensureNamespace(server.admin(), "shop");
      Fixtures.create(server.admin(), Sample.readAll(
          Fixtures.yamlFilesIn(EXAMPLE.resolve("fixtures").resolve(cluster))));
    }
    var client = management.admin();
    Fixtures.installCrdDir(client, SamplePaths.repoRoot().resolve("deploy/crds"));
    Fixtures.ensureNamespace(client, "platform");
    Path checkpoints = Files.createTempDirectory("kollect-multi-cluster-it");
    operator = new KollectOperator(client, OperatorConfig.builder().clusterName("management")
        .workers(2).resyncPeriod(Duration.ofHours(10)).metricsAddress(BindAddress.loopback(0))
        .probeAddress(BindAddress.loopback(0)).inventoryAuth(InventoryAuth.none())
        .checkpointDir(Optional.of(checkpoints)).operatorNamespace("default")
        .stdoutRecords(Optional.of(exported.printStream()))
        .statusWriteInterval(Duration.ofMillis(500)).build());
    operator.start();
    Fixtures.apply(client, Sample.readOne(EXAMPLE.resolve("profile.yaml")));
    for (JsonNode doc : Sample.readAll(List.of(EXAMPLE.resolve("clusters.yaml")))) {
      Fixtures.apply(client, withRealKubeconfig(doc));
    }
    Fixtures.apply(client, Sample.readOne(EXAMPLE.resolve("target.yaml")));
  }

  private static String token(String cluster) {
    return "kollect-reader-" + cluster + "-token";
  }

  /** A Secret of the example with its placeholder kubeconfig replaced by a real one. */
  private static JsonNode withRealKubeconfig(JsonNode doc) {
    if (!"Secret".equals(doc.path("kind").asText())) {
      return doc;
    }
    String name = doc.path("metadata").path("name").asText();
    String cluster = name.substring(0, name.length() - "-kubeconfig".length());
    TestApiServer server = workloads.get(cluster);
    assertThat(server).as("a workload cluster for Secret %s", name).isNotNull();
    assertThat(doc.path("stringData").path("value").asText())
        .as("the example's Secret %s holds a kubeconfig under key value", name)
        .contains("kind: Config", "certificate-authority-data:", "token:");
    ObjectNode copy = doc.deepCopy();
    ((ObjectNode) copy.path("stringData"))
        .put("value", server.kubeconfigForToken("kollect-reader", token(cluster)));
    return copy;
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    workloads.values().forEach(TestApiServer::close);
    if (management != null) {
      management.close();
    }
  }

  @Test
  void deliveredRecordsOfBothClustersEqualTheGolden() throws IOException {
    Path golden = EXAMPLE.resolve("expected.jsonl");
    if (Boolean.getBoolean("kollect.golden.update")) {
      await().atMost(CONVERGE).until(() -> current(exported.records()).size() == 4);
      List<String> lines = new ArrayList<>();
      for (JsonNode r : current(exported.records())) {
        ObjectNode copy = r.deepCopy();
        copy.remove("sequence");
        copy.put("observedAt", "1970-01-01T00:00:00Z");
        copy.putNull("uid");
        copy.putNull("resourceVersion");
        lines.add(Sample.JSON.writeValueAsString(copy));
      }
      Files.write(golden, lines);
    }
    List<JsonNode> expected = comparable(Sample.readGolden(golden));
    await().atMost(CONVERGE).untilAsserted(() ->
        assertThat(comparable(current(exported.records())))
            .as("records delivered for %s", TARGET)
            .isEqualTo(expected));
  }

  @Test
  void inventoryObjectsHoldTheGoldenPerCluster() {
    List<JsonNode> expected = comparable(Sample.readGolden(EXAMPLE.resolve("expected.jsonl")));
    await().atMost(CONVERGE).untilAsserted(() -> {
      List<JsonNode> records = new ArrayList<>();
      List<String> objects = new ArrayList<>();
      for (KollectInventory inv : management.admin().resources(KollectInventory.class)
          .inNamespace("platform").withLabel("kollect.io/target", "prod-deployments")
          .list().getItems()) {
        inv.getSpec().records().forEach(r -> records.add(ClientJson.fromClient(r)));
        objects.add(inv.getMetadata().getName() + " "
            + inv.getMetadata().getLabels().get("kollect.io/cluster"));
      }
      assertThat(comparable(records)).isEqualTo(expected);
      // One object per (cluster, target), as the example's page says.
      assertThat(objects).containsExactlyInAnyOrder("prod-deployments-prod-eu-1-0 prod-eu-1",
          "prod-deployments-prod-us-1-0 prod-us-1");
    });
  }

  @Test
  void theTargetAndBothKollectClustersReportReady() {
    await().atMost(CONVERGE).untilAsserted(() -> {
      KollectTarget target = management.admin().resources(KollectTarget.class)
          .inNamespace("platform").withName("prod-deployments").get();
      assertThat(target.getStatus()).isNotNull();
      assertThat(target.getStatus().clusters()).extracting(KollectTargetStatus.ClusterEntry::name,
              KollectTargetStatus.ClusterEntry::ready, KollectTargetStatus.ClusterEntry::objects)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple("prod-eu-1", true, 2),
              org.assertj.core.groups.Tuple.tuple("prod-us-1", true, 2));
      assertThat(target.getStatus().conditions()).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("Ready");
        assertThat(c.getStatus()).isEqualTo("True");
      });
      for (KollectCluster c : management.admin().resources(KollectCluster.class)
          .inNamespace("platform").list().getItems()) {
        assertThat(c.getStatus()).as(c.getMetadata().getName()).isNotNull();
        assertThat(c.getStatus().conditions()).as(c.getMetadata().getName()).anySatisfy(x -> {
          assertThat(x.getType()).isEqualTo("Ready");
          assertThat(x.getStatus()).isEqualTo("True");
          assertThat(x.getReason()).isEqualTo("Connected");
        });
      }
    });
  }

  /** The target's current records: the latest per (cluster, key), UPSERTs only. */
  static List<JsonNode> current(List<JsonNode> records) {
    Map<String, JsonNode> latest = new LinkedHashMap<>();
    for (JsonNode r : records) {
      if (TARGET.equals(r.path("target").asText())) {
        latest.put(r.path("cluster").asText() + "|" + Sample.key(r), r);
      }
    }
    return latest.values().stream().filter(r -> "UPSERT".equals(r.path("op").asText()))
        .sorted(ORDER).toList();
  }

  private static final Comparator<JsonNode> ORDER = Comparator
      .comparing((JsonNode r) -> r.path("cluster").asText()).thenComparing(Sample::key);

  static List<JsonNode> comparable(List<JsonNode> records) {
    return records.stream().map(r -> {
      ObjectNode copy = r.deepCopy();
      copy.remove(IGNORED);
      return (JsonNode) copy;
    }).sorted(ORDER).toList();
  }
}

package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.testing.TestApiServer;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * End to end, what ships: the packaged operator jar as a separate process against a real API
 * server, authenticated as the ServiceAccount of the shipped deploy manifests and authorised only
 * by the shipped RBAC (a missing permission fails this test), with every sample applied and an
 * {@code http} KollectSink pointing at a loopback receiver that counts deliveries per object.
 *
 * <p>The two tests are one scenario in order: the second kills the process the first started.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperatorE2EIT {
  private static final String SA_NAMESPACE = "kollect-system";
  private static final String SA_NAME = "kollect";
  private static final String SA_USER = "system:serviceaccount:" + SA_NAMESPACE + ":" + SA_NAME;
  private static final String SINK = "e2e-receiver";
  /** Kinds of the shipped manifests that make up the operator's identity and permissions. */
  private static final Set<String> ACCESS_KINDS = Set.of(
      "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");
  private static final Duration CONVERGE = Duration.ofSeconds(120);

  private static final String apiToken = UUID.randomUUID().toString();
  private static final String inventoryToken = UUID.randomUUID().toString();
  private static Path work;
  private static ApiServer server;
  private static KubernetesClient admin;
  private static RecordReceiver receiver;
  private static OperatorProcess operator;
  /** Set when the first run has converged: the restart scenario starts from that state. */
  private static boolean firstRunConverged;
  private static List<String> runArgs;
  private static final List<Sample> samples = Sample.all();

  @BeforeAll
  static void clusterWithTheShippedAccessAndAllSamples() throws IOException {
    work = SamplePaths.moduleDir().resolve("target/e2e");
    deleteRecursively(work);
    Files.createDirectories(work);
    server = ApiServer.start(TestApiServer.builder().tokenUser(apiToken, SA_USER,
        "system:serviceaccounts", "system:serviceaccounts:" + SA_NAMESPACE));
    admin = server.admin();

    Path deploy = SamplePaths.repoRoot().resolve("deploy");
    Fixtures.installCrdDir(admin, deploy.resolve("crds"));
    List<JsonNode> access = shippedAccessManifests(deploy);
    assertThat(access)
        .as("deploy/ defines the ServiceAccount %s/%s", SA_NAMESPACE, SA_NAME)
        .anySatisfy(doc -> {
          assertThat(doc.path("kind").asText()).isEqualTo("ServiceAccount");
          assertThat(doc.path("metadata").path("name").asText()).isEqualTo(SA_NAME);
          assertThat(doc.path("metadata").path("namespace").asText()).isEqualTo(SA_NAMESPACE);
        });
    access.stream().filter(d -> d.path("kind").asText().equals("Namespace"))
        .forEach(d -> Fixtures.apply(admin, d));
    access.stream().filter(d -> !d.path("kind").asText().equals("Namespace"))
        .forEach(d -> Fixtures.apply(admin, d));

    Fixtures.ensureNamespace(admin, Sample.NAMESPACE);
    // The shipped operator runs with the tenant boundary on: the sample targets read as
    // kollect-demo's default ServiceAccount, which the catalog's Role lets read the sample kinds.
    Sample.readAll(List.of(SamplePaths.repoRoot().resolve("samples/tenant-rbac.yaml")))
        .forEach(d -> Fixtures.apply(admin, d));
    for (Sample sample : samples) {
      Fixtures.installCrds(admin, sample.crds());
    }
    for (Sample sample : samples) {
      Fixtures.create(admin, sample.inputs());
    }
    receiver = new RecordReceiver();
    Fixtures.apply(admin, Sample.YAML.readTree(
        "apiVersion: kollect.io/v1alpha1\n"
            + "kind: KollectSink\n"
            + "metadata: {name: " + SINK + ", namespace: " + Sample.NAMESPACE + "}\n"
            + "spec:\n"
            + "  type: http\n"
            + "  http: {url: '" + receiver.url() + "'}\n"
            + "  batch: {maxSize: 100, linger: 200ms}\n"
            // No heartbeat: every delivery the receiver counts is a change the operator exported.
            + "  heartbeatInterval: 0s\n"));
    for (Sample sample : samples) {
      Fixtures.apply(admin, sample.profile());
      ObjectNode target = sample.target().deepCopy();
      ((ObjectNode) target.path("spec")).putArray("sinkRefs").add(SINK);
      Fixtures.apply(admin, target);
    }

    Path kubeconfig = server.writeKubeConfigForToken(work.resolve("kubeconfig"), SA_NAME, apiToken);
    Path inventoryTokenFile = Files.writeString(work.resolve("inventory-token"), inventoryToken);
    runArgs = List.of(
        "--kubeconfig", kubeconfig.toString(),
        "--cluster-name", "e2e",
        "--leader-elect",
        "--leader-elect-namespace", SA_NAMESPACE,
        "--leader-elect-lease-duration", "4s",
        "--leader-elect-renew-deadline", "3s",
        "--leader-elect-retry-period", "1s",
        "--inventory-token-file", inventoryTokenFile.toString(),
        "--log-format", "text");
  }

  @AfterAll
  static void stopEverything() throws InterruptedException {
    if (operator != null) {
      operator.close();
    }
    if (receiver != null) {
      receiver.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  @Order(1)
  void theShippedOperatorServesEverySampleAsItsServiceAccount() {
    operator = OperatorProcess.start(work, "run-1", runArgs);
    try {
      awaitReady();
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("operator not ready; its stderr:\n" + operator.stderrText(), e);
    }

    for (Sample sample : samples) {
      await().atMost(CONVERGE).untilAsserted(() -> assertTargetReady(sample));
    }
    for (Sample sample : samples) {
      await().atMost(CONVERGE).untilAsserted(() -> {
        List<JsonNode> records = inventory(sample);
        assertThat(GoldenRecords.comparable(records))
            .as("/inventory of %s", sample.targetId())
            .isEqualTo(GoldenRecords.comparable(sample.expected()));
        GoldenRecords.assertAllOfTarget(records, sample.targetId());
      });
    }
    assertThat(operator.getMetricsListener("/inventory", null).statusCode()).isEqualTo(401);
    assertThat(operator.getMetricsListener("/inventory", "not-the-token").statusCode()).isEqualTo(403);

    int goldenTotal = samples.stream().mapToInt(s -> s.expected().size()).sum();
    for (Sample sample : samples) {
      await().atMost(CONVERGE).untilAsserted(() ->
          assertThat(GoldenRecords.comparable(
                  GoldenRecords.currentState(receiver.records(), sample.targetId())))
              .as("records delivered to the http sink for %s", sample.targetId())
              .isEqualTo(GoldenRecords.comparable(sample.expected())));
    }
    assertEachGoldenRecordDeliveredOnce(Set.of());
    await().atMost(CONVERGE).untilAsserted(() ->
        assertThat(recordsSentToSink(operator.getMetricsListener("/metrics", null).body()))
            .as("kollect_export_records_sent for sink %s", SINK)
            .isGreaterThanOrEqualTo(goldenTotal));
    firstRunConverged = true;
  }

  @Test
  @Order(2)
  void afterAHardKillItConvergesWithoutResendingUnchangedRecords() throws InterruptedException {
    assertThat(firstRunConverged)
        .as("the first run converged (see theShippedOperatorServesEverySampleAsItsServiceAccount)")
        .isTrue();
    operator.killHard();

    Sample deployments = sample("deployment-inventory");
    Sample services = sample("service-endpoints");
    admin.apps().deployments().inNamespace(Sample.NAMESPACE).withName("checkout-api")
        .edit(d -> {
          d.getSpec().setReplicas(5);
          return d;
        });
    admin.services().inNamespace(Sample.NAMESPACE).withName("payments-gateway").delete();
    String changedKey = "apps/Deployment/" + Sample.NAMESPACE + "/checkout-api";
    String deletedKey = "/Service/" + Sample.NAMESPACE + "/payments-gateway";

    operator = OperatorProcess.start(work, "run-2", runArgs);
    try {
      awaitReady();
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("operator not ready after restart; its stderr:\n"
          + operator.stderrText(), e);
    }

    await().atMost(CONVERGE).untilAsserted(() -> {
      assertThat(receiver.count(deployments.targetId(), changedKey, "UPSERT")).isGreaterThanOrEqualTo(2);
      assertThat(receiver.count(services.targetId(), deletedKey, "DELETE")).isGreaterThanOrEqualTo(1);
    });
    assertThat(receiver.count(deployments.targetId(), changedKey, "UPSERT"))
        .as("UPSERTs of the changed %s: the first run's and one after the restart", changedKey)
        .isEqualTo(2);
    assertThat(receiver.count(services.targetId(), deletedKey, "DELETE"))
        .as("tombstones of %s, deleted while the operator was down", deletedKey)
        .isEqualTo(1);
    JsonNode reexported = GoldenRecords.latestByKey(receiver.records(), deployments.targetId())
        .get(changedKey);
    assertThat(reexported.path("fields").path("replicas").asInt()).isEqualTo(5);

    // The restarted operator has reconciled every target once /inventory shows the new state.
    for (Sample sample : samples) {
      List<JsonNode> expected = expectedAfterChanges(sample, changedKey, deletedKey);
      await().atMost(CONVERGE).untilAsserted(() ->
          assertThat(withoutHashOf(changedKey, GoldenRecords.comparable(inventory(sample))))
              .as("/inventory of %s after the restart", sample.targetId())
              .isEqualTo(expected));
    }
    // Linger and a slow sink must not hide a late re-send: the delivery count holds still.
    int delivered = receiver.records().size();
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
        .until(() -> receiver.records().size() == delivered);
    assertEachGoldenRecordDeliveredOnce(Set.of(changedKey, deletedKey));
    assertThat(receiver.count(services.targetId(), deletedKey, "UPSERT")).isEqualTo(1);
  }

  private static void awaitReady() {
    await().atMost(CONVERGE).pollInterval(Duration.ofMillis(500))
        .failFast("the operator process exited", () -> !operator.isAlive())
        // Connection refused until the process listens.
        .ignoreExceptionsInstanceOf(java.io.UncheckedIOException.class)
        .untilAsserted(() ->
            assertThat(operator.getProbe("/readyz").statusCode()).isEqualTo(200));
  }

  private static void assertTargetReady(Sample sample) {
    KollectTarget target = admin.resources(KollectTarget.class)
        .inNamespace(Sample.NAMESPACE).withName(sample.name()).get();
    assertThat(target.getStatus()).as("status of %s", sample.targetId()).isNotNull();
    assertThat(target.getStatus().conditions())
        .as("conditions of %s", sample.targetId())
        .anySatisfy(c -> {
          assertThat(c.getType()).isEqualTo("Ready");
          assertThat(c.getStatus()).isEqualTo("True");
        });
    assertThat(target.getStatus().objectCounts()).isEqualTo(SampleLiveIT.expectedCounts(sample));
  }

  /** Every golden record of every sample arrived exactly once as an UPSERT, except {@code skip}. */
  private static void assertEachGoldenRecordDeliveredOnce(Set<String> skip) {
    for (Sample sample : samples) {
      for (JsonNode golden : sample.expected()) {
        String key = Sample.key(golden);
        if (!skip.contains(key)) {
          assertThat(receiver.count(sample.targetId(), key, "UPSERT"))
              .as("UPSERTs of %s for %s", key, sample.targetId())
              .isEqualTo(1);
        }
      }
    }
  }

  private static List<JsonNode> inventory(Sample sample) {
    HttpResponse<String> response = operator.getMetricsListener(
        "/inventory?target=" + URLEncoder.encode(sample.targetId(), StandardCharsets.UTF_8),
        inventoryToken);
    assertThat(response.statusCode()).as("/inventory: %s", response.body()).isEqualTo(200);
    List<JsonNode> records = new ArrayList<>();
    try {
      Sample.JSON.readTree(response.body()).forEach(records::add);
    } catch (IOException e) {
      throw new AssertionError("/inventory did not answer JSON: " + response.body(), e);
    }
    return records;
  }

  /** The golden records after replicas 3 -> 5 on {@code changedKey} and deleting {@code deletedKey}. */
  private static List<JsonNode> expectedAfterChanges(Sample sample, String changedKey, String deletedKey) {
    List<JsonNode> expected = new ArrayList<>();
    for (JsonNode golden : sample.expected()) {
      String key = Sample.key(golden);
      if (key.equals(deletedKey)) {
        continue;
      }
      ObjectNode record = golden.deepCopy();
      if (key.equals(changedKey)) {
        ((ObjectNode) record.path("fields")).put("replicas", 5);
      }
      expected.add(record);
    }
    return withoutHashOf(changedKey, GoldenRecords.comparable(expected));
  }

  /** The changed record's hash cannot come from the golden file; every other hash must match. */
  private static List<JsonNode> withoutHashOf(String key, List<JsonNode> records) {
    return records.stream().map(r -> {
      if (!Sample.key(r).equals(key)) {
        return r;
      }
      ObjectNode copy = r.deepCopy();
      assertThat(copy.path("contentHash").asText()).isNotEmpty();
      copy.remove("contentHash");
      return (JsonNode) copy;
    }).toList();
  }

  /** Sum of {@code kollect_export_records_sent} over the series whose labels name our sink. */
  static double recordsSentToSink(String prometheusText) {
    Pattern series = Pattern.compile("^kollect_export_records_sent(?:_total)?\\{([^}]*)\\}\\s+(\\S+)",
        Pattern.MULTILINE);
    Matcher m = series.matcher(prometheusText);
    double sum = 0;
    while (m.find()) {
      if (m.group(1).contains(SINK)) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }

  private static Sample sample(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  /** The shipped manifests that define the operator's namespace, identity and permissions. */
  static List<JsonNode> shippedAccessManifests(Path deploy) throws IOException {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(deploy)) {
      files = walk.filter(Files::isRegularFile)
          .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .filter(p -> !p.startsWith(deploy.resolve("crds")))
          .sorted()
          .toList();
    }
    return Sample.readAll(files).stream()
        .filter(doc -> ACCESS_KINDS.contains(doc.path("kind").asText()))
        .filter(doc -> doc.path("metadata").has("name"))
        .toList();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

}

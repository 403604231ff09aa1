package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.ClientJson;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.OperatorConfig;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample on one real API server, run by the operator in-process exactly as {@code kollect
 * run} hosts it ({@link KollectOperator} with the shipped CRDs): all fixtures side by side in
 * {@code kollect-demo}, every profile and target applied as custom resources. The records the
 * operator exports (its {@code --stdout} sink) and the {@code KollectInventory} objects it writes
 * must equal each sample's golden file, ignoring only {@link GoldenRecords#LIVE_IGNORED}.
 */
class SampleLiveIT {
  /** Startup: informers for seven targets listed and every target reconciled once. */
  private static final Duration STARTUP = Duration.ofSeconds(120);
  /** Per check, once every target has reported Ready. */
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  private static ApiServer server;
  private static KubernetesClient client;
  private static KollectOperator operator;
  private static final LineCapture exported = new LineCapture();
  private static Path checkpoints;

  @BeforeAll
  static void applyAllSamplesAndRunTheOperator() throws IOException {
    server = ApiServer.start();
    client = server.admin();
    Fixtures.installCrdDir(client, SamplePaths.repoRoot().resolve("deploy/crds"));
    Fixtures.ensureNamespace(client, Sample.NAMESPACE);
    // The tenant boundary is on (the operator trusts only its own namespace): the sample targets
    // read as kollect-demo's default ServiceAccount, which the catalog's Role lets read the kinds.
    Sample.readAll(List.of(SamplePaths.repoRoot().resolve("samples/tenant-rbac.yaml")))
        .forEach(d -> Fixtures.apply(client, d));
    for (Sample sample : Sample.all()) {
      Fixtures.installCrds(client, sample.crds());
    }
    for (Sample sample : Sample.all()) {
      Fixtures.create(client, sample.inputs());
    }
    checkpoints = Files.createTempDirectory("kollect-live-it-checkpoints");
    operator = new KollectOperator(client, OperatorConfig.builder().clusterName("live-it")
        .workers(2).resyncPeriod(Duration.ofHours(10)).metricsAddress(BindAddress.loopback(0))
        .probeAddress(BindAddress.loopback(0)).inventoryAuth(InventoryAuth.none())
        .checkpointDir(Optional.of(checkpoints)).operatorNamespace("default")
        .stdoutRecords(Optional.of(exported.printStream())).build());
    operator.start();
    for (Sample sample : Sample.all()) {
      Fixtures.apply(client, sample.profile());
      Fixtures.apply(client, sample.target());
    }
    // Wait once for the whole catalog, so each check below fails fast instead of waiting again.
    try {
      await().atMost(STARTUP).until(() -> Sample.all().stream().allMatch(SampleLiveIT::isReady));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // The per-target checks report which target is not ready and why.
    }
  }

  private static boolean isReady(Sample sample) {
    KollectTarget target = client.resources(KollectTarget.class)
        .inNamespace(Sample.NAMESPACE).withName(sample.name()).get();
    return target != null && target.getStatus() != null && target.getStatus().conditions() != null
        && target.getStatus().conditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (server != null) {
      server.close();
    }
  }

  static Stream<Sample> samples() {
    return Sample.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void exportedRecordsEqualTheGolden(Sample sample) {
    List<JsonNode> golden = GoldenRecords.comparable(sample.expected());
    await().atMost(CONVERGE).untilAsserted(() ->
        assertThat(GoldenRecords.comparable(
                GoldenRecords.currentState(exported.records(), sample.targetId())))
            .as("records exported for %s", sample.targetId())
            .isEqualTo(golden));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void inventoryObjectsHoldTheGolden(Sample sample) {
    List<JsonNode> golden = GoldenRecords.comparable(sample.expected());
    await().atMost(CONVERGE).untilAsserted(() -> {
      List<JsonNode> records = inventoryRecords(sample);
      assertThat(GoldenRecords.comparable(records))
          .as("KollectInventory records of %s", sample.targetId())
          .isEqualTo(golden);
      GoldenRecords.assertAllOfTarget(records, sample.targetId());
    });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void targetIsReadyAndCountsTheGoldenRecords(Sample sample) {
    Map<String, Integer> expectedCounts = expectedCounts(sample);
    await().atMost(CONVERGE).untilAsserted(() -> {
      KollectTarget target = client.resources(KollectTarget.class)
          .inNamespace(Sample.NAMESPACE).withName(sample.name()).get();
      assertThat(target.getStatus()).as("status of %s", sample.targetId()).isNotNull();
      assertThat(target.getStatus().conditions())
          .anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Ready");
            assertThat(c.getStatus()).isEqualTo("True");
          });
      assertThat(target.getStatus().objectCounts()).isEqualTo(expectedCounts);
      assertThat(target.getStatus().observedGeneration())
          .isEqualTo(target.getMetadata().getGeneration());
    });
  }

  /**
   * The API server may add defaults but must keep every value a fixture states (no pruning by a
   * fixture CRD's schema, no normalisation): otherwise the offline golden could not hold live.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void liveObjectsKeepEveryValueTheFixtureStates(Sample sample) {
    for (JsonNode fixture : sample.inputs()) {
      JsonNode live = liveObject(fixture);
      String what = fixture.path("kind").asText() + " " + fixture.path("metadata").path("name")
          .asText();
      for (String part : new String[] {"spec", "status", "data", "type"}) {
        if (fixture.has(part)) {
          assertContains(what + " " + part, fixture.get(part), live.path(part));
        }
      }
      assertContains(what + " labels", fixture.path("metadata").path("labels"),
          live.path("metadata").path("labels"));
      assertContains(what + " annotations", fixture.path("metadata").path("annotations"),
          live.path("metadata").path("annotations"));
    }
  }

  /** Object counts per {@code apiVersion/Kind}, as the golden records imply them. */
  static Map<String, Integer> expectedCounts(Sample sample) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (JsonNode r : sample.expected()) {
      JsonNode res = r.path("resource");
      String apiVersion = res.path("group").asText().isEmpty()
          ? res.path("version").asText()
          : res.path("group").asText() + "/" + res.path("version").asText();
      counts.merge(apiVersion + "/" + res.path("kind").asText(), 1, Integer::sum);
    }
    return counts;
  }

  private static List<JsonNode> inventoryRecords(Sample sample) {
    List<JsonNode> records = new ArrayList<>();
    for (KollectInventory inv : client.resources(KollectInventory.class)
        .inNamespace(Sample.NAMESPACE)
        .withLabel("kollect.io/target", sample.name())
        .list().getItems()) {
      inv.getSpec().records().forEach(r -> records.add(ClientJson.fromClient(r)));
    }
    return records;
  }

  static JsonNode liveObject(JsonNode fixture) {
    GenericKubernetesResource live = client
        .genericKubernetesResources(fixture.path("apiVersion").asText(), fixture.path("kind")
            .asText())
        .inNamespace(fixture.path("metadata").path("namespace").asText())
        .withName(fixture.path("metadata").path("name").asText())
        .get();
    assertThat(live).as("%s %s exists", fixture.path("kind"), fixture.path("metadata").path("name"))
        .isNotNull();
    return ClientJson.toTree(client.getKubernetesSerialization(), live);
  }

  /** Every value in {@code expected} is in {@code actual} at the same place. */
  private static void assertContains(String where, JsonNode expected, JsonNode actual) {
    if (expected.isObject()) {
      assertThat(actual.isObject()).as("%s is an object in %s", where, actual).isTrue();
      for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        assertContains(where + "." + e.getKey(), e.getValue(), actual.path(e.getKey()));
      }
    } else if (expected.isArray()) {
      assertThat(actual.isArray() && actual.size() == expected.size())
          .as("%s: %s vs live %s", where, expected, actual).isTrue();
      for (int i = 0; i < expected.size(); i++) {
        assertContains(where + "[" + i + "]", expected.get(i), actual.get(i));
      }
    } else if (expected.isNumber() && actual.isNumber()) {
      assertThat(actual.decimalValue()).as(where).isEqualByComparingTo(expected.decimalValue());
    } else {
      assertThat(actual).as(where).isEqualTo(expected);
    }
  }
}

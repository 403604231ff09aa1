package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.ClientJson;
import io.kollect.core.TargetId;
import io.kollect.operator.cli.RunCommandIT;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.InventoryAuth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator on a real API server: custom resources in, status, inventory objects, sinks and the
 * HTTP endpoints out. The tests run in order, each building on the state the previous one left.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public class OperatorIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "it-inventory-token";
  private static final String NS = "shop";
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static KubernetesClient operatorClient;
  private static KollectOperator operator;
  private static HttpServer receiver;
  private static final List<String> receivedAuth = new CopyOnWriteArrayList<>();
  private static final java.util.concurrent.atomic.AtomicBoolean receiverDown =
      new java.util.concurrent.atomic.AtomicBoolean();
  private static final List<JsonNode> received = new CopyOnWriteArrayList<>();
  private static final HttpClient http = HttpClient.newHttpClient();

  @TempDir static Path tmp;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start();
    client = cluster.client();
    cluster.namespace(NS);
    cluster.namespace("kollect-system");
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/ingest", ex -> {
      if (receiverDown.get()) {
        ex.getRequestBody().readAllBytes();
        ex.sendResponseHeaders(503, -1);
        ex.close();
        return;
      }
      receivedAuth.add(ex.getRequestHeaders().getFirst("Authorization"));
      byte[] body = ex.getRequestBody().readAllBytes();
      if ("gzip".equals(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
        body = new GZIPInputStream(new java.io.ByteArrayInputStream(body)).readAllBytes();
      }
      JSON.readTree(body).forEach(received::add);
      ex.sendResponseHeaders(204, -1);
      ex.close();
    });
    receiver.start();

    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: deployments}
        spec:
          resources:
            - group: apps
              version: v1
              kind: Deployment
              labels: ["app"]
              fields:
                - {name: replicas, path: "{.spec.replicas}"}
                - {name: image, path: "{.spec.template.spec.containers[0].image}"}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: hook-credentials, namespace: shop}
        stringData: {token: hook-bearer-token}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: file, namespace: shop}
        spec:
          type: file
          file: {path: "%s"}
          batch: {linger: 100ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: hook, namespace: shop}
        spec:
          type: http
          http:
            url: "http://127.0.0.1:%d/ingest"
            gzip: true
            bearerTokenSecretRef: {name: hook-credentials, key: token}
          batch: {linger: 100ms, maxSize: 100}
        """.formatted(tmp.resolve("records.jsonl"), receiver.getAddress().getPort()));
    for (String name : List.of("web", "api")) {
      cluster.apply(deployment(name, 2));
    }

    operatorClient = cluster.newClient();
    OperatorConfig config = OperatorConfig.builder().clusterName("it").workers(2)
        .resyncPeriod(Duration.ofHours(1)).metricsAddress(BindAddress.loopback(0))
        .probeAddress(BindAddress.loopback(0)).inventoryAuth(InventoryAuth.token(TOKEN))
        .operatorNamespace("kollect-system")
        // conditions are awaited, not the clock: written every 500 ms, not every 10 s as shipped,
        // so that a degraded or recovered state does not wait out the interval
        .statusWriteInterval(Duration.ofMillis(500))
        // not a tenancy test: the platform trusts the namespace of its targets
        .tenancy("default", Set.of("kollect-system", NS)).build();
    operator = new KollectOperator(operatorClient, config);
    assertThat(operator.isReady()).as("not ready before it has started").isFalse();
    operator.start();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (operatorClient != null) {
      operatorClient.close();
    }
    if (receiver != null) {
      receiver.stop(0);
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  public static String deployment(String name, int replicas) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: %s, namespace: shop, labels: {app: %s, team: internal}}
        spec:
          replicas: %d
          selector: {matchLabels: {app: %s}}
          template:
            metadata: {labels: {app: %s}}
            spec: {containers: [{name: main, image: "example.org/%s:1"}]}
        """.formatted(name, name, replicas, name, name, name);
  }

  private static void applyTarget() {
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: shop-deployments, namespace: shop}
        spec:
          profileRef: deployments
          scope: {namespaces: [shop]}
          sinkRefs: [file, hook]
          writeInventory: true
        """);
  }

  /**
   * As {@code kubectl patch --type=merge}: no resourceVersion, so the operator writing the
   * target's status at the same moment is no conflict.
   */
  private static void setWriteInventory(boolean on) {
    client.resources(KollectTarget.class).inNamespace(NS).withName("shop-deployments").patch(
        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
        "{\"spec\":{\"writeInventory\":" + on + "}}");
  }

  private static KollectTarget target() {
    return client.resources(KollectTarget.class).inNamespace(NS).withName("shop-deployments").get();
  }

  private static Condition condition(List<Condition> conditions, String type) {
    return RunCommandIT.condition(conditions, type);
  }

  private static List<JsonNode> inventoryRecords() {
    return client.resources(KollectInventory.class).inNamespace(NS)
        .withLabel("kollect.io/target", "shop-deployments").list().getItems().stream()
        .flatMap(i -> i.getSpec().records().stream()).map(ClientJson::fromClient).toList();
  }

  private static List<JsonNode> fileRecords() throws IOException {
    Path file = tmp.resolve("records.jsonl");
    if (!Files.exists(file)) {
      return List.of();
    }
    return Files.readAllLines(file).stream().map(l -> {
      try {
        return JSON.readTree(l);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }).toList();
  }

  private static HttpResponse<String> get(String path, String authorization) throws Exception {
    InetSocketAddress a = operator.metricsAddress().orElseThrow();
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + a.getPort() + path));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  @Test
  @Order(1)
  void aTargetBecomesReadyWithCountsAndItsRecordsReachEverySinkAndInventoryObjects() throws Exception {
    applyTarget();
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      KollectTarget t = target();
      assertThat(t.getStatus()).isNotNull();
      assertThat(condition(t.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      assertThat(condition(t.getStatus().conditions(), "Degraded").getStatus()).isEqualTo("False");
      assertThat(t.getStatus().objectCounts()).containsEntry("apps/v1/Deployment", 2);
      assertThat(t.getStatus().observedGeneration()).isEqualTo(t.getMetadata().getGeneration());
      assertThat(t.getStatus().lastExportTime()).isNotNull();
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(fileRecords()).extracting(r -> r.get("name").asText())
          .containsExactlyInAnyOrder("web", "api");
      assertThat(received).extracting(r -> r.get("name").asText())
          .containsExactlyInAnyOrder("web", "api");
    });
    assertThat(receivedAuth).containsOnly("Bearer hook-bearer-token");
    assertThat(fileRecords()).allSatisfy(r -> {
      assertThat(r.get("labels").has("app")).isTrue();
      assertThat(r.get("labels").has("team")).as("label not allow-listed").isFalse();
    });

    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(inventoryRecords()).extracting(r -> r.get("name").asText())
            .containsExactlyInAnyOrder("web", "api"));
    KollectTarget t = target();
    for (KollectInventory inv : client.resources(KollectInventory.class).inNamespace(NS)
        .withLabel("kollect.io/target", "shop-deployments").list().getItems()) {
      assertThat(inv.getMetadata().getName()).isEqualTo("shop-deployments-0");
      assertThat(inv.getSpec().parts()).isEqualTo(1);
      assertThat(inv.getSpec().recordCount()).isEqualTo(2);
      OwnerReference owner = inv.getMetadata().getOwnerReferences().get(0);
      assertThat(owner.getKind()).isEqualTo("KollectTarget");
      assertThat(owner.getName()).isEqualTo("shop-deployments");
      assertThat(owner.getUid()).isEqualTo(t.getMetadata().getUid());
      assertThat(owner.getController()).isTrue();
      assertThat(owner.getBlockOwnerDeletion()).isTrue();
    }
    // The profile and the sinks report that they are usable.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectProfile p = client.resources(KollectProfile.class).withName("deployments").get();
      assertThat(condition(p.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      KollectSink s = client.resources(KollectSink.class).inNamespace(NS).withName("hook").get();
      assertThat(condition(s.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
    });
  }

  @Test
  @Order(2)
  void httpEndpointsServeProbesMetricsAndTheTokenProtectedInventory() throws Exception {
    await().atMost(Duration.ofSeconds(30)).until(operator::isReady);
    InetSocketAddress probes = operator.probeAddress().orElseThrow();
    HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + probes.getPort() + "/readyz")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);
    HttpResponse<String> healthy = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + probes.getPort() + "/healthz")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(healthy.statusCode()).isEqualTo(200);

    assertThat(get("/inventory", null).statusCode()).isEqualTo(401);
    assertThat(get("/inventory", null).headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
        v -> assertThat(v).startsWith("Bearer"));
    assertThat(get("/inventory", "Basic dXNlcjpwdw==").statusCode()).isEqualTo(401);
    assertThat(get("/inventory", "Bearer wrong-token").statusCode()).isEqualTo(403);
    HttpResponse<String> all = get("/inventory", "Bearer " + TOKEN);
    assertThat(all.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(all.body())).extracting(r -> r.get("name").asText())
        .containsExactly("api", "web");
    HttpResponse<String> one = get("/inventory?target=shop/shop-deployments&group=apps"
        + "&kind=Deployment&namespace=shop&name=web", "Bearer " + TOKEN);
    JsonNode web = JSON.readTree(one.body());
    assertThat(web).hasSize(1);
    assertThat(web.get(0).get("fields").get("replicas").asInt()).isEqualTo(2);
    assertThat(JSON.readTree(get("/inventory?kind=Service", "Bearer " + TOKEN).body())).isEmpty();
    assertThat(get("/inventory?colour=blue", "Bearer " + TOKEN).statusCode()).isEqualTo(400);

    String metrics = get("/metrics", null).body();
    assertThat(metrics).contains("kollect_export_records_sent_total{sink=\"shop/file\"}");
    assertThat(metrics).contains("kollect_export_records_sent_total{sink=\"shop/hook\"}");
    assertThat(metrics).contains("kollect_informers ");
    assertThat(metrics).contains("kollect_target_ready{target=\"shop/shop-deployments\"} 1.0");
    assertThat(metrics)
        .contains("kollect_target_objects{resource=\"apps/v1/Deployment\",target=\"shop/shop-deployments\"} 2.0");
    assertThat(metrics).contains("kollect_leader 1.0");
    assertThat(metrics).contains("jvm_memory_used_bytes");
  }

  @Test
  @Order(3)
  void aBrokenProfileDegradesTheTargetWhileExportsContinueOnTheLastValidProfile() throws Exception {
    client.resources(KollectProfile.class).withName("deployments").edit(p -> {
      p.getSpec().resources().get(0).fields().set(0,
          new io.kollect.operator.crd.ProfileField("replicas", "{.spec.replicas[", null, null,
              null));
      return p;
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTarget t = target();
      Condition degraded = condition(t.getStatus().conditions(), "Degraded");
      assertThat(degraded.getStatus()).isEqualTo("True");
      assertThat(degraded.getMessage()).contains("deployments").contains("resources[0].fields[0]");
      KollectProfile p = client.resources(KollectProfile.class).withName("deployments").get();
      assertThat(condition(p.getStatus().conditions(), "Degraded").getMessage())
          .contains("resources[0].fields[0]");
    });
    client.apps().deployments().inNamespace(NS).withName("web").edit(d -> {
      d.getSpec().setReplicas(5);
      return d;
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(fileRecords()).anySatisfy(r -> {
        assertThat(r.get("name").asText()).isEqualTo("web");
        assertThat(r.get("fields").get("replicas").asInt()).isEqualTo(5);
      });
      assertThat(inventoryRecords()).anySatisfy(r -> {
        assertThat(r.get("name").asText()).isEqualTo("web");
        assertThat(r.get("fields").get("replicas").asInt()).isEqualTo(5);
      });
    });
  }

  @Test
  @Order(5)
  void aSinkThatKeepsFailingIsDegradedUntilItRecovers() {
    receiverDown.set(true);
    client.apps().deployments().inNamespace(NS).withName("api").edit(d -> {
      d.getSpec().setReplicas(6);
      return d;
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectSink s = client.resources(KollectSink.class).inNamespace(NS).withName("hook").get();
      Condition degraded = condition(s.getStatus().conditions(), "Degraded");
      assertThat(degraded.getStatus()).isEqualTo("True");
      assertThat(degraded.getReason()).isEqualTo("DeliveryFailing");
      // The other sink is unaffected.
      KollectSink file = client.resources(KollectSink.class).inNamespace(NS).withName("file").get();
      assertThat(condition(file.getStatus().conditions(), "Degraded").getStatus())
          .isEqualTo("False");
    });
    receiverDown.set(false);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(received).anySatisfy(r -> {
        assertThat(r.get("name").asText()).isEqualTo("api");
        assertThat(r.get("fields").get("replicas").asInt()).isEqualTo(6);
      });
      KollectSink s = client.resources(KollectSink.class).inNamespace(NS).withName("hook").get();
      assertThat(condition(s.getStatus().conditions(), "Degraded").getStatus()).isEqualTo("False");
    });
  }

  @Test
  @Order(4)
  void fixingTheProfileMakesTheTargetReadyAgain() {
    client.resources(KollectProfile.class).withName("deployments").edit(p -> {
      p.getSpec().resources().get(0).fields().set(0,
          new io.kollect.operator.crd.ProfileField("replicas", "{.spec.replicas}", null, null,
              null));
      return p;
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTarget t = target();
      assertThat(condition(t.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
      assertThat(condition(t.getStatus().conditions(), "Degraded").getStatus()).isEqualTo("False");
      KollectProfile p = client.resources(KollectProfile.class).withName("deployments").get();
      assertThat(condition(p.getStatus().conditions(), "Ready").getStatus()).isEqualTo("True");
    });
  }

  @Test
  @Order(6)
  void turningWriteInventoryOffRemovesTheObjectsAndOnAgainRestoresThemInFull() {
    setWriteInventory(false);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(client.resources(KollectInventory.class).inNamespace(NS).list().getItems())
            .isEmpty());
    setWriteInventory(true);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(inventoryRecords()).extracting(r -> r.get("name").asText())
            .containsExactlyInAnyOrder("web", "api"));
  }

  @Test
  @Order(7)
  void deletingTheTargetRemovesItsInventoryObjects() {
    assertThat(inventoryRecords()).isNotEmpty();
    client.resources(KollectTarget.class).inNamespace(NS).withName("shop-deployments").delete();
    // kube-api-test runs no garbage collector: the operator's own clean-up is what removes them.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(client.resources(KollectInventory.class).inNamespace(NS).list().getItems())
            .isEmpty());
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(operator.status(new TargetId(NS, "shop-deployments"))).isEmpty());
  }
}

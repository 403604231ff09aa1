package io.kollect.operator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.export.InventorySink;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP listeners on loopback with a real JDK HTTP server and client. */
class OperatorHttpTest {

  private final HttpClient client = HttpClient.newHttpClient();
  private final AtomicBoolean ready = new AtomicBoolean(false);
  private final InventorySink inventory = new InventorySink("inventory");
  private OperatorHttp http;

  @TempDir Path tmp;

  private static Record record(String target, String group, String kind, String ns, String name) {
    return new Record(Op.UPSERT, "c", target, "p", new GroupVersionKind(group, "v1", kind), ns, name,
        "uid-" + name, "1", Instant.parse("2024-05-01T10:00:00Z"), "h-" + name, Map.of(), Map.of(),
        Map.of());
  }

  private void start(InventoryAuth auth) throws Exception {
    inventory.write(List.of(
        record("a/t1", "apps", "Deployment", "a", "web"),
        record("a/t1", "", "Service", "a", "web"),
        record("b/t2", "apps", "Deployment", "b", "db")));
    http = new OperatorHttp(Records.mapper(), ready::get, () -> "kollect_x 1\n", () -> inventory, auth);
    http.start(BindAddress.loopback(0), BindAddress.loopback(0));
  }

  @AfterEach
  void stop() {
    if (http != null) {
      http.close();
    }
  }

  private HttpResponse<String> get(int port, String path, String auth) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (auth != null) {
      b.header("Authorization", auth);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private int metricsPort() {
    return http.metricsAddress().orElseThrow().getPort();
  }

  private int probePort() {
    return http.probeAddress().orElseThrow().getPort();
  }

  @Test
  void readyzFollowsReadinessAndHealthzIsAlwaysOk() throws Exception {
    start(InventoryAuth.none());
    assertThat(get(probePort(), "/readyz", null).statusCode()).isEqualTo(503);
    assertThat(get(probePort(), "/healthz", null).statusCode()).isEqualTo(200);
    ready.set(true);
    assertThat(get(probePort(), "/readyz", null).statusCode()).isEqualTo(200);
  }

  @Test
  void inventoryNeedsTheBearerToken401WithoutOrMalformed403WhenWrong() throws Exception {
    Path token = tmp.resolve("token");
    Files.writeString(token, "s3cret\n");
    start(InventoryAuth.tokenFile(token));
    assertThat(get(metricsPort(), "/inventory", null).statusCode()).isEqualTo(401);
    assertThat(get(metricsPort(), "/inventory", "Bearer").statusCode()).isEqualTo(401);
    assertThat(get(metricsPort(), "/inventory", "Token s3cret").statusCode()).isEqualTo(401);
    assertThat(get(metricsPort(), "/inventory", "Bearer s3cre").statusCode()).isEqualTo(403);
    assertThat(get(metricsPort(), "/inventory", "Bearer s3cret2").statusCode()).isEqualTo(403);
    assertThat(get(metricsPort(), "/inventory", "Bearer s3cret").statusCode()).isEqualTo(200);
    assertThat(get(metricsPort(), "/inventory", "bearer s3cret").statusCode()).isEqualTo(200);
    // A rotated token file takes effect without a restart.
    Files.writeString(token, "rotated");
    assertThat(get(metricsPort(), "/inventory", "Bearer s3cret").statusCode()).isEqualTo(403);
    assertThat(get(metricsPort(), "/inventory", "Bearer rotated").statusCode()).isEqualTo(200);
    // Metrics stay open: Prometheus scrapes without credentials.
    assertThat(get(metricsPort(), "/metrics", null).body()).isEqualTo("kollect_x 1\n");
  }

  @Test
  void anEmptyTokenFileAcceptsNoToken() throws Exception {
    Path token = tmp.resolve("token");
    Files.writeString(token, "\n");
    start(InventoryAuth.tokenFile(token));
    assertThat(get(metricsPort(), "/inventory", "Bearer x").statusCode()).isEqualTo(403);
  }

  @Test
  void inventoryIsOffUnlessATokenOrNoAuthIsChosen() throws Exception {
    start(InventoryAuth.disabled());
    HttpResponse<String> r = get(metricsPort(), "/inventory", "Bearer anything");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).contains("--inventory-token-file");
  }

  @Test
  void inventoryFiltersByTargetGroupKindNamespaceAndName() throws Exception {
    start(InventoryAuth.none());
    JsonNode all = Records.mapper().readTree(get(metricsPort(), "/inventory", null).body());
    assertThat(all).hasSize(3);
    // Ordered by target, then record key (group/kind/namespace/name; the core group sorts first).
    assertThat(names("/inventory?target=a/t1")).containsExactly("Service/web", "Deployment/web");
    assertThat(names("/inventory?group=")).containsExactly("Service/web");
    assertThat(names("/inventory?group=apps&kind=Deployment")).containsExactly("Deployment/web", "Deployment/db");
    assertThat(names("/inventory?namespace=b")).containsExactly("Deployment/db");
    assertThat(names("/inventory?name=web&kind=Service")).containsExactly("Service/web");
    assertThat(get(metricsPort(), "/inventory?nmae=web", null).statusCode()).isEqualTo(400);
    JsonNode first = all.get(0);
    assertThat(first.fieldNames()).toIterable().containsExactly("op", "cluster", "target", "profile",
        "resource", "namespace", "name", "uid", "resourceVersion", "observedAt", "contentHash",
        "fields", "labels", "annotations");
  }

  @Test
  void inventoryFiltersByClusterAmongTheRecordsOfSeveralClusters() throws Exception {
    start(InventoryAuth.none());
    inventory.write(List.of(new Record(Op.UPSERT, "east", "a/fleet", "p",
        new GroupVersionKind("apps", "v1", "Deployment"), "a", "web", "uid-east", "1",
        Instant.parse("2024-05-01T10:00:00Z"), "h-east", Map.of(), Map.of(), Map.of())));
    assertThat(names("/inventory?cluster=east")).containsExactly("Deployment/web");
    assertThat(names("/inventory?cluster=c&kind=Deployment"))
        .containsExactly("Deployment/web", "Deployment/db");
    assertThat(names("/inventory?cluster=west")).isEmpty();
  }

  @Test
  void onlyGetAndHeadAreAllowed() throws Exception {
    start(InventoryAuth.none());
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + metricsPort() + "/inventory"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(405);
  }

  private List<String> names(String path) throws Exception {
    JsonNode n = Records.mapper().readTree(get(metricsPort(), path, null).body());
    List<String> out = new java.util.ArrayList<>();
    n.forEach(r -> out.add(r.get("resource").get("kind").asText() + "/" + r.get("name").asText()));
    return out;
  }

  @Test
  void queryStringRejectsRepeatedKeys() {
    assertThat(OperatorHttp.query("kind=A%20B&name=x")).containsEntry("kind", "A B").containsEntry("name", "x");
    assertThatThrownBy(() -> OperatorHttp.query("kind=a&kind=b")).hasMessageContaining("kind");
  }
}

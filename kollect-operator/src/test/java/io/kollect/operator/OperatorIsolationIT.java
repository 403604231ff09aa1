package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kollect.core.ClientJson;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.inventory.InventoryObjectSink;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One target's problem stays its own, on a real API server: one target's inventory holds a record
 * that no KollectInventory object can hold (a ConfigMap value extracted three times, ~1.65 MB of
 * JSON, more than the API server stores in one object). That target leaves the record out, names it
 * with its size in its status, and writes the rest; a second target's inventory is written and kept
 * current all along.
 */
class OperatorIsolationIT {

  private static final int BLOB_BYTES = 550_000;
  @RegisterExtension
  static final PerClassCluster api = PerClassCluster.withNamespaces("big", "small");

  @BeforeAll
  static void start() {
    api.cluster().apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: configmaps}
        spec:
          resources:
            - version: v1
              kind: ConfigMap
              fields:
                - {name: a, path: "{.data.blob}"}
                - {name: b, path: "{.data.blob}"}
                - {name: c, path: "{.data.blob}"}
                - {name: v, path: "{.data.v}"}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: big, namespace: big}
        spec: {profileRef: configmaps, scope: {namespaces: [big]}, writeInventory: true}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: small, namespace: small}
        spec: {profileRef: configmaps, scope: {namespaces: [small]}, writeInventory: true}
        """);
    api.client().configMaps().inNamespace("big").resource(new ConfigMapBuilder()
        .withNewMetadata().withName("blob").endMetadata()
        .withData(Map.of("blob", "x".repeat(BLOB_BYTES))).build()).create();
    configMap("big", "plain", "1");
    configMap("small", "settings", "1");

    // not a tenancy test: the platform trusts the namespaces of its targets
    api.start(TestOperator.on(api.cluster()).trusting("big", "small").configure(c -> c.toBuilder()
        .workers(2).statusWriteInterval(Duration.ofMillis(500)).build()));
  }

  private static void configMap(String ns, String name, String v) {
    api.client().configMaps().inNamespace(ns).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).endMetadata().withData(Map.of("v", v)).build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
  }

  private static List<JsonNode> inventory(String ns) {
    return api.client().resources(KollectInventory.class).inNamespace(ns)
        .withLabel(InventoryObjectSink.TARGET_LABEL, ns).list().getItems().stream()
        .flatMap(i -> i.getSpec().records().stream()).map(ClientJson::fromClient).toList();
  }

  private static Condition condition(String ns, String type) {
    KollectTarget t = api.client().resources(KollectTarget.class).inNamespace(ns).withName(ns).get();
    if (t == null || t.getStatus() == null || t.getStatus().conditions() == null) {
      return null;
    }
    return t.getStatus().conditions().stream().filter(c -> type.equals(c.getType())).findFirst()
        .orElse(null);
  }

  @Test
  void anOversizedRecordIsReportedAndLeftOutWhileEveryOtherInventoryWriteGoesOn() {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(inventory("small")).extracting(r -> r.at("/fields/v").asText())
            .containsExactly("1"));

    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Condition rejected = condition("big", "RecordsRejected");
      assertThat(rejected).isNotNull();
      assertThat(rejected.getStatus()).isEqualTo("True");
      assertThat(rejected.getMessage()).contains("ConfigMap big/blob (").contains(" bytes)");
    });
    Condition rejected = condition("big", "RecordsRejected");
    long bytes = Long.parseLong(rejected.getMessage()
        .replaceAll(".*ConfigMap big/blob \\((\\d+) bytes\\).*", "$1"));
    assertThat(bytes).as("the record's size").isGreaterThan(3L * BLOB_BYTES);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(inventory("big")).as("the rest of the big target's inventory is written, no stub")
            .extracting(r -> r.get("name").asText()).containsExactly("plain"));

    // Later changes of both targets keep flowing; nothing is stuck behind the rejected record.
    configMap("small", "settings", "2");
    configMap("big", "plain", "2");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(inventory("small")).extracting(r -> r.at("/fields/v").asText())
          .containsExactly("2");
      assertThat(inventory("big")).extracting(r -> r.at("/fields/v").asText()).containsExactly("2");
    });
    KollectTarget big = api.client().resources(KollectTarget.class).inNamespace("big").withName("big")
        .get();
    assertThat(big.getStatus().inventory().rejected()).singleElement()
        .satisfies(r -> assertThat(r.object()).isEqualTo("ConfigMap big/blob"));
    assertThat(big.getStatus().inventory().consecutiveFailures()).as("nothing retried").isZero();
  }
}

package io.kollect.operator.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.testing.TestApiServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A target whose KollectInventory writes keep failing (here: the operator may
 * not create them) is not Ready past the documented threshold, with the API server and the cause
 * in the message, and becomes Ready again once the writes succeed.
 */
class InventoryWriteFailureIT {

  private static final String TOKEN = "inventory-write-failure-token";
  private static TestCluster cluster;
  private static KubernetesClient admin;
  private static TestOperator operator;

  @TempDir static Path tmp;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start(TestApiServer.builder().tokenUser(TOKEN, "limited-operator"));
    admin = cluster.client();
    cluster.namespace("shop");
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata: {name: limited-operator}
        rules:
          - apiGroups: [""]
            resources: [configmaps, namespaces]
            verbs: [get, list, watch]
          - apiGroups: ["", events.k8s.io]
            resources: [events]
            verbs: [create, patch]
          - apiGroups: [apiextensions.k8s.io]
            resources: [customresourcedefinitions]
            verbs: [get, list, watch]
          - apiGroups: [authorization.k8s.io]
            resources: [selfsubjectaccessreviews]
            verbs: [create]
          - apiGroups: [kollect.io]
            resources: [kollectprofiles, kollecttargets, kollectsinks]
            verbs: [get, list, watch]
          - apiGroups: [kollect.io]
            resources: [kollectprofiles/status, kollecttargets/status, kollectsinks/status]
            verbs: [get, update, patch]
          - apiGroups: [kollect.io]
            resources: [kollectinventories]
            verbs: [get, list, watch, delete, deletecollection]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata: {name: limited-operator}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: limited-operator}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: limited-operator}]
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: shop, namespace: shop}
        spec: {profileRef: configmaps, scope: {namespaces: [shop]}, writeInventory: true}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, namespace: shop}
        data: {v: "1"}
        """);
    // this test is about inventory writes, not the tenant boundary: the platform trusts shop
    operator = TestOperator.on(cluster).trusting("shop").checkpointDir(tmp)
        .clientFrom(c -> c.clientForToken(TOKEN))
        .configure(c -> c.toBuilder().statusWriteInterval(Duration.ofMillis(500)).build())
        .start();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Condition condition(String type) {
    KollectTarget t = admin.resources(KollectTarget.class).inNamespace("shop").withName("shop")
        .get();
    if (t.getStatus() == null || t.getStatus().conditions() == null) {
      return null;
    }
    return t.getStatus().conditions().stream().filter(c -> type.equals(c.getType())).findFirst()
        .orElse(null);
  }

  @Test
  void writesThatKeepFailingMakeTheTargetNotReadyUntilTheySucceed() {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Condition ready = condition("Ready");
      assertThat(ready).isNotNull();
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("InventoryWriteFailing");
      assertThat(ready.getMessage()).contains("HTTP 403").contains("https://127.0.0.1:");
      assertThat(condition("Stalled").getStatus()).isEqualTo("True");
    });
    KollectTarget failing = admin.resources(KollectTarget.class).inNamespace("shop")
        .withName("shop").get();
    assertThat(failing.getStatus().inventory().consecutiveFailures())
        .isGreaterThanOrEqualTo(InventoryHealth.FAILING_ATTEMPTS);
    assertThat(failing.getStatus().inventory().pending()).isEqualTo(1);

    admin.rbac().clusterRoles().withName("limited-operator").edit(role -> {
      role.getRules().add(new PolicyRuleBuilder().withApiGroups("kollect.io")
          .withResources("kollectinventories").withVerbs("create", "update", "patch").build());
      return role;
    });

    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
      assertThat(condition("Ready").getStatus()).isEqualTo("True");
      assertThat(condition("Stalled")).isNull();
      assertThat(admin.resources(KollectInventory.class).inNamespace("shop").list().getItems())
          .flatExtracting(i -> i.getSpec().records()).extracting(r -> r.at("/fields/v").asText())
          .containsExactly("1");
    });
  }
}

package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.operator.TestOperator;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectClusterStatus;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.testing.FreezableTcpProxy;
import io.kollect.testing.SequencedRecordReceiver;
import io.kollect.testing.TestApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Remote clusters on three real API servers: the operator's own ({@code home}, with the Kollect
 * CRDs) and two remote ones ({@code east}, {@code west}) that the operator reads through
 * KollectClusters whose kubeconfigs (bearer tokens of static token users) are in Secrets of {@code
 * home}. Records go to a real HTTP receiver. Each test uses its own namespace in {@code home}.
 */
class RemoteClustersIT {

  private static final String EAST_TOKEN = "east-reader-token-7f3a";
  private static final String WEST_TOKEN = "west-reader-token-91bc";

  private static TestCluster home;
  private static TestApiServer east;
  private static TestApiServer west;
  private static TestOperator operator;
  private static SequencedRecordReceiver receiver;

  @BeforeAll
  static void start() throws Exception {
    home = TestCluster.start();
    east = TestApiServer.builder().tokenUser(EAST_TOKEN, "kollect", "system:masters").start();
    west = TestApiServer.builder().tokenUser(WEST_TOKEN, "kollect", "system:masters").start();
    receiver = new SequencedRecordReceiver();
    home.namespace("kollect-system");
    for (String ns : new String[] {"fleet", "rotate", "gone", "refused", "clash", "inv", "xref"}) {
      home.namespace(ns);
    }
    for (TestApiServer remote : new TestApiServer[] {east, west}) {
      remote.namespace("apps");
    }
    configMap(east.admin(), "east-a", "1");
    configMap(west.admin(), "west-b", "1");
    home.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: configmaps}
        spec:
          resources:
            - version: v1
              kind: ConfigMap
              fields: [{name: v, path: "{.data.v}"}]
        """);
    operator = TestOperator.on(home)
        .trusting("fleet", "rotate", "gone", "refused", "clash", "inv", "xref")
        .configure(c -> c.toBuilder().statusWriteInterval(Duration.ofMillis(300)).build())
        .start();
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {operator, receiver, east, west, home}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        // go on closing the rest
      }
    }
  }

  private static void configMap(KubernetesClient client, String name, String v) {
    configMap(client, "apps", name, v);
  }

  private static void configMap(KubernetesClient client, String ns, String name, String v) {
    client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder().withNewMetadata()
        .withName(name).endMetadata().withData(Map.of("v", v)).build())
        .createOr(NonDeletingOperation::update);
  }

  private static void kubeconfigSecret(String ns, String name, String kubeconfig) {
    home.client().secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata()
        .withName(name).endMetadata().withStringData(Map.of("value", kubeconfig)).build())
        .createOr(NonDeletingOperation::update);
  }

  private static void kollectCluster(String ns, String name, String clusterName, String secret,
      Map<String, String> labels) {
    KollectCluster c = home.client().getKubernetesSerialization().unmarshal("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectCluster
        metadata: {name: %s, namespace: %s}
        spec:
          %s
          kubeConfig: {secretRef: {name: %s}}
        """.formatted(name, ns, clusterName == null ? "" : "clusterName: " + clusterName, secret),
        KollectCluster.class);
    c.getMetadata().setLabels(labels);
    home.client().resource(c).createOr(NonDeletingOperation::update);
  }

  private static void labels(String ns, String name, Map<String, String> labels) {
    home.client().resources(KollectCluster.class).inNamespace(ns).withName(name)
        .edit(c -> {
          c.getMetadata().setLabels(labels);
          return c;
        });
  }

  private static void sinkAndTarget(String ns, String clusterSpec) {
    home.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: hook, namespace: %s}
        spec:
          type: http
          http: {url: "%s"}
          batch: {linger: 100ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: %s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [apps]}
          sinkRefs: [hook]
          %s
        """.formatted(ns, receiver.uri(), ns, clusterSpec));
  }

  /** The live records of a namespace's target at the receiver, as {@code cluster/name}. */
  private static Set<String> held(String ns) {
    return receiver.heldByCluster().values().stream()
        .filter(r -> r.path("target").asText().equals(ns + "/t"))
        .map(r -> r.path("cluster").asText() + "/" + r.path("name").asText())
        .collect(Collectors.toSet());
  }

  private static KollectTargetStatus targetStatus(String ns) {
    KollectTarget t = home.client().resources(KollectTarget.class).inNamespace(ns).withName("t")
        .get();
    return t == null ? null : t.getStatus();
  }

  private static KollectClusterStatus clusterStatus(String ns, String name) {
    KollectCluster c = home.client().resources(KollectCluster.class).inNamespace(ns)
        .withName(name).get();
    return c == null ? null : c.getStatus();
  }

  private static Condition ready(KollectClusterStatus s) {
    return s == null || s.conditions() == null ? null : s.conditions().stream()
        .filter(c -> c.getType().equals("Ready")).findFirst().orElse(null);
  }

  @Test
  void aSelectorFansOutToTheLabelledClustersAndALabelChangeAddsOrRemovesOne() {
    kubeconfigSecret("fleet", "east-kc", east.kubeconfigForToken("kollect", EAST_TOKEN));
    kubeconfigSecret("fleet", "west-kc", west.kubeconfigForToken("kollect", WEST_TOKEN));
    kollectCluster("fleet", "east", "fleet-east", "east-kc", Map.of("env", "prod"));
    kollectCluster("fleet", "west", "fleet-west", "west-kc", Map.of("env", "dev"));
    sinkAndTarget("fleet", "clusterSelector: {matchLabels: {env: prod}}");

    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(held("fleet")).containsExactly("fleet-east/east-a"));
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTargetStatus s = targetStatus("fleet");
      assertThat(s).isNotNull();
      assertThat(s.clusters()).singleElement().satisfies(c -> {
        assertThat(c.name()).isEqualTo("fleet-east");
        assertThat(c.ready()).isTrue();
        assertThat(c.objects()).isEqualTo(1);
      });
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectClusterStatus s = clusterStatus("fleet", "east");
      assertThat(ready(s)).isNotNull();
      assertThat(ready(s).getStatus()).isEqualTo("True");
      assertThat(ready(s).getReason()).isEqualTo("Connected");
      assertThat(s.serverVersion()).startsWith("v1.");
      assertThat(s.watchedTypes()).contains("v1/ConfigMap");
      assertThat(s.clusterName()).isEqualTo("fleet-east");
    });

    labels("fleet", "west", Map.of("env", "prod"));
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(held("fleet")).as("west joined: its UPSERTs").contains("fleet-east/east-a",
            "fleet-west/west-b"));

    labels("fleet", "east", Map.of("env", "retired"));
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(held("fleet")).as("east left the selection: DELETEs for its records")
          .noneMatch(r -> r.startsWith("fleet-east/"));
      assertThat(held("fleet")).contains("fleet-west/west-b");
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(operator.operator().engine().clusterHealth("fleet-east"))
            .as("no target reads east any more: its watches are closed").isEmpty());
  }

  /**
   * The old token is a TokenRequest token bound to a Secret of {@code west}: deleting that Secret
   * revokes it. The path to {@code west} goes through a proxy that drops every connection after
   * the revocation, so an open watch of the old client cannot keep the records flowing: they flow
   * only if the operator really moved to the new token.
   */
  @Test
  void aRotatedSecretMovesTheClusterToTheNewTokenAndItKeepsFlowingWhenTheOldIsRevoked() {
    KubernetesClient westAdmin = west.admin();
    westAdmin.serviceAccounts().inNamespace("apps").resource(new ServiceAccountBuilder()
        .withNewMetadata().withName("kollect").endMetadata().build())
        .createOr(NonDeletingOperation::update);
    westAdmin.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata()
        .withName("read-all").endMetadata().withRules(new PolicyRuleBuilder()
            .withApiGroups("*").withResources("*").withVerbs("get", "list", "watch").build())
        .build()).createOr(NonDeletingOperation::update);
    westAdmin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder()
        .withNewMetadata().withName("kollect-read-all").endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "read-all")
        .addNewSubject().withKind("ServiceAccount").withName("kollect").withNamespace("apps")
        .endSubject().build()).createOr(NonDeletingOperation::update);
    String oldToken = boundToken(westAdmin, "token-old");
    String newToken = boundToken(westAdmin, "token-new");

    try (FreezableTcpProxy proxy = FreezableTcpProxy.to(west.port())) {
      String via = "https://127.0.0.1:" + proxy.port();
      kubeconfigSecret("rotate", "kc", viaProxy(west.kubeconfigForToken("sa", oldToken), via));
      kollectCluster("rotate", "west", "rotate-west", "kc", Map.of());
      sinkAndTarget("rotate", "clusterRef: {name: west}");
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
          assertThat(held("rotate")).contains("rotate-west/west-b"));

      kubeconfigSecret("rotate", "kc", viaProxy(west.kubeconfigForToken("sa", newToken), via));
      westAdmin.secrets().inNamespace("apps").withName("token-old").delete();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        try (KubernetesClient old = west.clientForToken(oldToken)) {
          assertThatThrownBy(() -> old.configMaps().inNamespace("apps").list())
              .as("the old token is revoked").isInstanceOfSatisfying(
                  KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(401));
        }
      });
      proxy.dropConnections();

      configMap(westAdmin, "after-rotation", "1");
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
          assertThat(held("rotate")).contains("rotate-west/west-b", "rotate-west/after-rotation"));
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        Condition ready = ready(clusterStatus("rotate", "west"));
        assertThat(ready).isNotNull();
        assertThat(ready.getStatus()).isEqualTo("True");
      });
      home.client().resources(KollectTarget.class).inNamespace("rotate").withName("t").delete();
    }
  }

  /** A token of ServiceAccount apps/kollect bound to a new Secret of that name. */
  private static String boundToken(KubernetesClient admin, String secret) {
    Secret bound = admin.secrets().inNamespace("apps").resource(new SecretBuilder()
        .withNewMetadata().withName(secret).endMetadata().build()).create();
    TokenRequest request = admin.serviceAccounts().inNamespace("apps").withName("kollect")
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L)
            .withNewBoundObjectRef().withApiVersion("v1").withKind("Secret").withName(secret)
            .withUid(bound.getMetadata().getUid()).endBoundObjectRef().endSpec().build());
    return request.getStatus().getToken();
  }

  private static String viaProxy(String kubeconfig, String url) {
    return kubeconfig.replaceAll("server: https://[^\\n]*", "server: " + url);
  }

  @Test
  void twoClustersHoldingTheSameNamespaceAndNameKeepInventoryObjectsOfTheirOwn() {
    // Their own namespace on the remotes: the other tests' targets read "apps".
    east.namespace("twin");
    west.namespace("twin");
    configMap(east.admin(), "twin", "same", "east");
    configMap(west.admin(), "twin", "same", "west");
    kubeconfigSecret("inv", "east-kc", east.kubeconfigForToken("kollect", EAST_TOKEN));
    kubeconfigSecret("inv", "west-kc", west.kubeconfigForToken("kollect", WEST_TOKEN));
    kollectCluster("inv", "east", "inv-east", "east-kc", Map.of("inv", "yes"));
    kollectCluster("inv", "west", "inv-west", "west-kc", Map.of("inv", "yes"));
    home.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: inv}
        spec:
          profileRef: configmaps
          scope: {namespaces: [twin]}
          writeInventory: true
          clusterSelector: {matchLabels: {inv: "yes"}}
        """);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      Map<String, String> byObject = home.client().resources(KollectInventory.class)
          .inNamespace("inv").list().getItems().stream()
          .collect(Collectors.toMap(i -> i.getMetadata().getName(), i -> i.getSpec().records()
              .stream().map(r -> r.path("cluster").asText() + ":" + r.at("/fields/v").asText())
              .collect(Collectors.joining(","))));
      assertThat(byObject).containsEntry("t-inv-east-0", "inv-east:east")
          .containsEntry("t-inv-west-0", "inv-west:west");
    });

    labels("inv", "west", Map.of());
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(home.client().resources(KollectInventory.class).inNamespace("inv").list()
            .getItems()).extracting(i -> i.getMetadata().getName())
            .as("west left: its objects go").containsExactly("t-inv-east-0"));
  }

  @Test
  void aDeletedKollectClusterDropsItsRecordsAndClosesItsWatches() {
    kubeconfigSecret("gone", "kc", east.kubeconfigForToken("kollect", EAST_TOKEN));
    kollectCluster("gone", "east", "gone-east", "kc", Map.of());
    sinkAndTarget("gone", "clusterRef: {name: east}");
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(held("gone")).containsExactly("gone-east/east-a"));
    assertThat(operator.operator().engine().clusterHealth("gone-east")).isPresent();

    home.client().resources(KollectCluster.class).inNamespace("gone").withName("east").delete();
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(held("gone")).as("DELETEs for the records of the deleted cluster").isEmpty());
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(operator.operator().engine().clusterHealth("gone-east")).isEmpty());
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTargetStatus s = targetStatus("gone");
      assertThat(s.clusters()).singleElement().satisfies(c -> {
        assertThat(c.name()).isEqualTo("gone/east");
        assertThat(c.ready()).isFalse();
        assertThat(c.message()).contains("KollectCluster gone/east does not exist");
      });
    });
  }

  @Test
  void kubeconfigsThatRunProgramsOrSkipTlsVerificationAreRefusedNamingTheField() {
    String exec = east.kubeconfigForToken("kollect", EAST_TOKEN).replace(
        "      token: " + EAST_TOKEN + "\n",
        "      exec:\n        apiVersion: client.authentication.k8s.io/v1beta1\n"
            + "        command: /bin/sh\n        args: [\"-c\", \"touch /tmp/kollect-pwned\"]\n");
    kubeconfigSecret("refused", "exec-kc", exec);
    kollectCluster("refused", "exec", "refused-exec", "exec-kc", Map.of());
    String insecure = east.kubeconfigForToken("kollect", EAST_TOKEN).replaceAll(
        "      certificate-authority-data: .*\n", "      insecure-skip-tls-verify: true\n");
    kubeconfigSecret("refused", "insecure-kc", insecure);
    kollectCluster("refused", "insecure", "refused-insecure", "insecure-kc", Map.of());
    sinkAndTarget("refused", "clusterRef: {name: exec}");

    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Condition ready = ready(clusterStatus("refused", "exec"));
      assertThat(ready).isNotNull();
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("InvalidKubeConfig");
      assertThat(ready.getMessage()).isEqualTo("KollectCluster refused/exec: Secret refused/exec-kc"
          + " key value: users[kollect].user.exec: runs a program; refused (the operator allows "
          + "it only with --allow-kubeconfig-exec)");
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Condition ready = ready(clusterStatus("refused", "insecure"));
      assertThat(ready).isNotNull();
      assertThat(ready.getReason()).isEqualTo("InvalidKubeConfig");
      assertThat(ready.getMessage()).contains("clusters[kubeapitest].cluster."
          + "insecure-skip-tls-verify: turns TLS verification off; refused");
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTargetStatus s = targetStatus("refused");
      assertThat(s).isNotNull();
      assertThat(s.clusters()).singleElement().satisfies(c -> {
        assertThat(c.ready()).isFalse();
        assertThat(c.message()).startsWith("InvalidKubeConfig: ").contains("user.exec");
      });
    });
    assertThat(java.nio.file.Path.of("/tmp/kollect-pwned")).doesNotExist();
  }

  @Test
  void aTargetReferencingAKollectClusterOfAnotherNamespaceIsRefused() {
    kubeconfigSecret("clash", "kc", east.kubeconfigForToken("kollect", EAST_TOKEN));
    kollectCluster("clash", "east", "clash-east", "kc", Map.of());
    home.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: xref}
        spec:
          profileRef: configmaps
          clusterRef: {name: east, namespace: clash}
        """);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      KollectTarget t = home.client().resources(KollectTarget.class).inNamespace("xref")
          .withName("t").get();
      assertThat(t.getStatus()).isNotNull();
      Condition ready = t.getStatus().conditions().stream()
          .filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
      assertThat(ready.getStatus()).isEqualTo("False");
      assertThat(ready.getReason()).isEqualTo("Forbidden");
      assertThat(ready.getMessage()).contains("KollectCluster clash/east is in another namespace");
    });
  }

  @Test
  void theNewerOfTwoKollectClustersClaimingOneClusterNameSaysSo() throws Exception {
    kubeconfigSecret("clash", "kc2", west.kubeconfigForToken("kollect", WEST_TOKEN));
    kollectCluster("clash", "first", "shared-name", "kc2", Map.of());
    Thread.sleep(1100); // creation timestamps have a resolution of one second
    kollectCluster("clash", "second", "shared-name", "kc2", Map.of());
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Condition ready = ready(clusterStatus("clash", "second"));
      assertThat(ready).isNotNull();
      assertThat(ready.getReason()).isEqualTo("ClusterNameConflict");
      assertThat(ready.getMessage()).contains("already used by KollectCluster clash/first");
      Condition first = ready(clusterStatus("clash", "first"));
      assertThat(first).isNotNull();
      assertThat(first.getReason()).isNotEqualTo("ClusterNameConflict");
    });
  }
}

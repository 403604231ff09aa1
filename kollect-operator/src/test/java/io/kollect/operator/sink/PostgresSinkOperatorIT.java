package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.export.postgres.PostgresSink;
import io.kollect.export.postgres.PostgresSinkConfig;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.testing.TestCertificateAuthority;
import io.kollect.testing.TestPostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KollectSink {@code type: postgres} through the operator, on a real API server and a real
 * PostgreSQL ({@link TestPostgresServer}), both shared by the scenarios of this class, which run
 * in order. One target sends the ConfigMaps of {@value #NS} to the sink {@code inventory} (role
 * {@code kollect_writer}, history on); four more sinks are misconfigured, each in its own way.
 * The fold of the table is read from the public view {@code kollect.objects}. The server also
 * speaks TLS: the plain roles above log in by password, every other role only over TLS with a
 * client certificate of {@link #CA}, as the TLS scenario's sink does.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PostgresSinkOperatorIT {

  private static final String NS = "shop";
  private static final String TARGET = NS + "/shop";
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private static final TestCertificateAuthority CA = TestCertificateAuthority.create("pg-ca");
  // Secrets are looked at every second, not every 30 s; a database back up is written to within
  // a second, not after a retry delay grown over the outage
  @RegisterExtension
  static final SinkScenario scenario =
      SinkScenario.in(NS).secretsReadEverySecond().retriedEverySecond();

  private static TestPostgresServer db;
  private static TestCluster cluster;
  private static KubernetesClient client;

  @BeforeAll
  static void start() {
    // credentials and writer rows are looked at every second, not every 10 s
    PostgresSinkTranslation.credentialsCheckInterval = Duration.ofSeconds(1);
    PostgresSinkTranslation.maintenanceInterval = Duration.ofSeconds(1);
    // a sink that cannot connect (refused, wrong password, another CA) says so after 3 s, not
    // after the shipped 10 s that the pool keeps retrying; a local connection takes milliseconds
    PostgresSinkTranslation.connectTimeout = Duration.ofSeconds(3);
    TestCertificateAuthority.Issued serverCert = CA.server("127.0.0.1");
    db = scenario.closeAfter(TestPostgresServer.start(new TestPostgresServer.ServerTls(
        serverCert.certificatePem(), serverCert.pkcs8KeyPem(), CA.certificatePem()),
        List.of("kollect_writer", "kollect_nocreate")));
    db.execute("CREATE ROLE kollect_writer LOGIN PASSWORD 'first'",
        "GRANT CREATE ON DATABASE " + TestPostgresServer.DATABASE + " TO kollect_writer",
        "CREATE ROLE kollect_nocreate LOGIN PASSWORD 'x'",
        "CREATE ROLE kollect_tls LOGIN PASSWORD 'tls'",
        "GRANT CREATE ON DATABASE " + TestPostgresServer.DATABASE + " TO kollect_tls",
        // a schema a newer Kollect migrated
        "CREATE SCHEMA future", "CREATE TABLE future.schema_version (version integer PRIMARY KEY,"
            + " description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
        "INSERT INTO future.schema_version VALUES (99, 'from the future')",
        "GRANT ALL ON SCHEMA future TO kollect_writer",
        "GRANT ALL ON future.schema_version TO kollect_writer");
    cluster = scenario.cluster();
    client = scenario.client();
    cluster.apply(TestCluster.CONFIGMAP_PROFILE + """
        apiVersion: v1
        kind: Secret
        metadata: {name: pg, namespace: %1$s}
        stringData: {username: kollect_writer, password: first}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: pg-wrong, namespace: %1$s}
        stringData: {user: kollect_writer, pass: wrong}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: pg-nocreate, namespace: %1$s}
        stringData: {username: kollect_nocreate, password: x}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: inventory, namespace: %1$s}
        spec:
          type: postgres
          postgres:
            url: %2$s
            credentialsSecretRef: {name: pg}
            history: {enabled: true, retention: 30d}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: wrong-password, namespace: %1$s}
        spec:
          type: postgres
          postgres:
            url: %2$s
            credentialsSecretRef: {name: pg-wrong, usernameKey: user, passwordKey: pass}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: unreachable, namespace: %1$s}
        spec:
          type: postgres
          postgres: {url: "jdbc:postgresql://127.0.0.1:1/inventory", credentialsSecretRef: {name: pg}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: no-privilege, namespace: %1$s}
        spec:
          type: postgres
          postgres: {url: %2$s, credentialsSecretRef: {name: pg-nocreate}, schema: denied}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: newer-schema, namespace: %1$s}
        spec:
          type: postgres
          postgres: {url: %2$s, credentialsSecretRef: {name: pg}, schema: future}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: shop, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%1$s]}
          sinkRefs: [inventory]
        """.formatted(NS, db.jdbcUrl()));
    for (int i = 0; i < 10; i++) {
      configMap("cm-" + i, "v" + i);
    }
    scenario.startOperator();
  }

  @AfterAll
  static void restoreCheckIntervals() {
    PostgresSinkTranslation.credentialsCheckInterval =
        PostgresSinkConfig.DEFAULT_CREDENTIALS_CHECK_INTERVAL;
    PostgresSinkTranslation.maintenanceInterval = PostgresSinkConfig.DEFAULT_MAINTENANCE_INTERVAL;
    PostgresSinkTranslation.connectTimeout = PostgresSinkConfig.DEFAULT_CONNECT_TIMEOUT;
  }

  private static void configMap(String name, String v) {
    client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).endMetadata().withData(Map.of("v", v)).build())
        .createOr(NonDeletingOperation::update);
  }

  private static void deleteConfigMap(String name) {
    client.configMaps().inNamespace(NS).withName(name).delete();
  }

  /** The cluster's ConfigMaps of {@value #NS}: name to "uid v". */
  private static Map<String, String> clusterState() {
    Map<String, String> out = new TreeMap<>();
    for (ConfigMap cm : client.configMaps().inNamespace(NS).list().getItems()) {
      out.put(cm.getMetadata().getName(), cm.getMetadata().getUid() + " "
          + (cm.getData() == null ? null : cm.getData().get("v")));
    }
    return out;
  }

  /** The view {@code objects}, as a user reads it: name to "uid v", for the target's ConfigMaps. */
  private static Map<String, String> table() {
    Map<String, String> out = new TreeMap<>();
    for (List<String> row : rows("SELECT name, uid, fields->>'v' FROM kollect.objects"
        + " WHERE cluster = 'it' AND target = '" + TARGET + "' AND kind = 'ConfigMap'")) {
      out.put(row.get(0), row.get(1) + " " + row.get(2));
    }
    return out;
  }

  private static List<List<String>> rows(String sql) {
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<List<String>> out = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.add(row);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private static Condition condition(String sink, String type) {
    return scenario.condition(sink, type);
  }

  private static void awaitCondition(String sink, String type, String status, String reason) {
    await().atMost(CONVERGE).untilAsserted(() -> {
      Condition c = condition(sink, type);
      assertThat(c).as(sink + " " + type).isNotNull();
      assertThat(c.getStatus() + " " + c.getReason()).as(c.getMessage())
          .isEqualTo(status + " " + reason);
    });
  }

  /** A second writer of the same database, as another operator would be. */
  private static PostgresSink secondWriter(String name, String identity) {
    return new PostgresSink(name, PostgresSinkConfig.builder().url(db.jdbcUrl())
        .credentials(db.superuser(), db.superuserPassword())
        .maintenanceInterval(Duration.ofSeconds(1)).writerIdentity(identity).build());
  }

  private static Record configMapRecord(Op op, String target, String name, String uid, String v,
      long sequence) {
    return new Record(op, "it", target, "configmaps", new GroupVersionKind("", "v1",
        "ConfigMap"), NS, name, uid, "1", Instant.now(), "hash-" + v,
        op == Op.DELETE ? Map.of() : Map.<String, JsonNode>of("v", TextNode.valueOf(v)),
        Map.of(), Map.of(), sequence);
  }

  @Test
  @Order(0)
  void eachBadConfigurationIsANotReadyConditionNamingItsCause() {
    awaitCondition("inventory", "Ready", "True", "Configured");
    awaitCondition("wrong-password", "Ready", "False", "AuthenticationFailed");
    awaitCondition("unreachable", "Ready", "False", "Unreachable");
    awaitCondition("no-privilege", "Ready", "False", "PermissionDenied");
    awaitCondition("newer-schema", "Ready", "False", "SchemaTooNew");
    assertThat(condition("no-privilege", "Ready").getMessage()).contains("schema denied");
    assertThat(condition("newer-schema", "Ready").getMessage()).contains("99");
    assertThat(condition("wrong-password", "Ready").getMessage()).doesNotContain("wrong");
  }

  @Test
  @Order(1)
  void theObjectsViewEqualsTheClusterAfterChurnWithDeletesAndRecreates() {
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(table()).isEqualTo(clusterState()));
    Random random = new Random(7);
    for (int i = 0; i < 120; i++) {
      String name = "cm-" + random.nextInt(14);
      if (random.nextInt(4) == 0) {
        deleteConfigMap(name);
      } else {
        configMap(name, "r" + i);
      }
    }
    // deleted, then created again under the same name: a new uid, a new row state
    deleteConfigMap("cm-0");
    await().atMost(CONVERGE).until(() -> !clusterState().containsKey("cm-0"));
    configMap("cm-0", "again");
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(table()).isEqualTo(clusterState()));
  }

  @Test
  @Order(2)
  void theHistoryHasOneRowPerChangeOfAnObjectAndNoneForAnUnchangedState() {
    // Each change waits for the one before it to reach the history: the exporter coalesces
    // the states of a key it has not sent yet, so back-to-back changes may arrive as one.
    configMap("story", "1");
    awaitStory("UPSERT 1");
    configMap("story", "2");
    awaitStory("UPSERT 1", "UPSERT 2");
    // an annotation the profile does not extract: the record's content is unchanged
    client.configMaps().inNamespace(NS).withName("story")
        .edit(cm -> new ConfigMapBuilder(cm).editMetadata().addToAnnotations("note", "x")
            .endMetadata().build());
    deleteConfigMap("story");
    await().atMost(CONVERGE).until(() -> !clusterState().containsKey("story"));
    awaitStory("UPSERT 1", "UPSERT 2", "DELETE null");
    configMap("story", "3");
    awaitStory("UPSERT 1", "UPSERT 2", "DELETE null", "UPSERT 3");
  }

  /** Waits until the history of ConfigMap "story" is exactly {@code rows} (op and value). */
  private void awaitStory(String... rows) {
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(rows("SELECT op, fields->>'v'"
        + " FROM kollect.changes WHERE target = '" + TARGET + "' AND name = 'story' ORDER BY"
        + " sequence")).map(r -> r.get(0) + " " + r.get(1)).containsExactly(rows));
  }

  @Test
  @Order(3)
  void aLateOlderStateFromASecondWriterIsRefused() {
    configMap("late", "newest");
    await().atMost(CONVERGE).until(() -> table().getOrDefault("late", "").endsWith("newest"));
    List<String> stored = rows("SELECT sequence, uid FROM kollect.objects WHERE target = '"
        + TARGET + "' AND name = 'late'").get(0);
    long sequence = Long.parseLong(stored.get(0));
    try (PostgresSink late = secondWriter("late-writer", null)) {
      late.write(List.of(configMapRecord(Op.UPSERT, TARGET, "late", stored.get(1), "stale",
          sequence - 1)));
      late.write(List.of(configMapRecord(Op.DELETE, TARGET, "late", stored.get(1), null,
          sequence - 1)));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertThat(table()).containsEntry("late", stored.get(1) + " newest");
    assertThat(rows("SELECT count(*) FROM kollect.changes WHERE name = 'late'"))
        .containsExactly(List.of("1"));
  }

  @Test
  @Order(4)
  void aSecondWriterOfTheSameClusterNameFromAnotherClusterIsShownInTheSinksStatus() {
    awaitCondition("inventory", "Ready", "True", "Configured");
    // (the late writer of the step before had an identity of its own too, until it closed)
    await().atMost(CONVERGE).until(() -> condition("inventory", "Warning") == null);
    try (PostgresSink other = secondWriter("other-cluster", "kube-system/another-cluster")) {
      // the same cluster name "it", another target: it writes rows, not the ones compared here
      other.write(List.of(configMapRecord(Op.UPSERT, "elsewhere/t", "x", "u-x", "1", 1)));
      awaitCondition("inventory", "Warning", "True", "DuplicateClusterName");
      assertThat(condition("inventory", "Warning").getMessage())
          .contains("cluster name it is also written by").contains("another-cluster");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    // the other writer stopped and said so: the warning goes
    await().atMost(CONVERGE).until(() -> condition("inventory", "Warning") == null);
  }

  @Test
  @Order(5)
  void rotatedCredentialsAreUsedWithoutARestart() {
    db.execute("ALTER ROLE kollect_writer PASSWORD 'second'");
    client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("pg")
        .withNamespace(NS).endMetadata().withStringData(Map.of("username", "kollect_writer",
            "password", "second")).build()).update();
    // the open sessions logged in with the old password: end them, so only a login with the
    // new one can write
    db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename ="
        + " 'kollect_writer'");
    configMap("after-rotation", "written");
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(table()).isEqualTo(clusterState()));
    assertThat(rows("SELECT count(*) > 0 FROM pg_stat_activity WHERE usename = 'kollect_writer'"))
        .containsExactly(List.of("t"));
    awaitCondition("inventory", "Ready", "True", "Configured");
  }

  @Test
  @Order(6)
  void aDatabaseStoppedMidBurstIsReportedAndLosesNothingWhenItIsBack() throws Exception {
    Random random = new Random(11);
    for (int i = 0; i < 40; i++) {
      configMap("cm-" + random.nextInt(14), "before-" + i);
    }
    db.stop();
    for (int i = 0; i < 80; i++) {
      String name = "cm-" + random.nextInt(14);
      if (random.nextInt(5) == 0) {
        deleteConfigMap(name);
      } else {
        configMap(name, "during-" + i);
      }
    }
    awaitCondition("inventory", "Ready", "False", "Unreachable");
    db.restart();
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(table()).isEqualTo(clusterState()));
    awaitCondition("inventory", "Ready", "True", "Configured");
  }

  @Test
  @Order(7)
  void aTlsBlockConnectsWithVerifyFullAndTheClientCertificateAndRefusesAServerOfAnotherCa() {
    TestCertificateAuthority.Issued clientCert = CA.client("kollect_tls");
    String otherCa = TestCertificateAuthority.create("other-ca").certificatePem();
    cluster.apply("""
        apiVersion: v1
        kind: Secret
        metadata: {name: pg-tls, namespace: %1$s}
        stringData: {username: kollect_tls, password: tls}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: pg-ca, namespace: %1$s}
        stringData:
          ca.crt: |
        %3$s
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: pg-other-ca, namespace: %1$s}
        stringData:
          ca.crt: |
        %4$s
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: pg-client, namespace: %1$s}
        type: kubernetes.io/tls
        stringData:
          tls.crt: |
        %5$s
          tls.key: |
        %6$s
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: over-tls, namespace: %1$s}
        spec:
          type: postgres
          postgres: {url: %2$s, credentialsSecretRef: {name: pg-tls}, schema: tls}
          tls: {caSecretRef: {name: pg-ca}, clientCertSecretRef: {name: pg-client}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: other-ca, namespace: %1$s}
        spec:
          type: postgres
          postgres: {url: %2$s, credentialsSecretRef: {name: pg-tls}, schema: tls_other}
          tls: {caSecretRef: {name: pg-other-ca}, clientCertSecretRef: {name: pg-client}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: over-tls, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%1$s]}
          sinkRefs: [over-tls, other-ca]
        """.formatted(NS, db.jdbcUrl(), indent(CA.certificatePem()), indent(otherCa),
        indent(clientCert.certificatePem()), indent(clientCert.pkcs8KeyPem())));
    awaitCondition("over-tls", "Ready", "True", "Configured");
    awaitCondition("other-ca", "Ready", "False", "TlsFailed");
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(rows("SELECT name FROM tls.objects"
        + " WHERE target = '" + NS + "/over-tls' ORDER BY name")).map(r -> r.get(0))
        .containsExactlyElementsOf(clusterState().keySet()));
    // the sink's sessions are encrypted and presented the client certificate; kollect_tls has no
    // other way in (pg_hba: hostssl with clientcert=verify-ca only)
    assertThat(rows("SELECT DISTINCT s.ssl, s.client_dn FROM pg_stat_ssl s JOIN pg_stat_activity"
        + " a ON a.pid = s.pid WHERE a.usename = 'kollect_tls'"))
        .containsExactly(List.of("t", "/CN=kollect_tls"));
  }

  /** {@code pem} indented under a YAML block scalar of the scenario's Secrets. */
  private static String indent(String pem) {
    return pem.strip().lines().map(l -> "    " + l).collect(java.util.stream.Collectors.joining("\n"));
  }
}

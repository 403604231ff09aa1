package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.testing.TestPostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The postgres sink with what ships: the packaged operator ({@code java -jar kollect.jar run})
 * accepts a {@code type: postgres} KollectSink and writes the ConfigMaps of {@value #NS} into a
 * real PostgreSQL; it is killed with SIGKILL mid-burst, objects change and are deleted while it is
 * down, and the restarted operator makes the view {@code objects} exact again. With history on,
 * states re-sent after the restart (the tail the checkpoint had not caught up with) append no
 * row to {@code changes}: no two consecutive rows of one object have the same content.
 */
class PostgresFleetIT {

  private static final String NS = "crash";
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  private static FleetCluster fleet;
  private static KubernetesClient admin;
  private static TestPostgresServer db;
  private static OperatorProcess operator;

  @BeforeAll
  static void apiServerDatabaseAndScenario() throws Exception {
    db = TestPostgresServer.start();
    fleet = FleetCluster.start("postgres-fleet");
    admin = fleet.admin();
    Fixtures.ensureNamespace(admin, NS);
    admin.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("pg")
        .withNamespace(NS).endMetadata().withStringData(Map.of("username", db.superuser(),
            "password", db.superuserPassword())).build()).create();
    fleet.sinkAndTarget(NS, """
        type: postgres
        postgres:
          url: %s
          credentialsSecretRef: {name: pg}
          history: {enabled: true}
        """.formatted(db.jdbcUrl()));
  }

  @AfterAll
  static void stopEverything() throws Exception {
    if (operator != null) {
      operator.close();
    }
    if (fleet != null) {
      fleet.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void afterAKill9MidBurstTheRestartedOperatorMakesTheTableExactAndTheHistoryHasNoRepeatedState()
      throws Exception {
    int burst = 60;
    for (int i = 0; i < burst + 10; i++) {
      put("cm-" + i, "0");
    }
    operator = start("run-1");
    awaitExact();

    // kill -9 once the database has most of the burst so far, mid-stream
    fleet.killMidBurst(operator, NS, burst,
        () -> count("SELECT count(*) FROM kollect.objects WHERE fields->>'v' LIKE"
            + " 'burst-%'") >= 40);
    assertThat(count("SELECT count(*) FROM kollect.objects WHERE fields->>'v' LIKE 'burst-%'"))
        .as("burst rows when killed: the kill came mid-burst").isLessThan(burst);
    for (int i = 0; i < 4; i++) {
      admin.configMaps().inNamespace(NS).withName("cm-" + i).delete();
    }
    put("cm-10", "while-down");
    put("new-0", "while-down");
    await().atMost(CONVERGE).until(() -> !cluster().containsKey("cm-0"));

    operator = start("run-2");
    awaitExact();
    assertThat(count("SELECT count(*) FROM (SELECT content_hash, op, lag(content_hash) OVER w AS"
        + " previous_hash, lag(op) OVER w AS previous_op FROM kollect.changes WINDOW w AS"
        + " (PARTITION BY name ORDER BY sequence)) h WHERE op = previous_op AND content_hash ="
        + " previous_hash")).as("history rows repeating the state before them").isZero();
    assertThat(count("SELECT count(*) FROM kollect.changes WHERE name = 'cm-0' AND op ="
        + " 'DELETE'")).isEqualTo(1);
  }

  private static OperatorProcess start(String name) {
    OperatorProcess p = fleet.startOperator(name, fleet.runArgs("fleet", NS));
    FleetCluster.awaitReady(p);
    return p;
  }

  private static void awaitExact() {
    await().atMost(CONVERGE).pollInterval(Duration.ofMillis(500))
        .untilAsserted(() -> assertThat(table()).isEqualTo(cluster()));
  }

  /** The ConfigMaps of {@value #NS}: name to "uid v". */
  private static Map<String, String> cluster() {
    Map<String, String> out = new TreeMap<>();
    for (ConfigMap cm : admin.configMaps().inNamespace(NS).list().getItems()) {
      if (cm.getData() != null && cm.getData().containsKey("v")) {
        out.put(cm.getMetadata().getName(), cm.getMetadata().getUid() + " "
            + cm.getData().get("v"));
      }
    }
    return out;
  }

  /** The view {@code objects}: name to "uid v". */
  private static Map<String, String> table() {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT name, uid, fields->>'v' FROM kollect.objects"
            + " WHERE cluster = 'fleet' AND target = '" + NS + "/cms'")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2) + " " + rs.getString(3));
      }
    } catch (SQLException e) {
      out.put("(no table yet)", e.getMessage());
    }
    return out;
  }

  private static long count(String sql) {
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }

  private static void put(String name, String v) {
    fleet.put(NS, name, v);
  }
}

package io.kollect.samples.embedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kollect.core.KollectEngine;
import io.kollect.testing.TestApiServer;
import io.kollect.testing.TestPostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the documented postgres embedding example, exactly as docs/examples/postgres/embedding.md
 * shows it, on a real API server and a real PostgreSQL.
 */
class PostgresInventoryExampleIT {

  private static TestApiServer api;
  private static TestPostgresServer db;

  @BeforeAll
  static void start() {
    db = TestPostgresServer.start();
    api = TestApiServer.builder().reused().start();
    api.namespace("kube-system");
    api.namespace("shop");
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
    if (db != null) {
      db.close();
    }
  }

  private static void deployment(String name, String image, int replicas) {
    api.admin().apps().deployments().inNamespace("shop").resource(new DeploymentBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage(image).endContainer()
        .endSpec().endTemplate().endSpec().build()).createOr(o -> o.update());
  }

  private static List<String> rows(String sql) {
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      return List.of("(" + e.getSQLState() + ")");
    }
  }

  @Test
  void theExampleKeepsTheShopDeploymentsAsRowsAndTheirChangesAsHistory() {
    deployment("cart", "cart:1.0", 2);
    try (KollectEngine engine = PostgresInventoryExample.start(api.admin(), db.jdbcUrl(),
        db::superuser, db::superuserPassword)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> rows("SELECT name || ' '"
          + " || (fields->>'replicas') || ' ' || (fields->'images'->>0) FROM kollect.objects"),
          r -> r.equals(List.of("cart 2 cart:1.0")));
      deployment("cart", "cart:1.1", 2);
      // a state superseded before it is exported is never written (only the latest is): the
      // history has the update only once the row shows it
      await().atMost(Duration.ofSeconds(60)).until(() -> rows("SELECT fields->'images'->>0"
          + " FROM kollect.objects"), r -> r.equals(List.of("cart:1.1")));
      api.admin().apps().deployments().inNamespace("shop").withName("cart").delete();
      await().atMost(Duration.ofSeconds(60)).until(() -> rows("SELECT count(*) FROM"
          + " kollect.objects"), r -> r.equals(List.of("0")));
      assertThat(rows("SELECT op || ' ' || coalesce(fields->'images'->>0, '-') FROM"
          + " kollect.changes ORDER BY sequence"))
          .containsExactly("UPSERT cart:1.0", "UPSERT cart:1.1", "DELETE -");
    }
  }

  @Test
  void theDocumentShowsTheExampleVerbatim() throws IOException {
    String source = Files.readString(Path.of(
        "src/test/java/io/kollect/samples/embedding/PostgresInventoryExample.java"));
    String example = source.substring(source.indexOf("// example:begin\n") + 17,
        source.indexOf("// example:end"));
    assertThat(Files.readString(Path.of("../docs/examples/postgres/embedding.md")))
        .contains(example);
  }
}

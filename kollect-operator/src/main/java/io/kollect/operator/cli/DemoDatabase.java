package io.kollect.operator.cli;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import io.kollect.operator.crd.PostgresSinkSpec;
import io.kollect.testing.TestPostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The demo's PostgreSQL: a local server (Debian's {@code postgresql-15} binaries, as the tests
 * run it) that a {@code postgres} KollectSink fills with the inventory of both demo clusters, so
 * that the demo ends with a question answered in SQL. Only when the binaries are installed; the
 * demo runs without it otherwise.
 */
final class DemoDatabase implements AutoCloseable {

  /** The demo's KollectSink, in the namespace of the samples. */
  static final String SINK = "inventory-sql";
  static final String NAMESPACE = "kollect-demo";
  /** The fleet question the demo answers (docs/examples/postgres/01-images-per-cluster.sql). */
  static final String IMAGES_PER_CLUSTER = "SELECT o.cluster, image, count(*) AS deployments"
      + " FROM kollect.objects o, jsonb_array_elements_text(o.fields -> 'images') AS image"
      + " WHERE o.kind = 'Deployment' GROUP BY o.cluster, image ORDER BY o.cluster, image";

  private final TestPostgresServer server;
  private final Path passwordFile;

  private DemoDatabase(TestPostgresServer server, Path passwordFile) {
    this.server = server;
    this.passwordFile = passwordFile;
  }

  /** Starts the server when its binaries are installed; the password goes to {@code dir}. */
  static Optional<DemoDatabase> startIfInstalled(Path dir) throws IOException {
    if (!TestPostgresServer.binariesInstalled()) {
      return Optional.empty();
    }
    TestPostgresServer server = TestPostgresServer.start();
    Path passwordFile = dir.resolve("postgres-password").toAbsolutePath();
    Files.writeString(passwordFile, server.superuserPassword() + "\n");
    return Optional.of(new DemoDatabase(server, passwordFile));
  }

  /**
   * Creates the Secret and the KollectSink {@value #SINK} and adds the sink to every target of
   * {@value #NAMESPACE}, the local cluster's and the fleet's.
   */
  void connect(KubernetesClient client) {
    client.secrets().inNamespace(NAMESPACE).resource(new SecretBuilder().withNewMetadata()
        .withName(SINK).withNamespace(NAMESPACE).endMetadata()
        .withStringData(Map.of("username", server.superuser(),
            "password", server.superuserPassword())).build())
        .createOr(NonDeletingOperation::update);
    KollectSink sink = new KollectSink();
    sink.getMetadata().setName(SINK);
    sink.getMetadata().setNamespace(NAMESPACE);
    sink.setSpec(new KollectSinkSpec(KollectSinkSpec.Type.POSTGRES, null, null, null, null, null,
        null, null, null, new PostgresSinkSpec(server.jdbcUrl(), null,
            new KollectSinkSpec.BasicAuthSecretRef(SINK, null, null), null,
            new PostgresSinkSpec.History(true, "7d"), null)));
    client.resources(KollectSink.class).inNamespace(NAMESPACE).resource(sink)
        .createOr(NonDeletingOperation::update);
    for (KollectTarget t : client.resources(KollectTarget.class).inNamespace(NAMESPACE).list()
        .getItems()) {
      KollectTargetSpec spec = t.getSpec();
      if (spec == null || (spec.sinkRefs() != null && spec.sinkRefs().contains(SINK))) {
        continue;
      }
      List<String> refs = new ArrayList<>(spec.sinkRefs() == null ? List.of() : spec.sinkRefs());
      refs.add(SINK);
      client.resources(KollectTarget.class).inNamespace(NAMESPACE)
          .withName(t.getMetadata().getName())
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"sinkRefs\":["
              + String.join(",", refs.stream().map(r -> '"' + r + '"').toList()) + "]}}");
    }
  }

  /** The command that opens {@code psql} on the demo database. */
  String psqlCommand() {
    return "PGPASSWORD=$(cat " + passwordFile + ") psql -h 127.0.0.1 -p " + server.port()
        + " -U " + server.superuser() + " " + TestPostgresServer.DATABASE;
  }

  /** How many Deployments run each image, per cluster, as a table. */
  String imagesPerCluster() {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"CLUSTER", "IMAGE", "DEPLOYMENTS"});
    try (Connection c = server.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(IMAGES_PER_CLUSTER)) {
      while (rs.next()) {
        rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
      }
    } catch (SQLException e) {
      return "(the inventory is not in the database yet: " + e.getMessage() + ")\n";
    }
    return DemoCommand.table(rows);
  }

  /** How many current objects each cluster has in the database. */
  int objects(String cluster) {
    try (Connection c = server.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM kollect.objects WHERE cluster = '"
            + cluster.replace("'", "''") + "'")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      return 0;
    }
  }

  @Override
  public void close() {
    server.close();
  }
}

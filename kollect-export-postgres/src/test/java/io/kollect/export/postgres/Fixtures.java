package io.kollect.export.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.testing.TestPostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Records, sinks and table reads for the postgres sink's tests. */
final class Fixtures {

  static final ObjectMapper JSON = new ObjectMapper();
  static final GroupVersionKind CONFIG_MAP = new GroupVersionKind("", "v1", "ConfigMap");
  static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");
  static final GroupVersionKind SECRET = new GroupVersionKind("", "v1", "Secret");

  private Fixtures() {}

  /** An UPSERT of {@code kind} with the given fields (JSON object text) and sequence. */
  static Record upsert(String cluster, GroupVersionKind kind, String namespace, String name,
      String fieldsJson, long sequence) {
    return upsert(cluster, kind, namespace, name, fieldsJson, Map.of(), sequence, Instant.now());
  }

  static Record upsert(String cluster, GroupVersionKind kind, String namespace, String name,
      String fieldsJson, Map<String, String> labels, long sequence, Instant observedAt) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    try {
      JSON.readTree(fieldsJson).fields().forEachRemaining(e -> fields.put(e.getKey(),
          e.getValue()));
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(fieldsJson, e);
    }
    return new Record(Op.UPSERT, cluster, "kollect/inventory", "test-profile", kind, namespace,
        name, "uid-" + name, "rv-" + sequence, observedAt, "hash-" + fieldsJson.hashCode()
        + "-" + labels.hashCode(), fields, labels, Map.of(), sequence);
  }

  /** The DELETE of {@code r}'s object with the given sequence. */
  static Record delete(Record r, long sequence) {
    return r.tombstone(Instant.now()).withSequence(sequence);
  }

  /** A config on {@code server} as the superuser, with fast maintenance for the tests. */
  static PostgresSinkConfig.Builder config(TestPostgresServer server, String schema) {
    return PostgresSinkConfig.builder().url(server.jdbcUrl())
        .credentials(server.superuser(), server.superuserPassword()).schema(schema)
        .connectTimeout(Duration.ofSeconds(2)).maintenanceInterval(Duration.ofMillis(200));
  }

  /** Rows of a query as lists of column values (as strings). */
  static List<List<String>> rows(TestPostgresServer server, String sql) {
    try (Connection c = server.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<List<String>> out = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>(n);
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

  static long count(TestPostgresServer server, String sql) {
    return Long.parseLong(rows(server, sql).get(0).get(0));
  }
}

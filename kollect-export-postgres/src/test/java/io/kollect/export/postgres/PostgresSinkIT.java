package io.kollect.export.postgres;

import static io.kollect.export.postgres.Fixtures.CONFIG_MAP;
import static io.kollect.export.postgres.Fixtures.config;
import static io.kollect.export.postgres.Fixtures.count;
import static io.kollect.export.postgres.Fixtures.delete;
import static io.kollect.export.postgres.Fixtures.rows;
import static io.kollect.export.postgres.Fixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kollect.export.RecordsRejectedException;
import io.kollect.export.Rejection;
import io.kollect.export.SinkException;
import io.kollect.extract.Record;
import io.kollect.testing.TestPostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The postgres sink against a real PostgreSQL server: schema, ordering, history, failures. */
class PostgresSinkIT {

  private static TestPostgresServer server;

  @BeforeAll
  static void startServer() {
    server = TestPostgresServer.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void schemaIsCreatedByTheFirstCheckAndFoundCurrentByTheNext() {
    try (PostgresSink first = new PostgresSink("a", config(server, "created").build());
        PostgresSink second = new PostgresSink("b", config(server, "created").build())) {
      assertThat(first.checkDatabase().reason()).isEqualTo("SchemaMigrated");
      assertThat(second.checkDatabase()).satisfies(c -> {
        assertThat(c.ready()).isTrue();
        assertThat(c.reason()).isEqualTo("SchemaReady");
      });
      assertThat(rows(server, "SELECT version FROM created.schema_version"))
          .containsExactly(List.of("1"));
      assertThat(rows(server, "SELECT column_name, data_type FROM information_schema.columns"
          + " WHERE table_schema = 'created' AND table_name = 'objects' ORDER BY ordinal_position"))
          .containsExactly(List.of("cluster", "text"), List.of("target", "text"),
              List.of("api_group", "text"), List.of("api_version", "text"),
              List.of("kind", "text"), List.of("namespace", "text"), List.of("name", "text"),
              List.of("uid", "text"), List.of("resource_version", "text"),
              List.of("sequence", "bigint"),
              List.of("observed_at", "timestamp with time zone"),
              List.of("content_hash", "text"), List.of("profile", "text"),
              List.of("fields", "jsonb"), List.of("labels", "jsonb"),
              List.of("annotations", "jsonb"));
    }
  }

  @Test
  void aSchemaMigratedByANewerKollectIsRefusedNamingBothVersions() throws Exception {
    try (PostgresSink sink = new PostgresSink("a", config(server, "newer").build())) {
      assertThat(sink.checkDatabase().ready()).isTrue();
    }
    server.execute("INSERT INTO newer.schema_version (version, description) VALUES (7, 'future')");
    try (PostgresSink sink = new PostgresSink("a", config(server, "newer").build())) {
      DatabaseCheck check = sink.checkDatabase();
      assertThat(check.status()).isEqualTo(DatabaseCheck.Status.ERROR);
      assertThat(check.reason()).isEqualTo("SchemaTooNew");
      assertThat(check.message()).contains("version 7", "version 1");
      // records wait for an upgrade: a permanent error would make the exporter drop them
      assertThatThrownBy(() -> sink.write(List.of(upsert("c", CONFIG_MAP, "ns", "cm", "{}", 1))))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).contains("version 7", "version 1");
          });
    }
    assertThat(count(server, "SELECT count(*) FROM newer.object_state")).isZero();
  }

  @Test
  void theNewestSequenceWinsThroughDeleteLateStatesAndRecreate() throws Exception {
    try (PostgresSink sink = new PostgresSink("a", config(server, "ordering").build())) {
      Record v10 = upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":10}", 10);
      sink.write(List.of(v10));
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":5}", 5)));
      assertThat(rows(server, "SELECT fields->>'v', sequence FROM ordering.objects"))
          .containsExactly(List.of("10", "10"));

      sink.write(List.of(delete(v10, 20)));
      assertThat(count(server, "SELECT count(*) FROM ordering.objects")).isZero();
      assertThat(rows(server, "SELECT sequence, deleted_at IS NOT NULL, fields::text"
          + " FROM ordering.object_state")).containsExactly(List.of("20", "t", "{}"));

      // a late UPSERT older than the delete must not bring the object back
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":15}", 15)));
      assertThat(count(server, "SELECT count(*) FROM ordering.objects")).isZero();

      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":30}", 30)));
      assertThat(rows(server, "SELECT fields->>'v', sequence, api_group, namespace, target"
          + " FROM ordering.objects")).containsExactly(List.of("30", "30", "", "ns",
              "kollect/inventory"));
    }
  }

  @Test
  void historyRecordsEachChangeOnceAndNothingForResendsHeartbeatsOrLateStates()
      throws Exception {
    try (PostgresSink sink = new PostgresSink("a", config(server, "history")
        .history(PostgresSinkConfig.History.keptFor(Duration.ofDays(30))).build())) {
      Record v1 = upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":1}", 1);
      sink.write(List.of(v1));
      sink.write(List.of(v1)); // a retried batch
      sink.write(List.of(v1.withSequence(2))); // a heartbeat or a re-send after a restart
      Record v2 = upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":2}", 3);
      sink.write(List.of(v2));
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":9}", 2))); // late, refused
      sink.write(List.of(delete(v2, 4)));
      sink.write(List.of(delete(v2, 5))); // the delete again
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":3}", 6)));

      assertThat(rows(server, "SELECT op, sequence, fields::text FROM history.changes"
          + " ORDER BY id")).containsExactly(
              List.of("UPSERT", "1", "{\"v\": 1}"),
              List.of("UPSERT", "3", "{\"v\": 2}"),
              List.of("DELETE", "4", "{}"),
              List.of("UPSERT", "6", "{\"v\": 3}"));
    }
  }

  @Test
  void expiredTombstonesAndHistoryRowsArePurgedInTheBackground() throws Exception {
    try (PostgresSink sink = new PostgresSink("a", config(server, "purge")
        .history(PostgresSinkConfig.History.keptFor(Duration.ofMillis(300)))
        .tombstoneRetention(Duration.ofMillis(300)).purgeBatchSize(2).build())) {
      List<Record> live = new ArrayList<>();
      List<Record> deletes = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        Record r = upsert("c1", CONFIG_MAP, "ns", "gone-" + i, "{}", 1);
        sink.write(List.of(r));
        deletes.add(delete(r, 2));
        live.add(upsert("c1", CONFIG_MAP, "ns", "kept-" + i, "{}", 1));
      }
      sink.write(deletes);
      sink.write(live);
      assertThat(count(server, "SELECT count(*) FROM purge.object_state")).isEqualTo(10);

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThat(count(server, "SELECT count(*) FROM purge.object_state")).isEqualTo(5);
        assertThat(count(server, "SELECT count(*) FROM purge.changes")).isZero();
      });
      assertThat(count(server, "SELECT count(*) FROM purge.objects")).isEqualTo(5);
    }
  }

  @Test
  void aRecordTheDatabaseRefusesIsRejectedAloneAndTheRestCommitted() throws Exception {
    try (PostgresSink sink = new PostgresSink("a", config(server, "reject").build())) {
      List<Record> batch = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        // jsonb cannot hold a NUL character: SQLState 22P05
        String fields = i == 4 ? "{\"note\":\"a\\u0000b\"}" : "{\"i\":" + i + "}";
        batch.add(upsert("c1", CONFIG_MAP, "ns", "cm-" + i, fields, 1));
      }
      assertThatThrownBy(() -> sink.write(batch))
          .isInstanceOfSatisfying(RecordsRejectedException.class, e -> {
            assertThat(e.othersDelivered()).isTrue();
            assertThat(e.rejections()).extracting(Rejection::key)
                .containsExactly("/ConfigMap/ns/cm-4");
            assertThat(e.rejections().get(0).reason()).contains("22P05");
          });
      assertThat(rows(server, "SELECT name FROM reject.objects ORDER BY name"))
          .extracting(r -> r.get(0))
          .containsExactly("cm-0", "cm-1", "cm-2", "cm-3", "cm-5", "cm-6");
    }
  }

  @Test
  void aRotatedPasswordIsUsedByTheSameSink() throws Exception {
    server.execute("CREATE ROLE rotating LOGIN PASSWORD 'first'",
        "GRANT CREATE ON DATABASE " + TestPostgresServer.DATABASE + " TO rotating");
    AtomicReference<String> password = new AtomicReference<>("first");
    try (PostgresSink sink = new PostgresSink("a", config(server, "rotation")
        .credentials(() -> "rotating", password::get)
        .credentialsCheckInterval(Duration.ZERO).build())) {
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":1}", 1)));

      server.execute("ALTER ROLE rotating PASSWORD 'second'");
      // sessions opened with the old password stay valid: end them, so the pool must log in again
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        server.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            + " WHERE usename = 'rotating'");
        assertThat(count(server, "SELECT count(*) FROM pg_stat_activity"
            + " WHERE usename = 'rotating'")).isZero();
      });
      // the pool may first hand out a connection that was ended: fails too, retryably
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThatThrownBy(() -> sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm",
            "{\"v\":2}", 2)))).isInstanceOfSatisfying(SinkException.class,
                e -> assertThat(e.retryable()).isTrue());
        assertThat(sink.databaseCheck().reason()).isEqualTo("AuthenticationFailed");
      });

      password.set("second");
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{\"v\":3}", 3)));
      assertThat(sink.databaseCheck().ready()).isTrue();
      assertThat(rows(server, "SELECT fields->>'v' FROM rotation.objects"))
          .containsExactly(List.of("3"));
    }
  }

  @Test
  void badConfigurationIsACheckNamingTheCauseAndWritesWaitRetryably() {
    server.execute("CREATE ROLE no_create LOGIN PASSWORD 'pw'");
    PostgresSinkConfig unreachable = PostgresSinkConfig.builder()
        .url("jdbc:postgresql://127.0.0.1:1/" + TestPostgresServer.DATABASE)
        .credentials("x", "y").connectTimeout(Duration.ofMillis(500)).build();
    // the pool tries to connect until the timeout: keep it short
    Duration timeout = Duration.ofMillis(500);
    PostgresSinkConfig wrongPassword = config(server, "bad").credentials(server.superuser(),
        "wrong").connectTimeout(timeout).build();
    PostgresSinkConfig noPrivilege = config(server, "bad").credentials("no_create", "pw")
        .connectTimeout(timeout).build();
    PostgresSinkConfig noDatabase = config(server, "bad").url(server.jdbcUrl("missing"))
        .connectTimeout(timeout).build();
    assertCheck(unreachable, "Unreachable", "127.0.0.1:1");
    assertCheck(wrongPassword, "AuthenticationFailed", "28P01");
    assertCheck(noPrivilege, "PermissionDenied", "42501");
    assertCheck(noDatabase, "DatabaseMissing", "3D000");
    PostgresSinkConfig secretGone = config(server, "bad").credentials(() -> "kollect", () -> {
      throw new IllegalStateException("Secret kollect-pg not found");
    }).build();
    assertCheck(secretGone, "CredentialsUnavailable", "password");
  }

  private static void assertCheck(PostgresSinkConfig config, String reason, String named) {
    try (PostgresSink sink = new PostgresSink("a", config)) {
      assertThatThrownBy(() -> sink.write(List.of(upsert("c", CONFIG_MAP, "ns", "cm", "{}", 1))))
          .isInstanceOfSatisfying(SinkException.class, e -> assertThat(e.retryable()).isTrue());
      assertThat(sink.databaseCheck().status()).isEqualTo(DatabaseCheck.Status.ERROR);
      assertThat(sink.databaseCheck().reason()).isEqualTo(reason);
      assertThat(sink.databaseCheck().message()).contains(named)
          .doesNotContain(server.superuserPassword());
    }
  }

  @Test
  void aSecondWriterOfTheSameClusterNameWithAnotherIdentityIsReported() throws Exception {
    try (PostgresSink a = new PostgresSink("a", config(server, "writers")
            .writerIdentity("source-a").build());
        PostgresSink shardOfA = new PostgresSink("a", config(server, "writers")
            .writerIdentity("source-a").build());
        PostgresSink b = new PostgresSink("b", config(server, "writers")
            .writerIdentity("source-b").build())) {
      a.write(List.of(upsert("prod", CONFIG_MAP, "ns", "one", "{}", 1)));
      shardOfA.write(List.of(upsert("prod", CONFIG_MAP, "ns", "two", "{}", 1)));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(count(server, "SELECT count(DISTINCT instance) FROM writers.writers"))
              .isEqualTo(2));
      assertThat(a.writerConflicts()).isEmpty();

      b.write(List.of(upsert("prod", CONFIG_MAP, "ns", "three", "{}", 1)));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(a.writerConflicts()).singleElement().satisfies(w -> {
            assertThat(w.identity()).isEqualTo("source-b");
            assertThat(w.instance()).isEqualTo(b.instance());
            assertThat(w.describe()).contains("prod");
          }));
      assertThat(b.writerConflicts()).allSatisfy(w -> assertThat(w.identity())
          .isEqualTo("source-a"));

      b.close();
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(a.writerConflicts()).isEmpty());
    }
  }

  @Test
  void lookupsByKindAndNamespaceByClusterAndByAFieldAreAnsweredFromAnIndex() throws Exception {
    try (PostgresSink sink = new PostgresSink("a", config(server, "indexed").build())) {
      assertThat(sink.checkDatabase().ready()).isTrue();
    }
    // 20,000 objects over 200 clusters, 20 kinds, 100 namespaces, and as many history rows
    server.execute("INSERT INTO indexed.object_state (cluster, target, api_group, kind,"
        + " namespace, name, api_version, sequence, fields) SELECT 'c' || (i % 200), 't', '',"
        + " 'Kind' || (i % 20), 'ns' || (i % 100), 'n' || i, 'v1', 1, jsonb_build_object("
        + "'images', jsonb_build_array('img' || i))"
        + " FROM generate_series(1, 20000) i",
        "INSERT INTO indexed.changes (op, cluster, target, api_group, api_version, kind,"
        + " namespace, name, sequence, observed_at) SELECT 'UPSERT', 'c', 't', '', 'v1', 'K',"
        + " 'ns' || (i % 100), 'n' || i, i, now() - i * interval '1 minute'"
        + " FROM generate_series(1, 20000) i",
        "ANALYZE indexed.object_state", "ANALYZE indexed.changes");
    try (Connection c = server.connect(); Statement s = c.createStatement()) {
      assertThat(plan(s, "SELECT * FROM indexed.objects WHERE kind = 'Kind3'"
          + " AND namespace = 'ns3'")).contains("object_state_kind_namespace");
      assertThat(plan(s, "SELECT * FROM indexed.objects WHERE namespace = 'ns5'"))
          .contains("object_state_namespace");
      assertThat(plan(s, "SELECT * FROM indexed.objects WHERE cluster = 'c7'"))
          .contains("object_state_cluster_kind");
      assertThat(plan(s, "SELECT * FROM indexed.objects WHERE fields @> '{\"images\":"
          + " [\"img77\"]}'")).contains("object_state_fields");
      assertThat(plan(s, "SELECT * FROM indexed.changes WHERE namespace = 'ns5'"
          + " AND observed_at > now() - interval '1 day'"))
          .contains("changes_namespace_observed");
    }
  }

  private static String plan(Statement s, String query) throws SQLException {
    StringBuilder out = new StringBuilder();
    try (ResultSet rs = s.executeQuery("EXPLAIN " + query)) {
      while (rs.next()) {
        out.append(rs.getString(1)).append('\n');
      }
    }
    return out.toString();
  }
}

package io.kollect.export.postgres;

import static io.kollect.export.postgres.Fixtures.CONFIG_MAP;
import static io.kollect.export.postgres.Fixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.export.DeliveryStatus;
import io.kollect.export.Exporter;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.testing.TestPostgresServer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The database goes away while changes stream in through the real exporter, and comes back: the
 * writes fail retryably meanwhile, the check says the database is unreachable, and afterwards the
 * tables hold exactly the last state, with no change recorded twice.
 */
class DatabaseRestartIT {

  private static final String TARGET = "platform/cms";
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
  void aRestartMidStreamLosesNothingDuplicatesNothingAndTheOutageIsReported() throws Exception {
    PostgresSink sink = new PostgresSink("fleet", Fixtures.config(server, "restart")
        .history(PostgresSinkConfig.History.keptFor(Duration.ofDays(1)))
        .connectTimeout(Duration.ofSeconds(1)).build());
    AtomicReference<Map<String, Record>> lastDesired = new AtomicReference<>(Map.of());
    AtomicInteger rounds = new AtomicInteger();
    AtomicBoolean running = new AtomicBoolean(true);
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(sink, PostgresSink.defaultOptions().withBackoff(Duration.ofMillis(100),
          Duration.ofSeconds(1)));
      // churn: changes, deletes and re-creates, one converge every 20 ms, until told to stop
      Thread churn = new Thread(() -> {
        Random random = new Random(7);
        Map<String, Record> desired = new HashMap<>();
        while (running.get()) {
          int round = rounds.incrementAndGet();
          for (int i = 0; i < 20; i++) {
            String name = "cm-" + random.nextInt(100);
            if (random.nextInt(4) == 0) {
              desired.remove(name);
            } else {
              desired.put(name, configMap(name, round));
            }
          }
          try {
            ex.converge(TARGET, Set.of("fleet"), List.copyOf(desired.values()));
          } catch (IllegalStateException closed) {
            return;
          }
          lastDesired.set(Map.copyOf(desired));
          try {
            Thread.sleep(20); // pacing of the churn, not a wait for a result
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "churn");
      churn.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> rounds.get() >= 20
          && sink.databaseCheck().ready());

      server.stop();
      await().atMost(Duration.ofSeconds(30)).alias("two failed writes during the outage")
          .until(() -> ex.deliveryStatus(TARGET, "fleet")
              .map(DeliveryStatus::consecutiveFailures).orElse(0) >= 2);
      assertThat(ex.deliveryStatus(TARGET, "fleet").orElseThrow().rejected()).isEmpty();
      assertThat(sink.databaseCheck().reason()).isEqualTo("Unreachable");
      int roundsAtRestart = rounds.get();

      server.restart();
      await().atMost(Duration.ofSeconds(60)).until(() -> rounds.get() >= roundsAtRestart + 30);
      running.set(false);
      churn.join(10_000);
      assertThat(ex.awaitIdle(Duration.ofSeconds(60))).isTrue();
      assertThat(ex.deliveryStatus(TARGET, "fleet").orElseThrow().failing()).isFalse();
      assertThat(sink.databaseCheck().ready()).isTrue();
    } finally {
      sink.close();
    }

    Map<String, String> table = new TreeMap<>();
    for (List<String> row : rows(server, "SELECT name, content_hash FROM restart.objects")) {
      table.put(row.get(0), row.get(1));
    }
    assertThat(table).isEqualTo(new TreeMap<>(lastDesired.get().values().stream()
        .collect(Collectors.toMap(Record::name, Record::contentHash))));
    // each history row is a change: never the same op and content twice in a row for an object
    List<List<String>> repeats = rows(server, "SELECT name, sequence FROM (SELECT name, sequence,"
        + " op, content_hash, lag(op) OVER w AS prev_op, lag(content_hash) OVER w AS prev_hash"
        + " FROM restart.changes WINDOW w AS (PARTITION BY name ORDER BY sequence)) c"
        + " WHERE op = prev_op AND content_hash IS NOT DISTINCT FROM prev_hash");
    assertThat(repeats).isEmpty();
    assertThat(rows(server, "SELECT count(*) = count(DISTINCT (name, sequence))"
        + " FROM restart.changes")).containsExactly(List.of("t"));
  }

  private static Record configMap(String name, int version) {
    return new Record(Op.UPSERT, "prod-eu-1", TARGET, "default", CONFIG_MAP, "load", name,
        "uid-" + name, String.valueOf(version), Instant.now(), "h-" + name + "-" + version,
        Map.of("version", Fixtures.JSON.getNodeFactory().numberNode(version)),
        Map.of("app", name), Map.of());
  }
}

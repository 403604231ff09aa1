package io.kollect.export.postgres;

import static io.kollect.export.postgres.Fixtures.CONFIG_MAP;
import static io.kollect.export.postgres.Fixtures.DEPLOYMENT;
import static io.kollect.export.postgres.Fixtures.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Record;
import io.kollect.testing.TestPostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every query of {@code docs/examples/postgres} runs against a small two-cluster fleet written
 * through the sink, and answers what its comment asks. A cell {@code *} matches any value (a
 * timestamp); a row shorter than the result checks its first columns.
 */
class ExampleQueriesIT {

  private static final Path QUERIES = Path.of("..", "docs", "examples", "postgres");
  private static final String EU = "prod-eu-1";
  private static final String US = "prod-us-1";

  private static final Map<String, List<String>> EXPECTED = new LinkedHashMap<>();

  static {
    EXPECTED.put("01-images-per-cluster.sql", List.of(
        "prod-eu-1|envoyproxy/envoy:v1.31.2|1",
        "prod-eu-1|registry.example.com/checkout:2.14.1|1",
        "prod-eu-1|registry.example.com/ledger:1.0.0|1",
        "prod-us-1|envoyproxy/envoy:v1.31.2|1",
        "prod-us-1|nginx:1.25.3|1",
        "prod-us-1|registry.example.com/checkout:2.13.0|1"));
    EXPECTED.put("02-where-an-image-still-runs.sql", List.of(
        "prod-eu-1|payments|checkout",
        "prod-us-1|payments|checkout"));
    EXPECTED.put("03-certificates-expiring-within-30-days.sql", List.of(
        "prod-us-1|payments|expired-tls",
        "prod-eu-1|payments|checkout-tls"));
    EXPECTED.put("04-objects-per-namespace.sql", List.of(
        "prod-eu-1|payments|ConfigMap|1",
        "prod-eu-1|payments|Deployment|2",
        "prod-eu-1|payments|Secret|3",
        "prod-us-1|payments|Deployment|1",
        "prod-us-1|payments|Secret|1",
        "prod-us-1|web|Deployment|1",
        "prod-us-1|web|Secret|3"));
    EXPECTED.put("05-helm-releases-by-chart-version.sql", List.of(
        "ingress-nginx|4.11.3|1|prod-us-1/web/ingress",
        "redis|20.2.1|2|prod-eu-1/payments/cache, prod-us-1/web/frontend-cache"));
    EXPECTED.put("06-deployments-without-owner-label.sql", List.of(
        "prod-eu-1|payments|ledger",
        "prod-us-1|web|frontend"));
    EXPECTED.put("07-what-changed-in-a-namespace-yesterday.sql", List.of(
        "*|UPSERT|prod-eu-1|ConfigMap|checkout-config|{\"v\": 1}",
        "*|UPSERT|prod-eu-1|ConfigMap|checkout-config|{\"v\": 2}"));
    EXPECTED.put("08-history-of-one-object.sql", List.of(
        "*|*|UPSERT|{\"v\": 1}",
        "*|*|UPSERT|{\"v\": 2}"));
    EXPECTED.put("09-deployments-not-fully-ready.sql", List.of(
        "prod-us-1|web|frontend|0|3",
        "prod-eu-1|payments|ledger|1|2"));
    EXPECTED.put("10-deleted-in-the-last-day.sql", List.of(
        "prod-eu-1|ConfigMap|payments|old-config|*|{\"v\": 7}"));
  }

  private static TestPostgresServer server;
  private static long sequence;

  @BeforeAll
  static void writeTheFleet() throws Exception {
    server = TestPostgresServer.start();
    Instant now = Instant.now();
    Instant yesterdayNoon = Instant.parse(Fixtures.rows(server,
        "SELECT to_char((date_trunc('day', now()) - interval '12 hours') AT TIME ZONE 'UTC',"
        + " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')").get(0).get(0));
    try (PostgresSink sink = new PostgresSink("fleet", PostgresSinkConfig.builder()
        .url(server.jdbcUrl()).credentials(server.superuser(), server.superuserPassword())
        .history(PostgresSinkConfig.History.keptFor(Duration.ofDays(30))).build())) {
      List<Record> fleet = new ArrayList<>();
      fleet.add(deployment(EU, "payments", "checkout", 3, 3, true,
          "registry.example.com/checkout:2.14.1", "envoyproxy/envoy:v1.31.2"));
      fleet.add(deployment(EU, "payments", "ledger", 2, 1, false,
          "registry.example.com/ledger:1.0.0"));
      fleet.add(deployment(US, "payments", "checkout", 3, 3, true,
          "registry.example.com/checkout:2.13.0", "envoyproxy/envoy:v1.31.2"));
      fleet.add(deployment(US, "web", "frontend", 3, 0, false, "nginx:1.25.3"));
      fleet.add(certificate(EU, "payments", "checkout-tls", now.plus(Duration.ofDays(10))));
      fleet.add(certificate(US, "web", "frontend-tls", now.plus(Duration.ofDays(90))));
      fleet.add(certificate(US, "payments", "expired-tls", now.minus(Duration.ofDays(2))));
      fleet.add(helmRelease(EU, "payments", "cache", 1, "redis", "20.1.4", "superseded"));
      fleet.add(helmRelease(EU, "payments", "cache", 2, "redis", "20.2.1", "deployed"));
      fleet.add(helmRelease(US, "web", "frontend-cache", 1, "redis", "20.2.1", "deployed"));
      fleet.add(helmRelease(US, "web", "ingress", 3, "ingress-nginx", "4.11.3", "deployed"));
      sink.write(fleet);
      sink.write(List.of(object(EU, CONFIG_MAP, "payments", "checkout-config", "{\"v\":1}",
          Map.of(), yesterdayNoon)));
      sink.write(List.of(object(EU, CONFIG_MAP, "payments", "checkout-config", "{\"v\":2}",
          Map.of(), yesterdayNoon.plus(Duration.ofHours(3)))));
      Record old = object(EU, CONFIG_MAP, "payments", "old-config", "{\"v\":7}", Map.of(),
          now.minusSeconds(60));
      sink.write(List.of(old));
      sink.write(List.of(old.tombstone(now.minusSeconds(30)).withSequence(++sequence)));
    }
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void everyExampleQueryAnswersItsQuestionOnTheFixtureFleet() throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(QUERIES)) {
      files = list.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
    }
    assertThat(files).extracting(p -> p.getFileName().toString())
        .containsExactlyElementsOf(EXPECTED.keySet());
    for (Path file : files) {
      List<List<String>> result = Fixtures.rows(server, Files.readString(file));
      List<String> expected = EXPECTED.get(file.getFileName().toString());
      assertThat(result).as(file.getFileName() + " returned " + result).hasSize(expected.size());
      for (int i = 0; i < expected.size(); i++) {
        String[] cells = expected.get(i).split("\\|", -1);
        for (int c = 0; c < cells.length; c++) {
          if (!cells[c].equals("*")) {
            assertThat(String.valueOf(result.get(i).get(c)))
                .as(file.getFileName() + " row " + i + " column " + c + " of " + result)
                .isEqualTo(cells[c]);
          }
        }
      }
    }
  }

  private static Record deployment(String cluster, String namespace, String name, int replicas,
      int ready, boolean owned, String... images) {
    String fields = "{\"replicas\":" + replicas + ",\"readyReplicas\":" + ready
        + ",\"images\":[\"" + String.join("\",\"", images) + "\"]}";
    return object(cluster, DEPLOYMENT, namespace, name, fields,
        owned ? Map.of("team", namespace) : Map.of("app.kubernetes.io/name", name),
        Instant.now());
  }

  private static Record certificate(String cluster, String namespace, String name,
      Instant notAfter) {
    return object(cluster, SECRET, namespace, name, "{\"keys\":{\"tls.crt\":{\"length\":1164},"
        + "\"tls.key\":{\"length\":241}},\"expires\":\"" + notAfter + "\"}", Map.of(),
        Instant.now());
  }

  private static Record helmRelease(String cluster, String namespace, String release,
      int revision, String chart, String version, String status) {
    return object(cluster, SECRET, namespace, "sh.helm.release.v1." + release + ".v" + revision,
        "{\"release\":\"" + release + "\",\"revision\":" + revision + ",\"chart\":\"" + chart
            + "\",\"chartVersion\":\"" + version + "\",\"status\":\"" + status + "\"}",
        Map.of(), Instant.now());
  }

  private static Record object(String cluster, GroupVersionKind kind, String namespace,
      String name, String fields, Map<String, String> labels, Instant observedAt) {
    return Fixtures.upsert(cluster, kind, namespace, name, fields, labels, ++sequence,
        observedAt);
  }
}

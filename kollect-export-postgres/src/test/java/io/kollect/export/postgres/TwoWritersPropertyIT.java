package io.kollect.export.postgres;

import static io.kollect.export.postgres.Fixtures.CONFIG_MAP;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.export.SinkException;
import io.kollect.extract.Record;
import io.kollect.testing.TestPostgresServer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Latest state wins whatever the order: one record stream split across two writers (each record
 * to one of them or to both, as after a re-balance or a retry), each writer sending its share in
 * any order and in batches of any size, both at once, ends with exactly the newest sequence's
 * state of every key, in the view and in the tombstones.
 */
class TwoWritersPropertyIT {

  private static final AtomicInteger TRY = new AtomicInteger();
  private static TestPostgresServer server;
  private static PostgresSink first;
  private static PostgresSink second;
  private static ExecutorService writers;

  /** One state of the stream: object {@code key}, and {@code value} (0: a DELETE). */
  record Step(int key, int value) {}

  @BeforeContainer
  static void start() {
    writers = Executors.newFixedThreadPool(2);
    server = TestPostgresServer.start();
    first = new PostgresSink("first", Fixtures.config(server, "two_writers").build());
    second = new PostgresSink("second", Fixtures.config(server, "two_writers").build());
  }

  @AfterContainer
  static void stop() {
    writers.shutdownNow();
    first.close();
    second.close();
    server.close();
  }

  @Provide
  Arbitrary<List<Step>> streams() {
    return Combinators.combine(Arbitraries.integers().between(0, 3),
        Arbitraries.integers().between(0, 4)).as(Step::new).list().ofMinSize(1).ofMaxSize(24);
  }

  @Property(tries = 30)
  void anyInterleavingAcrossTwoWritersEndsWithTheNewestStatePerKey(
      @ForAll("streams") List<Step> stream, @ForAll long seed) throws Exception {
    String cluster = "try-" + TRY.incrementAndGet();
    Random random = new Random(seed);
    Map<Integer, Record> newest = new TreeMap<>();
    List<Record> forFirst = new ArrayList<>();
    List<Record> forSecond = new ArrayList<>();
    long sequence = 0;
    for (Step step : stream) {
      sequence += 1 + random.nextInt(3);
      Record upsert = Fixtures.upsert(cluster, CONFIG_MAP, "ns", "cm-" + step.key(),
          "{\"v\":" + step.value() + "}", sequence);
      Record r = step.value() == 0 ? Fixtures.delete(upsert, sequence) : upsert;
      newest.put(step.key(), r);
      switch (random.nextInt(3)) {
        case 0 -> forFirst.add(r);
        case 1 -> forSecond.add(r);
        default -> {
          forFirst.add(r);
          forSecond.add(r);
        }
      }
    }
    Collections.shuffle(forFirst, random);
    Collections.shuffle(forSecond, random);
    // two threads of their own: the common pool runs one task at a time on a 2-core machine
    CompletableFuture<Void> a = CompletableFuture.runAsync(() -> send(first, forFirst, seed),
        writers);
    CompletableFuture<Void> b = CompletableFuture.runAsync(() -> send(second, forSecond, ~seed),
        writers);
    CompletableFuture.allOf(a, b).join();

    Map<String, String> expectedView = new TreeMap<>();
    Map<String, String> expectedRows = new TreeMap<>();
    for (Record r : newest.values()) {
      boolean deleted = r.op() == io.kollect.extract.Op.DELETE;
      if (!deleted) {
        expectedView.put(r.name(), r.fields().get("v").asText() + "@" + r.sequence());
      }
      expectedRows.put(r.name(), r.sequence() + (deleted ? " deleted" : " live"));
    }
    assertThat(table("SELECT name, (fields->>'v') || '@' || sequence FROM two_writers.objects"
        + " WHERE cluster = '" + cluster + "'")).isEqualTo(expectedView);
    assertThat(table("SELECT name, sequence || CASE WHEN deleted_at IS NULL THEN ' live'"
        + " ELSE ' deleted' END FROM two_writers.object_state WHERE cluster = '" + cluster + "'"))
        .isEqualTo(expectedRows);
  }

  private static void send(PostgresSink sink, List<Record> records, long seed) {
    Random random = new Random(seed);
    int i = 0;
    while (i < records.size()) {
      int n = Math.min(records.size() - i, 1 + random.nextInt(4));
      // as the exporter does: a retryable failure (two writers may deadlock on rows they both
      // hold; PostgreSQL then rolls one back, SQLState 40P01) is written again
      for (int attempt = 1; ; attempt++) {
        try {
          sink.write(records.subList(i, i + n));
          break;
        } catch (SinkException e) {
          if (!e.retryable() || attempt == 10) {
            throw new IllegalStateException(e);
          }
        }
      }
      i += n;
    }
  }

  private static Map<String, String> table(String sql) {
    Map<String, String> out = new TreeMap<>();
    for (List<String> row : Fixtures.rows(server, sql)) {
      out.put(row.get(0), row.get(1));
    }
    return out;
  }
}

package io.kollect.operator.sink;

import io.kollect.export.Sink;
import io.kollect.export.postgres.DatabaseCheck;
import io.kollect.export.postgres.PostgresSink;
import io.kollect.export.postgres.WriterConflict;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The postgres sinks of KollectSinks, for their status. A database check connects and migrates
 * the schema and can take up to the sink's connect timeout (an address that does not answer), so
 * it runs on a thread of its own, never on a watch thread nor on the sink-health loop, and at most
 * one per sink at a time. A sink is checked when it is (re)built, so a bad configuration is its
 * status before any record is written, and again while it is not ready, at most every {@link
 * #RECHECK} (a write checks too, and a failed write records what it found, so an outage is seen
 * at the exporter's retry pace). The status is rewritten by the sink-health loop, which reads
 * {@link #databaseCheck} and {@link #writerConflicts}.
 */
public final class PostgresSinkChecks implements AutoCloseable {

  /** How often a database that is not ready is checked again when no write does it. */
  static final Duration RECHECK = Duration.ofSeconds(10);

  private record Entry(PostgresSink sink, Instant lastCheck) {}

  private final Map<String, Entry> sinks = new ConcurrentHashMap<>();
  private final Map<PostgresSink, Boolean> running = new ConcurrentHashMap<>();
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "kollect-postgres-check");
    t.setDaemon(true);
    return t;
  });
  private final Clock clock;

  public PostgresSinkChecks(Clock clock) {
    this.clock = clock;
  }

  /** The engine sink {@code name} is now {@code sink}: a postgres sink is checked at once. */
  public void put(String name, Sink sink) {
    if (sink instanceof PostgresSink postgres) {
      sinks.put(name, new Entry(postgres, clock.instant()));
      check(postgres);
    } else {
      sinks.remove(name);
    }
  }

  public void remove(String name) {
    sinks.remove(name);
  }

  /** The last database check of the postgres sink {@code name}; {@code null} for other sinks. */
  public DatabaseCheck databaseCheck(String name) {
    Entry e = sinks.get(name);
    return e == null ? null : e.sink().databaseCheck();
  }

  /** Live writers of the same cluster names with another identity; empty for other sinks. */
  public List<WriterConflict> writerConflicts(String name) {
    Entry e = sinks.get(name);
    return e == null ? List.of() : e.sink().writerConflicts();
  }

  /** Checks again every postgres sink that was not ready at its last check. */
  public void recheck() {
    Instant now = clock.instant();
    sinks.forEach((name, e) -> {
      if (!e.sink().databaseCheck().ready() && !now.isBefore(e.lastCheck().plus(RECHECK))
          && sinks.replace(name, e, new Entry(e.sink(), now))) {
        check(e.sink());
      }
    });
  }

  private void check(PostgresSink sink) {
    if (running.putIfAbsent(sink, Boolean.TRUE) != null) {
      return;
    }
    executor.execute(() -> {
      try {
        sink.checkDatabase();
      } finally {
        running.remove(sink);
      }
    });
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sinks.clear();
  }
}

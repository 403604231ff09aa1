package io.kollect.operator.sink;

import io.kollect.export.Sink;
import io.kollect.export.postgres.DatabaseCheck;
import io.kollect.export.postgres.PostgresSink;
import io.kollect.export.postgres.WriterConflict;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The postgres sinks of KollectSinks, for their status. A database check connects and migrates
 * the schema and can take up to the sink's connect timeout (an address that does not answer), so
 * it runs in the background ({@link BackgroundSinkChecks}). A sink is checked when it is (re)built,
 * so a bad configuration is its status before any record is written, and again while it is not
 * ready, at most every {@link #RECHECK} (a write checks too, and a failed write records what it
 * found, so an outage is seen at the exporter's retry pace). The status is rewritten by the
 * sink-health loop, which reads {@link #databaseCheck} and {@link #writerConflicts}.
 */
public final class PostgresSinkChecks implements AutoCloseable {

  /** How often a database that is not ready is checked again when no write does it. */
  static final Duration RECHECK = Duration.ofSeconds(10);

  private final BackgroundSinkChecks<PostgresSink> checks;

  public PostgresSinkChecks(Clock clock) {
    this.checks = BackgroundSinkChecks.of(PostgresSink.class)
        .check(PostgresSink::checkDatabase)
        .ready(sink -> sink.databaseCheck().ready())
        .recheckInterval(RECHECK)
        .clock(clock)
        .threadName("kollect-postgres-check")
        .build();
  }

  /** The engine sink {@code name} is now {@code sink}: a postgres sink is checked at once. */
  public void put(String name, Sink sink) {
    checks.put(name, sink);
  }

  public void remove(String name) {
    checks.remove(name);
  }

  /** The last database check of the postgres sink {@code name}; {@code null} for other sinks. */
  public DatabaseCheck databaseCheck(String name) {
    PostgresSink sink = checks.sink(name);
    return sink == null ? null : sink.databaseCheck();
  }

  /** Live writers of the same cluster names with another identity; empty for other sinks. */
  public List<WriterConflict> writerConflicts(String name) {
    PostgresSink sink = checks.sink(name);
    return sink == null ? List.of() : sink.writerConflicts();
  }

  /** Checks again every postgres sink that was not ready at its last check. */
  public void recheck() {
    checks.recheck();
  }

  @Override
  public void close() {
    checks.close();
  }
}

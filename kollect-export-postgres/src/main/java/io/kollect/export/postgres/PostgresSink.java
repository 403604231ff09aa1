package io.kollect.export.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.kollect.export.RecordsRejectedException;
import io.kollect.export.Rejection;
import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.export.SinkOptions;
import io.kollect.export.SuppliedSecret;
import io.kollect.export.ThrottledCredentials;
import io.kollect.extract.Record;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes records into PostgreSQL tables whose content <em>is</em> the inventory: the view {@code
 * objects} holds one row per current object, the table {@code changes} (with history on) one row
 * per change of an object's op or content. The schema is the sink's own: it is created and
 * migrated before the first write ({@link #checkDatabase()}); see {@code docs/sinks.md}, section
 * "postgres", for its columns, indexes and example queries.
 *
 * <p><b>Latest state wins, whatever the order.</b> A record is applied only when its {@code
 * sequence} is greater than the stored one, and a DELETE leaves a tombstone that keeps its
 * sequence (purged after {@link PostgresSinkConfig#tombstoneRetention()}), so shards after a
 * re-balance, an old pod still writing during a rolling update and retried batches all end with
 * the newest state of every object ({@link #destinationSharedByShards()} is true).
 *
 * <p><b>Acknowledged means committed.</b> A batch is one transaction and {@link #write} returns
 * only after its commit. A failure is classified by its SQLState: a record the database refuses
 * for good (data classes {@code 22}, {@code 23}, {@code 54}, e.g. a NUL character jsonb cannot
 * hold) is found by bisecting the batch, each half in its own transaction, and rejected alone in a
 * {@link RecordsRejectedException} while the rest is committed; anything else (connection lost,
 * deadlock, server restarting, wrong password, missing privilege) fails the write retryably, the
 * exporter keeps the records (coalesced) and writes them again, and what was already committed is
 * refused by its sequence, so nothing is duplicated.
 *
 * <p><b>Bad configuration is a status, not a crash.</b> The database check ({@link
 * #databaseCheck()}) names what is wrong: unreachable, authentication, missing database or
 * privilege, a schema migrated by a newer Kollect. While it is not ready, writes fail retryably
 * (records are never dropped for a configuration error) and the check runs again before the next
 * write; each change of its outcome is logged once.
 *
 * <p><b>Rotated credentials.</b> Username, password and TLS material come from suppliers, asked
 * again at most every {@link PostgresSinkConfig#credentialsCheckInterval()}; new connections use
 * what they returned last, and when it changed the pool retires its open connections as soon as
 * they are returned, so the same sink continues with the new credentials.
 *
 * <p><b>Writers.</b> In the background the sink refreshes its row in {@code writers} for each
 * cluster name it wrote and looks for live writers of the same cluster name with another {@link
 * PostgresSinkConfig#writerIdentity()} ({@link #writerConflicts()}): two source clusters under one
 * name would overwrite each other's rows. The same task purges expired tombstones and history rows
 * in bounded batches.
 */
public final class PostgresSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresSink.class);
  /** The sink's default linger: a change reaches the table in milliseconds. */
  static final Duration LINGER = Duration.ofMillis(5);

  private final String name;
  private final PostgresSinkConfig config;
  private final String instance;
  private final String where;
  private final RecordStatements statements;
  private final Maintenance maintenance;
  private final Set<String> clusters = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private final Object checkLock = new Object();
  private HikariDataSource pool;
  private ScheduledExecutorService background;
  private boolean closed;
  private volatile DatabaseCheck check;
  private volatile List<WriterConflict> conflicts = List.of();
  /** The suppliers' last answer, asked again once per check interval. */
  private final ThrottledCredentials<Credentials> credentials;

  public PostgresSink(String name, PostgresSinkConfig config) {
    this.name = Objects.requireNonNull(name, "name");
    this.config = Objects.requireNonNull(config, "config");
    this.credentials = new ThrottledCredentials<>(() -> Credentials.read(config),
        config.credentialsCheckInterval(), (before, after) -> credentialsChanged());
    this.instance = hostName() + "/" + UUID.randomUUID().toString().substring(0, 8);
    this.where = "postgres " + config.url() + " schema " + config.schema();
    this.statements = new RecordStatements(config.quotedSchema(), config.history().enabled());
    this.maintenance = new Maintenance(config, instance);
    this.check = DatabaseCheck.notChecked(where);
  }

  /**
   * The postgres sink's own delivery defaults: linger 5 ms (a change reaches the table in
   * milliseconds) and heartbeat off, because the table already keeps every object's last state.
   */
  public static SinkOptions defaultOptions() {
    return SinkOptions.defaults().withLinger(LINGER).withHeartbeatInterval(Duration.ZERO);
  }

  @Override
  public String name() {
    return name;
  }

  /** What the sink was built from. */
  public PostgresSinkConfig config() {
    return config;
  }

  /** This sink instance in the {@code writers} table: host name and a random id. */
  public String instance() {
    return instance;
  }

  /** Every shard writes the same tables; the sequence decides which state a row holds. */
  @Override
  public boolean destinationSharedByShards() {
    return true;
  }

  /** Each write takes its own pooled connection and transaction. */
  @Override
  public boolean concurrentWrites() {
    return true;
  }

  /** The outcome of the last database check ({@link DatabaseCheck.Status#UNKNOWN} before it). */
  public DatabaseCheck databaseCheck() {
    return check;
  }

  /**
   * Live writers of the cluster names this sink wrote, with another writer identity, as of the
   * last background refresh (empty when none).
   */
  public List<WriterConflict> writerConflicts() {
    return conflicts;
  }

  /**
   * Connects, creates or migrates the schema, and keeps the outcome for {@link #databaseCheck()}.
   * Takes at most about {@link PostgresSinkConfig#connectTimeout()} when the database does not
   * answer.
   */
  public DatabaseCheck checkDatabase() {
    synchronized (checkLock) {
      return runAndKeepCheck();
    }
  }

  private DatabaseCheck runAndKeepCheck() {
    DatabaseCheck outcome = runCheck();
    DatabaseCheck before = check;
    check = outcome;
    if (!outcome.equals(before)) {
      if (outcome.ready()) {
        LOG.info("postgres sink {}: {}", name, outcome.message());
      } else {
        LOG.warn("postgres sink {}: {}", name, outcome.message());
      }
    }
    if (outcome.ready()) {
      startBackground();
    }
    return outcome;
  }

  private DatabaseCheck runCheck() {
    try {
      credentials.get();
    } catch (SuppliedSecret.UnavailableException e) {
      return new DatabaseCheck(DatabaseCheck.Status.ERROR, "CredentialsUnavailable", where
          + ": " + e.getMessage());
    }
    try (Connection c = pool().getConnection()) {
      int from = SchemaMigrator.migrate(c, config.schema());
      int to = SchemaMigrator.latestVersion();
      return from == to
          ? new DatabaseCheck(DatabaseCheck.Status.READY, "SchemaReady", where + ": schema at"
              + " version " + to)
          : new DatabaseCheck(DatabaseCheck.Status.READY, "SchemaMigrated", where + ": schema"
              + " migrated from version " + from + " to " + to);
    } catch (SchemaMigrator.TooNew e) {
      return new DatabaseCheck(DatabaseCheck.Status.ERROR, "SchemaTooNew", where + ": "
          + e.getMessage());
    } catch (SQLException | RuntimeException e) {
      return failedCheck(e);
    }
  }

  private DatabaseCheck failedCheck(Exception e) {
    String state = SqlErrors.sqlState(e);
    String cause = SqlErrors.describe(e);
    String reason;
    String hint;
    if (config.tls() != null && (cause.contains("SSL") || cause.contains("hostname"))) {
      reason = "TlsFailed";
      hint = "check the CA, the client certificate and key, and that the server's certificate"
          + " names the URL's host (sslmode verify-full)";
    } else if (state == null || state.startsWith("08") || state.startsWith("57")) {
      reason = "Unreachable";
      hint = "is the server running and the address right?";
    } else if (state.startsWith("28")) {
      reason = "AuthenticationFailed";
      hint = config.tls() == null ? "check the username and password (and pg_hba.conf)"
          : "check the username, password and client certificate (and pg_hba.conf)";
    } else if (state.startsWith("3D")) {
      reason = "DatabaseMissing";
      hint = "create the database named in the URL";
    } else if (state.equals("42501")) {
      reason = "PermissionDenied";
      hint = "the role needs CREATE on the database (to create schema " + config.schema()
          + ") or on the schema, or a DBA creates the schema for it";
    } else {
      reason = "DatabaseError";
      hint = "see the server's log";
    }
    return new DatabaseCheck(DatabaseCheck.Status.ERROR, reason, where + ": " + cause + " ("
        + hint + ")");
  }

  /** Writes the batch in one transaction; returns only after the commit. */
  @Override
  public void write(List<Record> batch) throws SinkException {
    if (batch.isEmpty()) {
      return;
    }
    try {
      credentials.get();
    } catch (SuppliedSecret.UnavailableException e) {
      // the records wait (coalesced) until the supplier answers again, e.g. a Secret is restored
      DatabaseCheck unavailable = new DatabaseCheck(DatabaseCheck.Status.ERROR,
          "CredentialsUnavailable", where + ": " + e.getMessage());
      if (!unavailable.equals(check)) {
        LOG.warn("postgres sink {}: {}", name, unavailable.message());
      }
      check = unavailable;
      throw SinkException.retryable(unavailable.message(), null);
    }
    DatabaseCheck current = check;
    if (!current.ready()) {
      // concurrent first writes (several targets) check once; the others find the outcome
      synchronized (checkLock) {
        current = check;
        if (!current.ready()) {
          current = runAndKeepCheck();
        }
      }
      if (!current.ready()) {
        throw SinkException.retryable(current.message(), null);
      }
    }
    for (Record r : batch) {
      clusters.add(r.cluster() == null ? "" : r.cluster());
    }
    List<Rejection> rejected = new ArrayList<>();
    deliver(batch, rejected);
    if (!rejected.isEmpty()) {
      throw new RecordsRejectedException(rejected, true);
    }
  }

  /**
   * Commits {@code part}, or, when the database refuses its content, each half on its own down to
   * the single records it refuses (collected in {@code rejected}).
   */
  private void deliver(List<Record> part, List<Rejection> rejected) throws SinkException {
    try {
      commit(part);
    } catch (SQLException | RuntimeException e) {
      if (SqlErrors.isDataError(e)) {
        if (part.size() == 1) {
          rejected.add(new Rejection(part.get(0).key(), "PostgreSQL refused the record: "
              + SqlErrors.describe(e)));
          return;
        }
        int half = part.size() / 2;
        deliver(part.subList(0, half), rejected);
        deliver(part.subList(half, part.size()), rejected);
        return;
      }
      if (!SqlErrors.isTransient(e) || SqlErrors.isOutage(e)) {
        // the database is gone, or the failure is not about the records nor passing by itself
        // (a password, a privilege, a dropped table): the status names it, and the next write
        // checks the database again
        DatabaseCheck failed = failedCheck(e);
        if (!failed.equals(check)) {
          LOG.warn("postgres sink {}: {}", name, failed.message());
        }
        check = failed;
      }
      throw SinkException.retryable(where + ": " + SqlErrors.describe(e), e);
    }
  }

  private void commit(List<Record> part) throws SQLException {
    try (Connection c = pool().getConnection()) {
      try {
        statements.write(c, part);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        SchemaMigrator.rollbackQuietly(c);
        throw e;
      }
    }
  }

  /**
   * One maintenance pass: purge expired tombstones and history rows, refresh this writer's rows
   * and the conflicts. Runs in the background every {@link
   * PostgresSinkConfig#maintenanceInterval()} once the database check passed.
   */
  void maintain() {
    try (Connection c = pool().getConnection()) {
      Maintenance.Purged purged = maintenance.purge(c);
      if (purged.tombstones() > 0 || purged.changes() > 0) {
        LOG.debug("postgres sink {}: purged {} tombstone(s) and {} history row(s)", name,
            purged.tombstones(), purged.changes());
      }
      List<WriterConflict> found = maintenance.refreshWriters(c, Set.copyOf(clusters));
      if (!found.equals(conflicts) && !found.isEmpty()) {
        LOG.warn("postgres sink {}: {}", name, found.get(0).describe());
      }
      conflicts = List.copyOf(found);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("postgres sink {}: maintenance failed, next pass retries: {}", name,
          SqlErrors.describe(e));
    }
  }

  private void startBackground() {
    synchronized (lock) {
      if (background != null || closed) {
        return;
      }
      background = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kollect-postgres-" + name);
        t.setDaemon(true);
        return t;
      });
      long every = config.maintenanceInterval().toMillis();
      background.scheduleWithFixedDelay(this::maintain, 0, every, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Told when the suppliers' answer changed: the pool retires its connections so that new ones log
   * in with the new credentials.
   */
  private void credentialsChanged() {
    LOG.info("postgres sink {}: credentials changed; new connections to {} use them", name,
        config.url());
    HikariDataSource p;
    synchronized (lock) {
      p = pool;
    }
    if (p != null && p.getHikariPoolMXBean() != null) {
      p.getHikariPoolMXBean().softEvictConnections();
    }
  }

  /** What a new connection logs in with. */
  private Credentials credentialsForConnecting() throws SQLException {
    try {
      return credentials.get();
    } catch (SuppliedSecret.UnavailableException e) {
      throw new SQLException(e.getMessage(), "28000");
    }
  }

  private HikariDataSource pool() throws SQLException {
    synchronized (lock) {
      if (closed) {
        throw new SQLException("postgres sink " + name + " is closed", "08003");
      }
      if (pool == null) {
        HikariConfig hc = new HikariConfig();
        hc.setPoolName("kollect-" + name);
        hc.setDataSource(new ConnectionSource(config, this::credentialsForConnecting,
            "kollect-" + name));
        hc.setMaximumPoolSize(config.poolSize());
        hc.setMinimumIdle(1);
        hc.setAutoCommit(false);
        hc.setConnectionTimeout(config.connectTimeout().toMillis());
        // do not connect while building: the database check reports what is wrong instead
        hc.setInitializationFailTimeout(-1);
        pool = new HikariDataSource(hc);
      }
      return pool;
    }
  }

  @Override
  public void close() {
    HikariDataSource p;
    ScheduledExecutorService b;
    synchronized (lock) {
      if (closed) {
        return;
      }
      p = pool;
      b = background;
      pool = null;
      background = null;
      closed = true;
    }
    if (b != null) {
      b.shutdownNow();
      try {
        b.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (p != null) {
      if (check.ready()) {
        try (Connection c = p.getConnection()) {
          maintenance.unregister(c);
        } catch (SQLException | RuntimeException e) {
          // the row expires by itself (not refreshed)
        }
      }
      p.close();
    }
  }

  private static String hostName() {
    String host = System.getenv("HOSTNAME");
    if (host != null && !host.isBlank()) {
      return host;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }
}

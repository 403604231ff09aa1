package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.testing.TestPostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The postgres sink through the packaged operator, side by side in one run (the SQL inventory's
 * owed figures): the first inventory of the fixture into an empty table beside a paginated LIST of
 * the same objects, then change → committed row at a steady change rate beside the runner's raw
 * watch (the floor, as P1), the http sink and stdout, with the rows and bytes the database wrote
 * per change.
 *
 * <p>A row is seen when it is committed: a trigger the runner adds to the sink's table sends a
 * {@code NOTIFY} per written row, which PostgreSQL delivers to the runner's {@code LISTEN} only at
 * commit. The sink creates its schema on its first connection, so a one-object calibration target
 * runs first (it also gives the start-up constant, as P5's); the trigger is added after it, before
 * the timed run. The trigger's cost is in the database's CPU figure.
 */
final class PostgresInventoryBench {

  /** What to run. */
  record Plan(int objects, double changesPerSecond, Duration changeDuration, boolean history,
      Duration inventoryTimeout, int createParallelism) {}

  static final String SINK = "bench-pg";
  private static final String SCHEMA = "kollect";
  private static final String NOTIFY_CHANNEL = "kollect_bench_rows";
  /**
   * How long a backend's table counters may take to reach pg_stat_user_tables: PostgreSQL 15
   * flushes them at most every second while busy and 10 s after it went idle.
   */
  private static final Duration STATISTICS_FLUSH = Duration.ofSeconds(11);

  private final Plan plan;
  private final BenchCluster cluster;
  private final OperatorLauncher launcher;
  private final RecordReceiver receiver;
  private final AtomicReference<Channel> rows = new AtomicReference<>(new Channel("postgres", 0));

  PostgresInventoryBench(Plan plan, BenchCluster cluster, OperatorLauncher launcher,
      RecordReceiver receiver) {
    this.plan = plan;
    this.cluster = cluster;
    this.launcher = launcher;
    this.receiver = receiver;
  }

  List<Map<String, Object>> run() throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("objects", plan.objects());
    out.put("history", plan.history());
    try (TestPostgresServer db = TestPostgresServer.start()) {
      cluster.apply(Fixture.profileYaml());
      cluster.apply(Fixture.httpSinkYaml("bench-http", receiver.url()));
      for (String document : postgresSinkYaml(db, plan.history()).split("(?m)^---\n")) {
        cluster.apply(document);
      }
      List<String> sinks = List.of("bench-http", SINK);
      out.put("calibration", calibrate(db, sinks));
      addNotifyTrigger(db);
      Thread listener = listen(db);
      try {
        System.err.printf("== postgres: %d ConfigMaps%n", plan.objects());
        out.put("createSeconds", cluster.growTo(plan.objects(), plan.createParallelism()));
        double[] lists = new double[3];
        PlainApi.ListResult listed = null;
        for (int i = 0; i < lists.length; i++) {
          long t = System.nanoTime();
          listed = cluster.api().listAll("/api/v1/configmaps", 500);
          lists[i] = (System.nanoTime() - t) / 1e9;
        }
        out.put("listMedianSeconds", Stats.median(lists));
        out.put("listSeconds", lists);
        out.put("listItems", listed.items());
        System.err.printf("  paginated LIST (limit 500): %.2f s median, %d items%n",
            Stats.median(lists), listed.items());
        Channel watch = new Channel("watch", Integer.MAX_VALUE);
        cluster.api().watch("/api/v1/configmaps", listed.resourceVersion(), ev -> {
          long now = System.nanoTime();
          JsonNode o = ev.path("object");
          watch.seen(o.path("metadata").path("namespace").asText(),
              o.path("metadata").path("name").asText(), o.path("data").path("stamp").asText(""),
              now);
        });
        cluster.apply(Fixture.targetYaml("bench", sinks, null));
        out.put("run", timedRun(db, watch));
      } finally {
        listener.interrupt();
      }
    }
    return List.of(out);
  }

  private Map<String, Object> calibrate(TestPostgresServer db, List<String> sinks)
      throws Exception {
    String target = Fixture.targetYaml("calibration", sinks, Fixture.CALIBRATION_NAMESPACE);
    cluster.apply(target);
    Channel http = new Channel("http", Fixture.CALIBRATION_NAME, 1);
    receiver.deliverTo(http);
    Map<String, Object> out = new LinkedHashMap<>();
    try (OperatorChild op = launcher.start("pg-calibration", cluster.kubeconfig(), (l, n) -> { })) {
      boolean complete = http.awaitComplete(System.nanoTime() + plan.inventoryTimeout().toNanos(),
          () -> !op.isAlive());
      out.put("complete", complete);
      if (complete) {
        out.put("startupSeconds", (http.completeNanos() - op.startNanos()) / 1e9);
      }
      // the sink migrates its schema on its first connection: wait until the table is there
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (!schemaExists(db) && System.nanoTime() < deadline && op.isAlive()) {
        Thread.sleep(200);
      }
    } finally {
      cluster.delete(target);
    }
    System.err.printf("  calibration (one-object target): %s%n", out);
    return out;
  }

  private static boolean schemaExists(TestPostgresServer db) throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT to_regclass('" + SCHEMA + ".object_state') IS NOT NULL")) {
      return r.next() && r.getBoolean(1);
    }
  }

  /** The postgres sink as shipped (batch, linger, heartbeat: the defaults), the superuser's login. */
  private static String postgresSinkYaml(TestPostgresServer db, boolean history) {
    return """
        apiVersion: v1
        kind: Secret
        metadata:
          name: bench-pg
          namespace: %1$s
        stringData:
          username: %2$s
          password: %3$s
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata:
          name: %4$s
          namespace: %1$s
        spec:
          type: postgres
          postgres:
            url: %5$s
            credentialsSecretRef: {name: bench-pg}
            history: {enabled: %6$s}
        """.formatted(Fixture.CONTROL_NAMESPACE, db.superuser(), db.superuserPassword(), SINK,
        db.jdbcUrl(), history);
  }

  /** One NOTIFY per written row of the sink's table, with the object and its stamp. */
  private static void addNotifyTrigger(TestPostgresServer db) {
    db.execute("""
        CREATE FUNCTION public.kollect_bench_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('%s', NEW.namespace || ' ' || NEW.name || ' '
              || coalesce(NEW.fields->>'stamp', ''));
          RETURN NEW;
        END $$""".formatted(NOTIFY_CHANNEL),
        "CREATE TRIGGER kollect_bench_notify AFTER INSERT OR UPDATE ON " + SCHEMA
            + ".object_state FOR EACH ROW EXECUTE FUNCTION public.kollect_bench_notify()");
  }

  /** LISTENs on a daemon thread, handing each committed row to the current {@link #rows} channel. */
  private Thread listen(TestPostgresServer db) throws SQLException {
    Connection c = db.connect();
    try (Statement s = c.createStatement()) {
      s.execute("LISTEN " + NOTIFY_CHANNEL);
    }
    PGConnection pg = c.unwrap(PGConnection.class);
    Thread t = new Thread(() -> {
      try (c) {
        while (!Thread.currentThread().isInterrupted()) {
          PGNotification[] batch = pg.getNotifications(500);
          long now = System.nanoTime();
          if (batch == null) {
            continue;
          }
          Channel channel = rows.get();
          for (PGNotification n : batch) {
            String[] parts = n.getParameter().split(" ", 3);
            if (parts.length == 3) {
              channel.seen(parts[0], parts[1], parts[2], now);
            }
          }
        }
      } catch (SQLException e) {
        if (!Thread.currentThread().isInterrupted()) {
          System.err.println("  LISTEN ended: " + e.getMessage());
        }
      }
    }, "postgres-listen");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private Map<String, Object> timedRun(TestPostgresServer db, Channel watch) throws Exception {
    int size = plan.objects();
    Map<String, Object> out = new LinkedHashMap<>();
    Channel http = new Channel("http", size);
    Channel stdout = new Channel("stdout", size);
    Channel postgres = new Channel("postgres", size);
    receiver.deliverTo(http);
    rows.set(postgres);
    List<Channel> channels = List.of(postgres, http, stdout);
    Duration db0 = db.cpuTime();
    DatabaseWrites w0 = DatabaseWrites.read(db);
    try (OperatorChild op = launcher.start("pg-" + size + "-timed", cluster.kubeconfig(),
        (line, now) -> {
          if (line.startsWith("{")) {
            try {
              stdout.record(PlainApi.JSON.readTree(line), now);
            } catch (java.io.IOException e) {
              // not a record line
            }
          }
        })) {
      long deadline = System.nanoTime() + plan.inventoryTimeout().toNanos();
      boolean complete = true;
      for (Channel ch : channels) {
        while (!ch.awaitComplete(Math.min(deadline, System.nanoTime() + 10_000_000_000L),
            () -> !op.isAlive())) {
          if (!op.isAlive() || System.nanoTime() >= deadline) {
            complete = false;
            break;
          }
          System.err.printf("  ... %.0f s: %s%n", (System.nanoTime() - op.startNanos()) / 1e9,
              channels.stream().map(x -> x.name() + " " + x.distinct()).toList());
        }
      }
      out.put("complete", complete);
      for (Channel ch : channels) {
        out.put(ch.name() + "Delivered", ch.distinct());
        if (ch.completeNanos() != 0) {
          out.put(ch.name() + "InventorySeconds", (ch.completeNanos() - op.startNanos()) / 1e9);
        }
      }
      out.put("operatorCpuSecondsAtInventory", op.cpuTicks() / (double) InventoryBench.ClockTicks.PER_SECOND);
      out.put("databaseCpuSecondsForInventory", db.cpuTime().minus(db0).toMillis() / 1e3);
      Thread.sleep(STATISTICS_FLUSH.toMillis()); // the inventory's last table counters
      out.put("inventoryWrites", DatabaseWrites.read(db).minus(w0).perChange(size));
      out.put("rowsInView", countRows(db));
      System.err.printf("  inventory: %s%n", out);
      if (complete && op.isAlive() && plan.changesPerSecond() > 0) {
        List<Channel> measured = new ArrayList<>(List.of(watch));
        measured.addAll(channels);
        out.put("changes", changes(op, db, measured));
      }
      out.put("exitCode", op.exitCode());
    }
    return out;
  }

  private Map<String, Object> changes(OperatorChild op, TestPostgresServer db, List<Channel> channels)
      throws Exception {
    Set<Long> stamps = ConcurrentHashMap.newKeySet();
    channels.forEach(c -> c.measure(stamps));
    List<String> paths = BenchCluster.pathsOf(plan.objects());
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    long periodNanos = (long) (1e9 / plan.changesPerSecond());
    int total = (int) Math.round(plan.changesPerSecond() * plan.changeDuration().toNanos() / 1e9);
    System.err.printf("  changes: %d at %.0f/s over %s%n", total, plan.changesPerSecond(),
        plan.changeDuration());
    long cpu0 = op.cpuTicks();
    Duration db0 = db.cpuTime();
    DatabaseWrites w0 = DatabaseWrites.read(db);
    long t0 = System.nanoTime();
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    try {
      ticker.scheduleAtFixedRate(() -> {
        if (sent.get() >= total) {
          return;
        }
        String path = paths.get(ThreadLocalRandom.current().nextInt(paths.size()));
        long stamp = System.nanoTime();
        stamps.add(stamp);
        sent.incrementAndGet();
        cluster.api().mergePatchAsync(path, Fixture.stampPatch(stamp)).whenComplete((r, e) -> {
          if (e != null || r.statusCode() != 200) {
            failed.incrementAndGet();
          }
        });
      }, 0, periodNanos, TimeUnit.NANOSECONDS);
      while (sent.get() < total) {
        Thread.sleep(100);
      }
    } finally {
      ticker.shutdownNow();
    }
    long drainDeadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (System.nanoTime() < drainDeadline && op.isAlive()
        && channels.stream().anyMatch(c -> c.changesSeen() < total - failed.get())) {
      Thread.sleep(50);
    }
    long elapsed = System.nanoTime() - t0;
    double cpuSeconds = (op.cpuTicks() - cpu0) / (double) InventoryBench.ClockTicks.PER_SECOND;
    double dbSeconds = db.cpuTime().minus(db0).toMillis() / 1e3;
    Thread.sleep(STATISTICS_FLUSH.toMillis());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sent", total);
    out.put("failed", failed.get());
    out.put("operatorCpuMsPerChange", cpuSeconds * 1000 / total);
    out.put("operatorCores", cpuSeconds / (elapsed / 1e9));
    out.put("databaseCpuMsPerChange", dbSeconds * 1000 / total);
    out.put("writesPerChange", DatabaseWrites.read(db).minus(w0).perChange(total));
    Map<String, Object> latency = new LinkedHashMap<>();
    for (Channel c : channels) {
      Stats s = Stats.of(c.latenciesMs());
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("seen", c.changesSeen());
      l.put("p50Ms", s.p50());
      l.put("p99Ms", s.p99());
      l.put("maxMs", s.max());
      latency.put(c.name(), l);
    }
    out.put("latency", latency);
    System.err.printf("  changes: %s%n", out);
    return out;
  }

  /** The figures of one run as a markdown table: one column, the run's size. */
  @SuppressWarnings("unchecked")
  static String table(List<Map<String, Object>> results) {
    Map<String, Object> r = results.get(0);
    Map<String, Object> run = (Map<String, Object>) r.getOrDefault("run", Map.of());
    Map<String, Object> changes = (Map<String, Object>) run.getOrDefault("changes", Map.of());
    Map<String, Object> inventoryWrites = (Map<String, Object>) run.getOrDefault("inventoryWrites", Map.of());
    Map<String, Object> writes = (Map<String, Object>) changes.getOrDefault("writesPerChange", Map.of());
    Map<String, Object> latency = (Map<String, Object>) changes.getOrDefault("latency", Map.of());
    Map<String, Object> calibration = (Map<String, Object>) r.getOrDefault("calibration", Map.of());
    double list = ((Number) r.get("listMedianSeconds")).doubleValue();
    StringBuilder b = new StringBuilder();
    b.append("| ").append(r.get("objects")).append(" ConfigMaps, history ")
        .append(Boolean.TRUE.equals(r.get("history")) ? "on" : "off").append(" | |\n|---|---:|\n");
    row(b, "paginated LIST, limit 500, median of 3 (s)", String.format("%.2f", list));
    row(b, "start-up constant: start → one-object target's record (s)",
        MarkdownTable.num(calibration.get("startupSeconds"), "%.1f"));
    for (String ch : List.of("postgres", "http", "stdout")) {
      Object s = run.get(ch + "InventorySeconds");
      row(b, "operator start → every object " + (ch.equals("postgres") ? "committed in the table" : "at " + ch)
          + " (s); / LIST", s instanceof Number n ? String.format("%.1f; %.1f×", n.doubleValue(),
          n.doubleValue() / list) : "not complete");
    }
    row(b, "database CPU for the first inventory (s)", MarkdownTable.num(run.get("databaseCpuSecondsForInventory"), "%.1f"));
    row(b, "first inventory: WAL bytes per object", MarkdownTable.num(inventoryWrites.get("walBytesPerChange"), "%.0f"));
    row(b, "changes sent (failed)", changes.isEmpty() ? "–" : changes.get("sent") + " (" + changes.get("failed") + ")");
    for (String ch : List.of("watch", "postgres", "http", "stdout")) {
      Map<String, Object> l = (Map<String, Object>) latency.getOrDefault(ch, Map.of());
      row(b, (ch.equals("watch") ? "raw watch (floor)" : ch) + ": change → "
          + (ch.equals("postgres") ? "committed row" : ch.equals("watch") ? "event" : "record")
          + " p50 / p99 / max (ms)", l.isEmpty() ? "–" : MarkdownTable.num(l.get("p50Ms"), "%.1f") + " / "
          + MarkdownTable.num(l.get("p99Ms"), "%.1f") + " / " + MarkdownTable.num(l.get("maxMs"), "%.1f")
          + " (" + l.get("seen") + " seen)");
    }
    row(b, "operator CPU per change (ms)", MarkdownTable.num(changes.get("operatorCpuMsPerChange"), "%.1f"));
    row(b, "database CPU per change (ms)", MarkdownTable.num(changes.get("databaseCpuMsPerChange"), "%.1f"));
    row(b, "rows written per change (pg_stat_user_tables)", MarkdownTable.num(writes.get("rowsWrittenPerChange"), "%.2f"));
    row(b, "WAL bytes per change (pg_current_wal_lsn)", MarkdownTable.num(writes.get("walBytesPerChange"), "%.0f"));
    row(b, "table growth while changing, object_state / changes (bytes)",
        writes.isEmpty() ? "–" : writes.get("objectStateGrowthBytes") + " / " + writes.get("changesGrowthBytes"));
    return b.toString();
  }

  private static void row(StringBuilder b, String label, String value) {
    b.append("| ").append(label).append(" | ").append(value).append(" |\n");
  }

  private static long countRows(TestPostgresServer db) throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM " + SCHEMA
            + ".objects WHERE target = '" + Fixture.CONTROL_NAMESPACE + "/bench'")) {
      r.next();
      return r.getLong(1);
    }
  }

  /**
   * What the database wrote, cumulative: WAL bytes (the LSN), rows inserted/updated/deleted and
   * the on-disk size of the sink's two tables with their indexes.
   */
  record DatabaseWrites(long walBytes, long rowsInserted, long rowsUpdated, long rowsDeleted,
      long objectStateBytes, long changesBytes) {

    static DatabaseWrites read(TestPostgresServer db) throws SQLException {
      return read(db, SCHEMA);
    }

    /** The same, for the sink's tables in {@code schema}. */
    static DatabaseWrites read(TestPostgresServer db, String schema) throws SQLException {
      try (Connection c = db.connect(); Statement s = c.createStatement();
          ResultSet r = s.executeQuery("""
              SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
                     coalesce(sum(n_tup_ins), 0)::bigint, coalesce(sum(n_tup_upd), 0)::bigint,
                     coalesce(sum(n_tup_del), 0)::bigint,
                     pg_total_relation_size('%1$s.object_state'),
                     pg_total_relation_size('%1$s.changes')
                FROM pg_stat_user_tables WHERE schemaname = '%1$s'
                 AND relname IN ('object_state', 'changes')""".formatted(schema))) {
        r.next();
        return new DatabaseWrites(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4),
            r.getLong(5), r.getLong(6));
      }
    }

    DatabaseWrites minus(DatabaseWrites before) {
      return new DatabaseWrites(walBytes - before.walBytes, rowsInserted - before.rowsInserted,
          rowsUpdated - before.rowsUpdated, rowsDeleted - before.rowsDeleted,
          objectStateBytes - before.objectStateBytes, changesBytes - before.changesBytes);
    }

    Map<String, Object> perChange(int changes) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("changes", changes);
      out.put("walBytes", walBytes);
      out.put("walBytesPerChange", walBytes / (double) changes);
      out.put("rowsWrittenPerChange", (rowsInserted + rowsUpdated + rowsDeleted) / (double) changes);
      out.put("rowsInserted", rowsInserted);
      out.put("rowsUpdated", rowsUpdated);
      out.put("objectStateGrowthBytes", objectStateBytes);
      out.put("changesGrowthBytes", changesBytes);
      return out;
    }
  }
}

package io.kollect.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for one test class (start it in {@code @BeforeAll}, close it in
 * {@code @AfterAll}): a cluster in a temporary directory, {@code postgres} on a free loopback port
 * with password (SCRAM) authentication and one database, {@link #DATABASE}, for the test. The
 * cluster is a copy of one made with {@code initdb} once per JVM (initdb takes seconds, a copy
 * and a start a fraction of one).
 *
 * <p>It runs Debian's {@code postgresql-15} binaries from {@link #BIN} ({@code scripts/test.sh}
 * installs them when missing). PostgreSQL refuses to run as root, and CI runs as root: then the
 * server runs as the unprivileged system user {@value #SYSTEM_USER} (the Debian package creates
 * it; it is created here when missing) through {@code runuser}, and the temporary directory is
 * given to that user. Otherwise it runs as the current user.
 *
 * <p>{@link #stop()} and {@link #restart()} take the server away and bring it back on the same port
 * and data, for outage tests; {@link #close()} stops it and deletes the directory.
 */
public final class TestPostgresServer implements AutoCloseable {

  /** Where Debian's {@code postgresql-15} package puts the server binaries. */
  public static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");
  /** The user the server runs as when the tests run as root. */
  public static final String SYSTEM_USER = "postgres";
  /** The superuser {@code initdb} creates. */
  public static final String SUPERUSER = "kollect_admin";
  /** The database created for the test. */
  public static final String DATABASE = "inventory";

  private static final long PG_CTL_TIMEOUT_SECONDS = 60;
  /** Starts tried on new ports when another process took the picked one first. */
  private static final int START_ATTEMPTS = 5;

  private final Path dir;
  private int port;
  private final String superuserPassword;
  private final boolean asSystemUser;
  private boolean running;

  private TestPostgresServer(Path dir, int port, String superuserPassword, boolean asSystemUser) {
    this.dir = dir;
    this.port = port;
    this.superuserPassword = superuserPassword;
    this.asSystemUser = asSystemUser;
  }

  /** Whether the server binaries are installed. */
  public static boolean binariesInstalled() {
    return Files.isExecutable(BIN.resolve("postgres")) && Files.isExecutable(BIN.resolve("initdb"));
  }

  /**
   * TLS for the server: its certificate and key (PEM), and the CA its clients' certificates must
   * be signed by. With it, every role but the superuser must connect over TLS with a client
   * certificate of that CA ({@code hostssl ... clientcert=verify-ca}); the superuser may still
   * connect without TLS, so {@link #execute} keeps working.
   */
  public record ServerTls(String certificatePem, String keyPem, String clientCaPem) {}

  /** Creates a cluster in a new temporary directory, starts it and creates {@link #DATABASE}. */
  public static TestPostgresServer start() {
    return start(null);
  }

  /** As {@link #start()}, with TLS ({@code null}: none). */
  public static TestPostgresServer start(ServerTls tls) {
    return start(tls, TestPostgresServer::freePort);
  }

  /**
   * As {@link #start(ServerTls)}, but the roles {@code rolesWithoutTls} may also log in without
   * TLS, by password ({@code host ... scram-sha-256}), so that one server serves a test class's
   * TLS scenarios and its plain ones; every other role still needs TLS and a client certificate.
   */
  public static TestPostgresServer start(ServerTls tls, Collection<String> rolesWithoutTls) {
    return start(tls, rolesWithoutTls, TestPostgresServer::freePort);
  }

  /** As {@link #start(ServerTls)}, trying the ports {@code ports} gives (a test of the retry). */
  static TestPostgresServer start(ServerTls tls, IntSupplier ports) {
    return start(tls, List.of(), ports);
  }

  private static TestPostgresServer start(ServerTls tls, Collection<String> rolesWithoutTls,
      IntSupplier ports) {
    Template template = template();
    Path dir = null;
    try {
      dir = newDirectory();
      // a copy of the template cluster: initdb once per JVM, not once per test class
      run(List.of("cp", "-a", template.dir().resolve("data").toString(),
          dir.resolve("data").toString()), dir);
      TestPostgresServer server = new TestPostgresServer(dir, 0, template.password(),
          template.asSystemUser());
      if (tls != null) {
        server.configureTls(tls, rolesWithoutTls);
      }
      server.startOnFreePort(ports);
      return server;
    } catch (IOException e) {
      deleteQuietly(dir);
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      deleteQuietly(dir);
      throw e;
    }
  }

  /** A stopped cluster with {@link #DATABASE} in it, copied by every {@link #start}. */
  private record Template(Path dir, String password, boolean asSystemUser) {}

  private static Template template;

  private static synchronized Template template() {
    if (template != null && Files.isDirectory(template.dir().resolve("data"))) {
      return template;
    }
    if (!binariesInstalled()) {
      throw new IllegalStateException("PostgreSQL 15 server binaries not found in " + BIN
          + ": install postgresql-15 (scripts/test.sh does when missing)");
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = null;
    try {
      if (root) {
        ensureSystemUser();
      }
      dir = newDirectory();
      String password = UUID.randomUUID().toString();
      Path pwfile = dir.resolve("pwfile");
      Files.writeString(pwfile, password + "\n", StandardCharsets.UTF_8);
      if (root) {
        run(List.of("chown", SYSTEM_USER + ":", pwfile.toString()), dir);
      }
      TestPostgresServer server = new TestPostgresServer(dir, 0, password, root);
      server.pg(List.of(BIN.resolve("initdb").toString(), "-D", server.data().toString(),
          "-U", SUPERUSER, "--pwfile=" + pwfile, "--auth-local=trust",
          "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"));
      Files.delete(pwfile);
      server.startOnFreePort(TestPostgresServer::freePort);
      server.executeIn("postgres", "CREATE DATABASE " + DATABASE);
      server.stop();
      Path created = dir;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(created)));
      template = new Template(dir, password, root);
      return template;
    } catch (IOException e) {
      deleteQuietly(dir);
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      deleteQuietly(dir);
      throw e;
    }
  }

  /** A new temporary directory with a socket directory, owned by the server's user. */
  private static Path newDirectory() throws IOException {
    Path dir = Files.createTempDirectory("kollect-pg-");
    Files.createDirectories(dir.resolve("socket"));
    if ("root".equals(System.getProperty("user.name"))) {
      run(List.of("chown", "-R", SYSTEM_USER + ":", dir.toString()), dir);
    }
    return dir;
  }

  private void configureTls(ServerTls tls, Collection<String> rolesWithoutTls)
      throws IOException {
    Path data = data();
    Path cert = Files.writeString(data.resolve("server.crt"), tls.certificatePem());
    Path key = Files.writeString(data.resolve("server.key"), tls.keyPem());
    Path ca = Files.writeString(data.resolve("client-ca.crt"), tls.clientCaPem());
    // the server refuses a key file others can read
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    Files.writeString(data.resolve("postgresql.conf"), "\nssl = on\nssl_cert_file = '" + cert
        + "'\nssl_key_file = '" + key + "'\nssl_ca_file = '" + ca + "'\n",
        StandardOpenOption.APPEND);
    List<String> hba = new ArrayList<>(List.of("local all all trust",
        "host all " + SUPERUSER + " 127.0.0.1/32 scram-sha-256"));
    for (String role : rolesWithoutTls) {
      hba.add("host all " + role + " 127.0.0.1/32 scram-sha-256");
    }
    hba.add("hostssl all all 127.0.0.1/32 scram-sha-256 clientcert=verify-ca");
    hba.add("");
    Files.writeString(data.resolve("pg_hba.conf"), String.join("\n", hba));
    if (asSystemUser) {
      run(List.of("chown", "-R", SYSTEM_USER + ":", data.toString()), dir);
    }
  }

  /**
   * Starts the server on a port that was free a moment ago. postgres cannot be handed a bound
   * socket, so another process (a test JVM in a parallel fork) may take the port in between: then
   * postgres exits saying the address is in use, and the start is tried again on a new port.
   */
  private void startOnFreePort(IntSupplier ports) throws IOException {
    Path log = dir.resolve("server.log");
    for (int attempt = 1; ; attempt++) {
      port = ports.getAsInt();
      String logBefore = Files.exists(log) ? Files.readString(log) : "";
      try {
        restart();
        return;
      } catch (IllegalStateException e) {
        String attemptLog = Files.exists(log) ? Files.readString(log) : "";
        boolean taken = attemptLog.length() > logBefore.length()
            && attemptLog.substring(logBefore.length()).contains("Address already in use");
        if (!taken || attempt == START_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /** Starts the server again on the same port and data after {@link #stop()}. */
  public synchronized void restart() {
    if (running) {
      return;
    }
    // fsync off and a small shared_buffers: test data need not survive a power cut, and four
    // engineers share two cores
    String options = "-p " + port + " -k " + dir.resolve("socket")
        + " -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
        + " -c full_page_writes=off -c shared_buffers=32MB -c max_connections=60";
    pg(List.of(BIN.resolve("pg_ctl").toString(), "-D", data().toString(), "-l",
        dir.resolve("server.log").toString(), "-o", options, "-w", "-t",
        String.valueOf(PG_CTL_TIMEOUT_SECONDS), "start"));
    running = true;
  }

  /** Stops the server (fast shutdown: open sessions are ended), keeping its data and port. */
  public synchronized void stop() {
    if (!running) {
      return;
    }
    pg(List.of(BIN.resolve("pg_ctl").toString(), "-D", data().toString(), "-m", "fast", "-w",
        "-t", String.valueOf(PG_CTL_TIMEOUT_SECONDS), "stop"));
    running = false;
  }

  /** The JDBC URL of {@link #DATABASE}. */
  public String jdbcUrl() {
    return jdbcUrl(DATABASE);
  }

  /** The JDBC URL of a database on this server. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  public int port() {
    return port;
  }

  public String superuser() {
    return SUPERUSER;
  }

  public String superuserPassword() {
    return superuserPassword;
  }

  /** A new connection to {@link #DATABASE} as the superuser; the caller closes it. */
  public Connection connect() throws SQLException {
    return connect(DATABASE);
  }

  /** A new connection to {@code database} as the superuser; the caller closes it. */
  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), SUPERUSER, superuserPassword);
  }

  /** Runs statements in {@link #DATABASE} as the superuser, e.g. to create a role for a test. */
  public void execute(String... sql) {
    executeIn(DATABASE, sql);
  }

  /** Runs statements in {@code database} as the superuser, each in its own transaction. */
  public void executeIn(String database, String... sql) {
    try (Connection c = connect(database); Statement s = c.createStatement()) {
      for (String statement : sql) {
        s.execute(statement);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed on the test server: " + e.getMessage(), e);
    }
  }

  /**
   * CPU time (user + system) the server's processes used so far: the postmaster, its live
   * backends, and the backends that exited (counted in the postmaster's children time), for
   * benchmarks that report the database's CPU beside the client's. Linux only ({@code /proc}).
   */
  public Duration cpuTime() {
    try {
      long postmaster = Long.parseLong(Files.readAllLines(data().resolve("postmaster.pid"))
          .get(0).trim());
      long ticks = 0;
      try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
        for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
          String[] stat = readStat(proc);
          if (stat == null) {
            continue;
          }
          long pid = Long.parseLong(proc.getFileName().toString());
          // fields after "pid (comm)": [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime
          if (pid == postmaster) {
            ticks += Long.parseLong(stat[11]) + Long.parseLong(stat[12])
                + Long.parseLong(stat[13]) + Long.parseLong(stat[14]);
          } else if (Long.parseLong(stat[1]) == postmaster) {
            ticks += Long.parseLong(stat[11]) + Long.parseLong(stat[12]);
          }
        }
      }
      return Duration.ofMillis(ticks * 1000 / CLOCK_TICKS_PER_SECOND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Linux's {@code USER_HZ}, the unit of {@code /proc/<pid>/stat} times, on every architecture. */
  private static final long CLOCK_TICKS_PER_SECOND = 100;

  private static String[] readStat(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    } catch (IOException | RuntimeException e) {
      return null; // the process ended meanwhile
    }
  }

  /** The server's log so far (for a failing test's message). */
  public String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public synchronized void close() {
    try {
      if (running) {
        pg(List.of(BIN.resolve("pg_ctl").toString(), "-D", data().toString(), "-m",
            "immediate", "-w", "-t", String.valueOf(PG_CTL_TIMEOUT_SECONDS), "stop"));
        running = false;
      }
    } finally {
      deleteQuietly(dir);
    }
  }

  private Path data() {
    return dir.resolve("data");
  }

  /** Runs a PostgreSQL binary as the server's user. */
  private void pg(List<String> command) {
    List<String> full = new ArrayList<>();
    if (asSystemUser) {
      full.addAll(List.of("runuser", "-u", SYSTEM_USER, "--"));
    }
    full.addAll(command);
    run(full, dir);
  }

  /** Creates {@link #SYSTEM_USER} when missing (a machine without the Debian package's user). */
  private static void ensureSystemUser() {
    try {
      Process id = new ProcessBuilder("id", "-u", SYSTEM_USER).redirectErrorStream(true).start();
      id.getInputStream().readAllBytes();
      if (id.waitFor() == 0) {
        return;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    run(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
        SYSTEM_USER), Path.of("/"));
  }

  private static void run(List<String> command, Path workDir) {
    try {
      Process p = new ProcessBuilder(command).directory(workDir.toFile())
          .redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(PG_CTL_TIMEOUT_SECONDS + 30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + ": timed out");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " exited with "
            + p.exitValue() + ":\n" + new String(out, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a leftover temporary directory is harmless
    }
  }
}

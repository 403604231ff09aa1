package io.kollect.export.postgres;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Settings of a {@link PostgresSink}; build with {@link #builder()}.
 *
 * @param url the JDBC URL of the database, {@code jdbc:postgresql://host:port/database}
 * @param username supplies the role to log in as, asked again at most every {@code
 *     credentialsCheckInterval} so a rotated Secret takes effect without a new sink
 * @param password supplies the role's password, asked like {@code username}
 * @param schema the schema the sink owns and migrates (default {@value #DEFAULT_SCHEMA})
 * @param history whether the {@code changes} table is written, and how long its rows are kept
 * @param tombstoneRetention how long the row of a deleted object is kept (hidden from {@code
 *     objects}) so that a late, older state of it is still refused (default 1 day)
 * @param tls TLS to the server ({@code null}: as the URL says, by default no TLS)
 * @param poolSize connections at most (default 4, the exporter's default concurrency)
 * @param connectTimeout how long a write waits for a connection before it fails retryably
 *     (default 10 s)
 * @param credentialsCheckInterval how often, at most, the credential and TLS suppliers are asked
 *     again (default 10 s; zero: before every write)
 * @param maintenanceInterval how often the background task purges expired tombstones and history
 *     rows and refreshes this writer's row (default 30 s)
 * @param purgeBatchSize rows deleted per purge statement, so a purge never holds long locks
 *     (default 1000)
 * @param writerIdentity what this writer writes: the same for every shard and replica that writes
 *     one source cluster, different for another source cluster (a host passes, for example, the
 *     UID of the source cluster's {@code kube-system} namespace); a live writer of the same cluster
 *     name with another identity is a {@link WriterConflict} (default: a random id, so every sink
 *     instance is its own writer)
 */
public record PostgresSinkConfig(
    String url,
    Supplier<String> username,
    Supplier<String> password,
    String schema,
    History history,
    Duration tombstoneRetention,
    Tls tls,
    int poolSize,
    Duration connectTimeout,
    Duration credentialsCheckInterval,
    Duration maintenanceInterval,
    int purgeBatchSize,
    String writerIdentity) {

  /** Default {@link #schema()}. */
  public static final String DEFAULT_SCHEMA = "kollect";
  /** Default {@link #tombstoneRetention()}. */
  public static final Duration DEFAULT_TOMBSTONE_RETENTION = Duration.ofDays(1);
  /** Default {@link #poolSize()}. */
  public static final int DEFAULT_POOL_SIZE = 4;
  /** Default {@link #connectTimeout()}. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** Default {@link #credentialsCheckInterval()}. */
  public static final Duration DEFAULT_CREDENTIALS_CHECK_INTERVAL = Duration.ofSeconds(10);
  /** Default {@link #maintenanceInterval()}. */
  public static final Duration DEFAULT_MAINTENANCE_INTERVAL = Duration.ofSeconds(30);
  /** Default {@link #purgeBatchSize()}. */
  public static final int DEFAULT_PURGE_BATCH_SIZE = 1000;

  /** A lower-case SQL identifier: used unquoted in documentation queries, quoted by the sink. */
  private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /** Rejects what the sink cannot honour, naming the field. */
  public PostgresSinkConfig {
    if (url == null || !url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("url: must be a jdbc:postgresql:// URL, got " + url);
    }
    if (username == null || password == null) {
      throw new IllegalArgumentException("username, password: must be set");
    }
    schema = schema == null ? DEFAULT_SCHEMA : schema;
    if (!SCHEMA_NAME.matcher(schema).matches()) {
      throw new IllegalArgumentException("schema: must be a lower-case identifier ([a-z_]"
          + "[a-z0-9_]*, at most 63 characters), got " + schema);
    }
    history = history == null ? History.off() : history;
    tombstoneRetention = positive("tombstoneRetention", tombstoneRetention,
        DEFAULT_TOMBSTONE_RETENTION);
    if (poolSize < 1 || poolSize > 64) {
      throw new IllegalArgumentException("poolSize: must be between 1 and 64, got " + poolSize);
    }
    connectTimeout = positive("connectTimeout", connectTimeout, DEFAULT_CONNECT_TIMEOUT);
    if (connectTimeout.toMillis() < 250) {
      throw new IllegalArgumentException("connectTimeout: must be at least 250 ms, got "
          + connectTimeout);
    }
    credentialsCheckInterval = credentialsCheckInterval == null
        ? DEFAULT_CREDENTIALS_CHECK_INTERVAL : credentialsCheckInterval;
    if (credentialsCheckInterval.isNegative()) {
      throw new IllegalArgumentException("credentialsCheckInterval: must not be negative, got "
          + credentialsCheckInterval);
    }
    maintenanceInterval = positive("maintenanceInterval", maintenanceInterval,
        DEFAULT_MAINTENANCE_INTERVAL);
    if (purgeBatchSize < 1) {
      throw new IllegalArgumentException("purgeBatchSize: must be at least 1, got "
          + purgeBatchSize);
    }
    writerIdentity = writerIdentity == null || writerIdentity.isBlank()
        ? "random-" + UUID.randomUUID() : writerIdentity;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The schema name as a quoted SQL identifier. */
  String quotedSchema() {
    return '"' + schema + '"';
  }

  /**
   * The history of changes: whether the {@code changes} table is appended to, and how long its
   * rows are kept.
   *
   * @param enabled whether changes are recorded
   * @param retention how long a row is kept (default 30 days)
   */
  public record History(boolean enabled, Duration retention) {

    /** Default {@link #retention()}. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);

    public History {
      retention = positive("history.retention", retention, DEFAULT_RETENTION);
    }

    /** History off (the default). */
    public static History off() {
      return new History(false, null);
    }

    /** History on, rows kept for {@code retention}. */
    public static History keptFor(Duration retention) {
      return new History(true, retention);
    }
  }

  /**
   * TLS to the server, from PEM text (as read from a Secret); with a CA the driver runs with
   * {@code sslmode=verify-full} (the server's certificate must be signed by it and name the URL's
   * host). Each part is a supplier, asked again like the credentials: when the text changed, new
   * connections use the new material and the pool retires the old ones.
   *
   * @param caPem supplies the certificates that sign the server's ({@code null}: the JDK's trust
   *     store, still {@code verify-full})
   * @param clientCertPem supplies the client certificate chain ({@code null}: none)
   * @param clientKeyPem supplies its private key, unencrypted PKCS#8 PEM ({@code PRIVATE KEY})
   */
  public record Tls(Supplier<String> caPem, Supplier<String> clientCertPem,
      Supplier<String> clientKeyPem) {

    public Tls {
      if ((clientCertPem == null) != (clientKeyPem == null)) {
        throw new IllegalArgumentException("tls: clientCertPem and clientKeyPem go together");
      }
    }

    @Override
    public String toString() {
      return "Tls[ca=" + (caPem != null) + ", clientCert=" + (clientCertPem != null) + "]";
    }
  }

  @Override
  public String toString() {
    return "PostgresSinkConfig[url=" + url + ", schema=" + schema + ", history=" + history
        + ", tombstoneRetention=" + tombstoneRetention + ", tls=" + tls + ", poolSize="
        + poolSize + "]";
  }

  private static Duration positive(String field, Duration value, Duration orElse) {
    Duration d = value == null ? orElse : value;
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + ": must be positive, got " + d);
    }
    return d;
  }

  /** Builds a {@link PostgresSinkConfig}; URL and credentials are required. */
  public static final class Builder {
    private String url;
    private Supplier<String> username;
    private Supplier<String> password;
    private String schema = DEFAULT_SCHEMA;
    private History history = History.off();
    private Duration tombstoneRetention = DEFAULT_TOMBSTONE_RETENTION;
    private Tls tls;
    private int poolSize = DEFAULT_POOL_SIZE;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration credentialsCheckInterval = DEFAULT_CREDENTIALS_CHECK_INTERVAL;
    private Duration maintenanceInterval = DEFAULT_MAINTENANCE_INTERVAL;
    private int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;
    private String writerIdentity;

    private Builder() {}

    public Builder url(String url) {
      this.url = url;
      return this;
    }

    /** Credentials asked again at most every {@link #credentialsCheckInterval(Duration)}. */
    public Builder credentials(Supplier<String> username, Supplier<String> password) {
      this.username = username;
      this.password = password;
      return this;
    }

    /** Fixed credentials, for an embedder that rebuilds the sink itself when they change. */
    public Builder credentials(String username, String password) {
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
      return credentials(() -> username, () -> password);
    }

    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    public Builder history(History history) {
      this.history = history;
      return this;
    }

    public Builder tombstoneRetention(Duration retention) {
      this.tombstoneRetention = retention;
      return this;
    }

    public Builder tls(Tls tls) {
      this.tls = tls;
      return this;
    }

    public Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    public Builder credentialsCheckInterval(Duration interval) {
      this.credentialsCheckInterval = interval;
      return this;
    }

    public Builder maintenanceInterval(Duration interval) {
      this.maintenanceInterval = interval;
      return this;
    }

    public Builder purgeBatchSize(int rows) {
      this.purgeBatchSize = rows;
      return this;
    }

    public Builder writerIdentity(String identity) {
      this.writerIdentity = identity;
      return this;
    }

    public PostgresSinkConfig build() {
      return new PostgresSinkConfig(url, username, password, schema, history, tombstoneRetention,
          tls, poolSize, connectTimeout, credentialsCheckInterval, maintenanceInterval,
          purgeBatchSize, writerIdentity);
    }
  }
}

package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * {@code KollectSink.spec.postgres}: PostgreSQL tables whose content is the inventory (a view
 * {@code objects}, with history a table {@code changes}; docs/sinks.md, "postgres"). TLS comes
 * from the sink's shared {@code spec.tls} block and then always verifies the server fully.
 *
 * @param url {@code jdbc:postgresql://host:port/database}; set this or {@code urlSecretRef}
 * @param urlSecretRef a Secret key holding the URL, for an address that is itself confidential
 * @param credentialsSecretRef a Secret with the {@code username} and {@code password} keys (key
 *     names configurable), asked again while the sink runs so a rotated password needs no restart
 * @param schema the schema the sink owns and migrates (default {@code kollect})
 * @param history the {@code changes} table: on or off, and how long its rows are kept
 * @param tombstoneRetention how long a deleted object's row is kept, hidden, so that a late older
 *     state of it is still refused (default 24h)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PostgresSinkSpec(
    @Pattern(JDBC_URL) @JsonPropertyDescription("jdbc:postgresql://host:port/database; no "
        + "credentials in it (use credentialsSecretRef). Set this or urlSecretRef.") String url,
    @JsonPropertyDescription("A key of a Secret in this namespace holding the JDBC URL, instead "
        + "of url.") KollectSinkSpec.SecretKeyRef urlSecretRef,
    @Required @JsonPropertyDescription("A Secret in this namespace with the username and password "
        + "keys (key names configurable); read again while the sink runs, so a rotated password "
        + "takes effect without a restart.") KollectSinkSpec.BasicAuthSecretRef credentialsSecretRef,
    @Pattern(SCHEMA) @JsonPropertyDescription("The schema the sink creates, owns and migrates "
        + "(default kollect).") String schema,
    @JsonPropertyDescription("The changes table: one row per change of an object (off by "
        + "default).") History history,
    @Pattern(KollectSinkSpec.DURATION) @JsonPropertyDescription("How long the hidden row of a "
        + "deleted object is kept so that a late older state is still refused, e.g. 24h (default "
        + "24h).") String tombstoneRetention) {

  /** A JDBC URL of the PostgreSQL driver. */
  public static final String JDBC_URL = "^jdbc:postgresql://[^\\s]+$";
  /** A lower-case SQL identifier, as the sink requires. */
  public static final String SCHEMA = "^[a-z_][a-z0-9_]{0,62}$";

  /**
   * The history of changes.
   *
   * @param enabled whether the {@code changes} table is appended to
   * @param retention how long its rows are kept, e.g. {@code 30d} or {@code 720h} (default 30d)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record History(
      @JsonPropertyDescription("Append a row to the changes table for every change of an "
          + "object's op or content.") Boolean enabled,
      @Pattern(RETENTION) @JsonPropertyDescription("How long a changes row is kept, e.g. 30d or "
          + "720h (default 30d).") String retention) {}

  /** A duration in days ({@code 30d}) or a Go-style duration ({@code 720h}). */
  public static final String RETENTION = "^([0-9]+d|([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+)$";
}

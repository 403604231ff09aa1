package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.Map;

/**
 * {@code KollectSink.spec}. Credentials are only ever read from Secrets in the sink's namespace.
 *
 * @param type the destination type; the matching section ({@code file}, {@code http}) configures it
 * @param file settings of a {@code file} sink
 * @param http settings of an {@code http} sink
 * @param batch batching
 * @param heartbeatInterval how often the full current set is re-sent ({@code 0s} turns it off)
 * @param tls TLS settings of every sink type that speaks TLS ({@code http} and {@code otlp} to an {@code
 *     https} URL, {@code postgres})
 * @param suspend pause the sink: nothing is handed to it, and on resume only what changed
 *     meanwhile
 * @param kafka settings of a {@code kafka} sink
 * @param otlp settings of an {@code otlp} sink
 * @param postgres settings of a {@code postgres} sink
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectSinkSpec(
    @Required @JsonPropertyDescription("Destination type: stdout, file, http, kafka, otlp or postgres.") Type type,
    @JsonPropertyDescription("Settings of a file sink (JSON lines, rotated).") File file,
    @JsonPropertyDescription("Settings of an http sink (batches POSTed as JSON).") Http http,
    @JsonPropertyDescription("Batching.") Batch batch,
    @Pattern(DURATION)
        @JsonPropertyDescription("How often the full current set is re-sent, e.g. 10m; 0s turns it off.")
        String heartbeatInterval,
    @JsonPropertyDescription("TLS settings, shared by every sink type that speaks TLS (http and otlp with an https URL, postgres).")
        Tls tls,
    @JsonPropertyDescription("Pause the sink: nothing is sent to it until it is resumed, then only "
        + "what changed meanwhile; the targets naming it say so.")
        Boolean suspend,
    @JsonPropertyDescription("Settings of a kafka sink (records into a compacted topic, key = "
        + "object identity, tombstones for deletes).") Kafka kafka,
    @JsonPropertyDescription("Settings of an otlp sink (records as OpenTelemetry entity events "
        + "over OTLP/HTTP or OTLP/gRPC).") OtlpSinkSpec otlp,
    @JsonPropertyDescription("Settings of a postgres sink (a view objects of the current "
        + "objects, optionally a changes table; newest sequence wins).") PostgresSinkSpec postgres) {

  /** The spec without an otlp or a postgres block. */
  public KollectSinkSpec(Type type, File file, Http http, Batch batch, String heartbeatInterval,
      Tls tls, Boolean suspend, Kafka kafka) {
    this(type, file, http, batch, heartbeatInterval, tls, suspend, kafka, null, null);
  }

  /** The spec without a kafka block. */
  public KollectSinkSpec(Type type, File file, Http http, Batch batch, String heartbeatInterval,
      Tls tls, Boolean suspend) {
    this(type, file, http, batch, heartbeatInterval, tls, suspend, null);
  }

  /** The spec of a sink that is never suspended. */
  public KollectSinkSpec(Type type, File file, Http http, Batch batch, String heartbeatInterval,
      Tls tls) {
    this(type, file, http, batch, heartbeatInterval, tls, null);
  }

  /** The spec without a TLS block. */
  public KollectSinkSpec(Type type, File file, Http http, Batch batch, String heartbeatInterval) {
    this(type, file, http, batch, heartbeatInterval, null);
  }

  /**
   * An http(s) URL whose port, when given, is 1-65535, with no credentials in it (those go in
   * Secrets; the API server of Kubernetes 1.20 has no
   * CEL, so a pattern is the check that fits; the operator checks again for objects stored before).
   */
  public static final String URL = "^https?://(\\[[0-9a-fA-F:.]+\\]|[^/:?#\\[\\]@]+)"
      + "(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
      + "([/?#].*)?$";

  /**
   * TLS settings.
   *
   * @param caSecretRef a Secret key holding the CA certificates (PEM) the server's certificate must
   *     chain to; default: the JVM's trust store
   * @param clientCertSecretRef a {@code kubernetes.io/tls} Secret whose {@code tls.crt} and {@code
   *     tls.key} are presented as the client certificate (mutual TLS)
   * @param insecureSkipVerify do not verify the server's certificate or host name (warned about in
   *     the sink's status; for tests only)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Tls(
      @JsonPropertyDescription("Secret key with the CA certificates (PEM) to verify the server with; "
          + "key defaults to ca.crt.") CaSecretRef caSecretRef,
      @JsonPropertyDescription("kubernetes.io/tls Secret whose tls.crt and tls.key are the client "
          + "certificate (mutual TLS).") ClientCertSecretRef clientCertSecretRef,
      @JsonPropertyDescription("Do not verify the server certificate and host name. Insecure: "
          + "anyone on the path can read and change the records.") Boolean insecureSkipVerify) {}

  /**
   * A key of a Secret in the sink's namespace holding PEM CA certificates.
   *
   * @param name Secret name
   * @param key key in the Secret (default {@code ca.crt})
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record CaSecretRef(@Required String name,
      @JsonPropertyDescription("Key in the Secret (default ca.crt).") String key) {}

  /**
   * A {@code kubernetes.io/tls} Secret in the sink's namespace (keys {@code tls.crt}, {@code
   * tls.key}).
   *
   * @param name Secret name
   */
  public record ClientCertSecretRef(@Required String name) {}

  /** A Go-style duration such as {@code 500ms}, {@code 30s}, {@code 1m30s}. */
  public static final String DURATION = "^([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+$";

  /** Destination types. */
  public enum Type {
    @JsonProperty("stdout")
    STDOUT,
    @JsonProperty("file")
    FILE,
    @JsonProperty("http")
    HTTP,
    @JsonProperty("kafka")
    KAFKA,
    @JsonProperty("otlp")
    OTLP,
    @JsonProperty("postgres")
    POSTGRES
  }

  /**
   * A Kafka topic whose compacted content is the inventory (docs/sinks.md, "kafka").
   *
   * @param bootstrapServers {@code host:port} of one or more brokers
   * @param topic the topic
   * @param deletes how a DELETE is written: {@code tombstone} (default), {@code record}, {@code both}
   * @param createTopic create the topic compacted when it is missing ({@code null}: a missing topic
   *     is an error)
   * @param tls TLS to the brokers
   * @param sasl SASL authentication
   * @param deliveryTimeout how long a write waits for the brokers' acks (and a topic check for an
   *     answer) at most; default 30s
   * @param producerProperties further kafka-clients producer settings, tuning only (e.g. {@code
   *     compression.type}); the operator refuses the others (docs/sinks.md, "kafka")
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Kafka(
      @Required @JsonPropertyDescription("host:port of one or more brokers.")
          java.util.List<String> bootstrapServers,
      @Required @JsonPropertyDescription("The topic that holds the inventory (compacted).") String topic,
      @JsonPropertyDescription("How a DELETE is written: tombstone (null value, default), record "
          + "(the DELETE record as value) or both.") Deletes deletes,
      @JsonPropertyDescription("Create the topic compacted when it is missing; without it a "
          + "missing topic is an error.") CreateTopic createTopic,
      @JsonPropertyDescription("TLS to the brokers.") KafkaTls tls,
      @JsonPropertyDescription("SASL authentication to the brokers.") Sasl sasl,
      @Pattern(DURATION) @JsonPropertyDescription("How long a write waits for the brokers' acks "
          + "at most, e.g. 30s (default 30s, at least 1s).") String deliveryTimeout,
      @JsonPropertyDescription("Further kafka-clients producer settings, tuning only: "
          + "compression.type, compression.<type>.level, batch.size, buffer.memory, "
          + "max.request.size, max.in.flight.requests.per.connection (at most 5), "
          + "send.buffer.bytes, receive.buffer.bytes, client.dns.lookup, connections.max.idle.ms, "
          + "metadata.max.age.ms, metadata.max.idle.ms, reconnect.backoff(.max).ms, "
          + "retry.backoff(.max).ms, socket.connection.setup.timeout(.max).ms. Others are refused: "
          + "security comes from tls and sasl, timeouts from deliveryTimeout.")
          java.util.Map<String, String> producerProperties) {

    /** The kafka block before {@code producerProperties}. */
    public Kafka(java.util.List<String> bootstrapServers, String topic, Deletes deletes,
        CreateTopic createTopic, KafkaTls tls, Sasl sasl, String deliveryTimeout) {
      this(bootstrapServers, topic, deletes, createTopic, tls, sasl, deliveryTimeout, null);
    }
  }

  /** How a DELETE is written to the topic. */
  public enum Deletes {
    @JsonProperty("tombstone")
    TOMBSTONE,
    @JsonProperty("record")
    RECORD,
    @JsonProperty("both")
    BOTH
  }

  /**
   * How a missing topic is created (always {@code cleanup.policy=compact}).
   *
   * @param partitions partitions
   * @param replicationFactor replicas per partition
   * @param deleteRetention {@code delete.retention.ms} (default 1 day)
   * @param minCompactionLag {@code min.compaction.lag.ms} (default: the broker's)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record CreateTopic(
      @Required @Min(1) @JsonPropertyDescription("Partitions of the new topic.") Integer partitions,
      @Required @Min(1) @JsonPropertyDescription("Replicas per partition.") Integer replicationFactor,
      @Pattern(DURATION) @JsonPropertyDescription("delete.retention.ms: how long a tombstone stays "
          + "readable, e.g. 24h (default 24h).") String deleteRetention,
      @Pattern(DURATION) @JsonPropertyDescription("min.compaction.lag.ms, e.g. 1h (default: the "
          + "broker's).") String minCompactionLag) {}

  /**
   * TLS to the brokers (no {@code insecureSkipVerify}: the kafka client always verifies).
   *
   * @param caSecretRef a Secret key holding the CA certificates (PEM) of the brokers
   * @param clientCertSecretRef a {@code kubernetes.io/tls} Secret (client certificate, PKCS#8 key)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record KafkaTls(
      @JsonPropertyDescription("Secret key with the CA certificates (PEM) of the brokers; key "
          + "defaults to ca.crt.") CaSecretRef caSecretRef,
      @JsonPropertyDescription("kubernetes.io/tls Secret whose tls.crt and tls.key (PKCS#8) are "
          + "the client certificate (mutual TLS).") ClientCertSecretRef clientCertSecretRef) {}

  /**
   * SASL authentication.
   *
   * @param mechanism {@code SCRAM-SHA-512}, {@code SCRAM-SHA-256} or {@code PLAIN}
   * @param secretRef a Secret with the {@code username} and {@code password} keys
   */
  public record Sasl(
      @Required @Pattern("^(SCRAM-SHA-512|SCRAM-SHA-256|PLAIN)$")
          @JsonPropertyDescription("SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN.") String mechanism,
      @Required @JsonPropertyDescription("A Secret in this namespace with the username and "
          + "password keys (key names configurable).") BasicAuthSecretRef secretRef) {}

  /**
   * A JSON-lines file.
   *
   * @param path file path inside the operator's container
   * @param maxBytes rotate when the file reaches this size
   * @param maxFiles rotated files kept
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record File(
      @Required @JsonPropertyDescription("File path inside the operator's container.") String path,
      @Min(1) @JsonPropertyDescription("Rotate when the file reaches this many bytes.") Long maxBytes,
      @Min(1) @JsonPropertyDescription("How many rotated files to keep.") Integer maxFiles) {}

  /**
   * An HTTP endpoint that receives batches.
   *
   * @param url endpoint
   * @param timeout request timeout
   * @param gzip compress request bodies
   * @param headers extra request headers (no credentials: use the Secret refs)
   * @param bearerTokenSecretRef a Secret key holding a bearer token
   * @param basicAuthSecretRef a Secret holding basic-auth credentials
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Http(
      @Required @Pattern(URL) @JsonPropertyDescription("Endpoint URL (http or https; a port, when given, is 1-65535).")
          String url,
      @Pattern(DURATION) @JsonPropertyDescription("Request timeout, e.g. 10s.") String timeout,
      @JsonPropertyDescription("Compress request bodies with gzip.") Boolean gzip,
      @JsonPropertyDescription("Extra request headers; put credentials in a Secret instead.")
          Map<String, String> headers,
      @JsonPropertyDescription("A key of a Secret in this namespace holding a bearer token.")
          SecretKeyRef bearerTokenSecretRef,
      @JsonPropertyDescription("A Secret in this namespace holding basic-auth credentials.")
          BasicAuthSecretRef basicAuthSecretRef,
      @JsonPropertyDescription("What a request carries: records (a JSON array of records, "
          + "default), cloudevents (a batch of structured CloudEvents) or cloudevents-binary (one "
          + "request per record, attributes as ce-* headers).") HttpFormat format,
      @JsonPropertyDescription("Sign every request the Standard Webhooks way with whsec_ keys "
          + "from a Secret.") HttpSigningSpec signing) {

    /** The http block in the default format, unsigned. */
    public Http(String url, String timeout, Boolean gzip, Map<String, String> headers,
        SecretKeyRef bearerTokenSecretRef, BasicAuthSecretRef basicAuthSecretRef) {
      this(url, timeout, gzip, headers, bearerTokenSecretRef, basicAuthSecretRef, null, null);
    }
  }

  /**
   * A key of a Secret in the sink's namespace.
   *
   * @param name Secret name
   * @param key key in the Secret's data
   */
  public record SecretKeyRef(@Required String name, @Required String key) {}

  /**
   * Basic-auth credentials in a Secret in the sink's namespace.
   *
   * @param name Secret name
   * @param usernameKey key of the user name (default {@code username})
   * @param passwordKey key of the password (default {@code password})
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record BasicAuthSecretRef(@Required String name, String usernameKey, String passwordKey) {}

  /**
   * Batching.
   *
   * @param maxSize records per batch at most
   * @param linger how long to wait for more records before sending a partial batch
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Batch(
      @Min(1) @JsonPropertyDescription("Records per batch at most.") Integer maxSize,
      @Pattern(DURATION) @JsonPropertyDescription("How long to wait to fill a batch, e.g. 1s.")
          String linger) {}
}

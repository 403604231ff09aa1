package io.kollect.export.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Settings of a {@link KafkaSink}; build with {@link #builder()}.
 *
 * @param bootstrapServers {@code host:port} of one or more brokers
 * @param topic the topic that holds the inventory (one message per object state, compacted)
 * @param deletes how a DELETE is written ({@link Deletes#TOMBSTONE} by default)
 * @param createTopic how to create the topic when it is missing ({@code null}: never create it, a
 *     missing topic is an error)
 * @param tls TLS to the brokers ({@code null}: plaintext, or SASL_PLAINTEXT with {@code sasl})
 * @param sasl SASL authentication ({@code null}: none)
 * @param deliveryTimeout how long one {@link KafkaSink#write} waits for the brokers' acks at most,
 *     including waiting for metadata (the producer's {@code delivery.timeout.ms} and {@code
 *     max.block.ms}); a dead broker fails the write after it instead of hanging (default 30 s)
 * @param producerProperties further {@code kafka-clients} producer settings (for example {@code
 *     compression.type}); they may not weaken the delivery guarantees, so {@code acks}, {@code
 *     enable.idempotence}, the serializers and {@code max.in.flight.requests.per.connection} above
 *     5 are refused
 * @param credentialsCheckInterval how often, at most, a write asks the {@code tls} and {@code
 *     sasl} suppliers again to notice rotated material (default 10 s; zero: before every write)
 */
public record KafkaSinkConfig(
    List<String> bootstrapServers,
    String topic,
    Deletes deletes,
    CreateTopic createTopic,
    Tls tls,
    Sasl sasl,
    Duration deliveryTimeout,
    Map<String, String> producerProperties,
    Duration credentialsCheckInterval) {

  /** Default {@link #deliveryTimeout()}. */
  public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #credentialsCheckInterval()}. */
  public static final Duration DEFAULT_CREDENTIALS_CHECK_INTERVAL = Duration.ofSeconds(10);

  /** Producer settings the sink owns: changing them would break ack-before-checkpoint or order. */
  static final Set<String> RESERVED_PROPERTIES = Set.of("acks", "enable.idempotence",
      "key.serializer", "value.serializer", "transactional.id", "bootstrap.servers");

  /** Rejects what the sink cannot honour, naming the field. */
  public KafkaSinkConfig {
    if (bootstrapServers == null || bootstrapServers.isEmpty()
        || bootstrapServers.stream().anyMatch(s -> s == null || s.isBlank())) {
      throw new IllegalArgumentException("bootstrapServers: must list at least one host:port");
    }
    bootstrapServers = List.copyOf(bootstrapServers);
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic: must be set");
    }
    deletes = deletes == null ? Deletes.TOMBSTONE : deletes;
    deliveryTimeout = deliveryTimeout == null ? DEFAULT_DELIVERY_TIMEOUT : deliveryTimeout;
    if (deliveryTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("deliveryTimeout: must be at least 1s, got "
          + deliveryTimeout);
    }
    credentialsCheckInterval = credentialsCheckInterval == null
        ? DEFAULT_CREDENTIALS_CHECK_INTERVAL : credentialsCheckInterval;
    if (credentialsCheckInterval.isNegative()) {
      throw new IllegalArgumentException("credentialsCheckInterval: must not be negative, got "
          + credentialsCheckInterval);
    }
    producerProperties = producerProperties == null ? Map.of() : Map.copyOf(producerProperties);
    for (String key : producerProperties.keySet()) {
      if (RESERVED_PROPERTIES.contains(key)) {
        throw new IllegalArgumentException("producerProperties: " + key
            + " is set by the sink (idempotent, acks=all, byte keys and values) and may not be"
            + " overridden");
      }
    }
    String inFlight = producerProperties.get("max.in.flight.requests.per.connection");
    if (inFlight != null && Integer.parseInt(inFlight.trim()) > 5) {
      throw new IllegalArgumentException("producerProperties: max.in.flight.requests.per.connection"
          + " above 5 loses per-key order with the idempotent producer, got " + inFlight);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** How a DELETE of an object is written to the topic. */
  public enum Deletes {
    /** A null value under the object's key: compaction forgets the object (the default). */
    TOMBSTONE,
    /** The DELETE record JSON as the value: consumers see the delete, compaction keeps it. */
    RECORD,
    /** The DELETE record, then a tombstone under the same key. */
    BOTH
  }

  /**
   * How a missing topic is created: compacted ({@code cleanup.policy=compact}).
   *
   * @param partitions partitions of the new topic
   * @param replicationFactor replicas per partition
   * @param deleteRetention {@code delete.retention.ms}: how long a tombstone stays readable after
   *     compaction, so a consumer that was behind still sees the delete (default 1 day)
   * @param minCompactionLag {@code min.compaction.lag.ms}: how long a state stays before
   *     compaction may drop it ({@code null} or zero: the broker's default)
   */
  public record CreateTopic(int partitions, short replicationFactor, Duration deleteRetention,
      Duration minCompactionLag) {

    public static final Duration DEFAULT_DELETE_RETENTION = Duration.ofDays(1);

    public CreateTopic {
      if (partitions < 1) {
        throw new IllegalArgumentException("createTopic.partitions: must be at least 1, got "
            + partitions);
      }
      if (replicationFactor < 1) {
        throw new IllegalArgumentException("createTopic.replicationFactor: must be at least 1, got "
            + replicationFactor);
      }
      deleteRetention = deleteRetention == null ? DEFAULT_DELETE_RETENTION : deleteRetention;
      minCompactionLag = minCompactionLag == null ? Duration.ZERO : minCompactionLag;
      if (deleteRetention.isNegative() || minCompactionLag.isNegative()) {
        throw new IllegalArgumentException("createTopic: retention and lag must not be negative");
      }
    }

    /** {@code partitions} × {@code replicationFactor}, default retention and lag. */
    public CreateTopic(int partitions, int replicationFactor) {
      this(partitions, (short) replicationFactor, null, null);
    }
  }

  /**
   * TLS to the brokers, from PEM text (as read from a Secret). Each part is a supplier, asked again
   * at most every {@link KafkaSinkConfig#credentialsCheckInterval()} before a write, so a rotated
   * CA or client certificate takes effect without a new sink: when the text changed, the sink
   * drains its producer and builds a new one. Whether a part is used is fixed by whether its
   * supplier is {@code null}; a non-null supplier that throws or returns nothing fails the write
   * (retryably) naming the part.
   *
   * @param caPem supplies the certificates that sign the brokers' ({@code null}: the JDK's trust
   *     store)
   * @param clientCertPem supplies the client certificate chain for mutual TLS ({@code null}: none)
   * @param clientKeyPem supplies the client certificate's private key, unencrypted PKCS#8 PEM
   */
  public record Tls(Supplier<String> caPem, Supplier<String> clientCertPem,
      Supplier<String> clientKeyPem) {

    public Tls {
      if ((clientCertPem == null) != (clientKeyPem == null)) {
        throw new IllegalArgumentException("tls: clientCertPem and clientKeyPem go together");
      }
    }

    /** Fixed PEM text, for an embedder that rebuilds the sink itself when it changes. */
    public Tls(String caPem, String clientCertPem, String clientKeyPem) {
      this(fixed(caPem), fixed(clientCertPem), fixed(clientKeyPem));
    }

    @Override
    public String toString() {
      return "Tls[ca=" + (caPem != null) + ", clientCert=" + (clientCertPem != null) + "]";
    }
  }

  /** SASL mechanisms the sink configures a login module for. */
  public enum SaslMechanism {
    SCRAM_SHA_512("SCRAM-SHA-512"),
    SCRAM_SHA_256("SCRAM-SHA-256"),
    PLAIN("PLAIN");

    private final String kafkaName;

    SaslMechanism(String kafkaName) {
      this.kafkaName = kafkaName;
    }

    /** The name as Kafka spells it ({@code sasl.mechanism}). */
    public String kafkaName() {
      return kafkaName;
    }

    /** Parses {@code SCRAM-SHA-512}, {@code SCRAM-SHA-256} or {@code PLAIN}. */
    public static SaslMechanism parse(String name) {
      for (SaslMechanism m : values()) {
        if (m.kafkaName.equalsIgnoreCase(name)) {
          return m;
        }
      }
      throw new IllegalArgumentException("sasl.mechanism: one of SCRAM-SHA-512, SCRAM-SHA-256,"
          + " PLAIN, got " + name);
    }
  }

  /**
   * SASL credentials; {@link #toString()} never shows the password. Username and password are
   * suppliers, asked again like {@link Tls}'s parts, so a rotated password takes effect without a
   * new sink; the mechanism is fixed.
   */
  public record Sasl(SaslMechanism mechanism, Supplier<String> username,
      Supplier<String> password) {

    public Sasl {
      Objects.requireNonNull(mechanism, "sasl.mechanism");
      if (username == null || password == null) {
        throw new IllegalArgumentException("sasl: username and password must be set");
      }
    }

    /** Fixed credentials, for an embedder that rebuilds the sink itself when they change. */
    public Sasl(SaslMechanism mechanism, String username, String password) {
      this(mechanism, fixed(requireBoth(username, password)), fixed(password));
    }

    private static String requireBoth(String username, String password) {
      if (username == null || username.isBlank() || password == null) {
        throw new IllegalArgumentException("sasl: username and password must be set");
      }
      return username;
    }

    @Override
    public String toString() {
      return "Sasl[" + mechanism.kafkaName() + "]";
    }
  }

  /** A supplier of a fixed value, {@code null} for a part that is not used. */
  private static Supplier<String> fixed(String value) {
    return value == null ? null : () -> value;
  }

  /** Builds a {@link KafkaSinkConfig}; bootstrap servers and topic are required. */
  public static final class Builder {
    private List<String> bootstrapServers;
    private String topic;
    private Deletes deletes = Deletes.TOMBSTONE;
    private CreateTopic createTopic;
    private Tls tls;
    private Sasl sasl;
    private Duration deliveryTimeout = DEFAULT_DELIVERY_TIMEOUT;
    private final Map<String, String> producerProperties = new LinkedHashMap<>();
    private Duration credentialsCheckInterval = DEFAULT_CREDENTIALS_CHECK_INTERVAL;

    private Builder() {}

    public Builder bootstrapServers(List<String> servers) {
      this.bootstrapServers = servers;
      return this;
    }

    public Builder bootstrapServers(String... servers) {
      return bootstrapServers(List.of(servers));
    }

    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    public Builder deletes(Deletes deletes) {
      this.deletes = deletes;
      return this;
    }

    public Builder createTopic(CreateTopic createTopic) {
      this.createTopic = createTopic;
      return this;
    }

    public Builder tls(Tls tls) {
      this.tls = tls;
      return this;
    }

    public Builder sasl(Sasl sasl) {
      this.sasl = sasl;
      return this;
    }

    public Builder deliveryTimeout(Duration timeout) {
      this.deliveryTimeout = timeout;
      return this;
    }

    public Builder producerProperty(String key, String value) {
      producerProperties.put(key, value);
      return this;
    }

    /** How often, at most, a write asks the credential suppliers again (zero: every write). */
    public Builder credentialsCheckInterval(Duration interval) {
      this.credentialsCheckInterval = interval;
      return this;
    }

    public KafkaSinkConfig build() {
      return new KafkaSinkConfig(bootstrapServers, topic, deletes, createTopic, tls, sasl,
          deliveryTimeout, producerProperties, credentialsCheckInterval);
    }
  }
}

package io.kollect.export.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

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
 */
public record KafkaSinkConfig(
    List<String> bootstrapServers,
    String topic,
    Deletes deletes,
    CreateTopic createTopic,
    Tls tls,
    Sasl sasl,
    Duration deliveryTimeout,
    Map<String, String> producerProperties) {

  /** Default {@link #deliveryTimeout()}. */
  public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(30);

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
   * TLS to the brokers, from PEM text (as read from a Secret).
   *
   * @param caPem certificates that sign the brokers' ({@code null}: the JDK's trust store)
   * @param clientCertPem client certificate chain for mutual TLS ({@code null}: none)
   * @param clientKeyPem the client certificate's private key, unencrypted PKCS#8 PEM
   */
  public record Tls(String caPem, String clientCertPem, String clientKeyPem) {

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

  /** SASL credentials; {@link #toString()} never shows the password. */
  public record Sasl(SaslMechanism mechanism, String username, String password) {

    public Sasl {
      Objects.requireNonNull(mechanism, "sasl.mechanism");
      if (username == null || username.isBlank() || password == null) {
        throw new IllegalArgumentException("sasl: username and password must be set");
      }
    }

    @Override
    public String toString() {
      return "Sasl[" + mechanism.kafkaName() + ", username=" + username + "]";
    }
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

    public KafkaSinkConfig build() {
      return new KafkaSinkConfig(bootstrapServers, topic, deletes, createTopic, tls, sasl,
          deliveryTimeout, producerProperties);
    }
  }
}

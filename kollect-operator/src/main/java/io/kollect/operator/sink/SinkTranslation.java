package io.kollect.operator.sink;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.FileSink;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.TlsConfig;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.export.StdoutSink;
import io.kollect.export.kafka.KafkaSink;
import io.kollect.export.kafka.KafkaSinkConfig;
import io.kollect.export.postgres.PostgresSink;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A KollectSink to a configured {@link Sink} and its {@link SinkOptions}. */
public final class SinkTranslation {

  /**
   * A sink ready for the engine.
   *
   * @param sink the sink
   * @param options batching and heartbeat
   */
  record Built(Sink sink, SinkOptions options, List<String> warnings) {
    Built(Sink sink, SinkOptions options) {
      this(sink, options, List.of());
    }
  }

  /** Default key of {@code spec.tls.caSecretRef}. */
  static final String CA_KEY = "ca.crt";
  static final String TLS_CRT = "tls.crt";
  static final String TLS_KEY = "tls.key";
  static final String INSECURE_WARNING = "spec.tls.insecureSkipVerify is true: the server's "
      + "certificate and host name are not verified, so anyone on the network path can read and "
      + "change the records; use caSecretRef instead";

  /** {@code host:port} or {@code [ipv6]:port} of a Kafka broker. */
  static final String HOST_PORT = "^[^\\s:/\\[\\]]+:[0-9]{1,5}$|^\\[[0-9a-fA-F:.]+\\]:[0-9]{1,5}$";

  /**
   * The producer settings a KollectSink may add: tuning only. A sink's namespace belongs to a
   * tenant, and other kafka-clients settings would let it load classes into the operator
   * ({@code interceptor.classes}, {@code *.callback.handler.class}), read the operator's files
   * ({@code ssl.truststore.location}, a keytab in {@code sasl.jaas.config}), make it call other
   * hosts ({@code sasl.oauthbearer.token.endpoint.url}), turn off verification ({@code
   * ssl.endpoint.identification.algorithm}) or bend the delivery guarantees and timeouts the sink
   * owns ({@code acks}, {@code linger.ms}, {@code delivery.timeout.ms}). An allow-list, so that a
   * setting a later kafka-clients adds is refused until someone has looked at it.
   */
  static final Set<String> KAFKA_PRODUCER_PROPERTIES = Set.of(
      "compression.type", "compression.gzip.level", "compression.lz4.level",
      "compression.zstd.level", "batch.size", "buffer.memory", "max.request.size",
      "max.in.flight.requests.per.connection", "send.buffer.bytes", "receive.buffer.bytes",
      "client.dns.lookup", "connections.max.idle.ms", "metadata.max.age.ms",
      "metadata.max.idle.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms",
      "retry.backoff.ms", "retry.backoff.max.ms", "socket.connection.setup.timeout.ms",
      "socket.connection.setup.timeout.max.ms");

  /**
   * Upper bounds of the allowed producer settings that size memory: the producer's buffers are on
   * the operator's heap, shared by every sink and target, so one KollectSink must not be able to
   * take it (a {@code batch.size} of 1 GiB is allocated per partition being written).
   */
  static final Map<String, Long> KAFKA_PRODUCER_LIMITS = Map.of(
      "batch.size", 1L << 20,
      "buffer.memory", 64L << 20,
      "max.request.size", 16L << 20);

  /**
   * The longest retry delay of the sinks built from now on: empty for each sink type's own (2 min,
   * {@link SinkOptions#defaults()}), unless an integration test of this package shortens it so
   * that a recovery it waits for is not bounded by a delay grown over many failures (and restores
   * it). Not a user setting: a KollectSink has no field for it.
   */
  static volatile Optional<Duration> maxBackoff = Optional.empty();
  /**
   * How often the kafka sinks built from now on ask their credentials again: the library's
   * default, unless an integration test of this package shortens it to see a rotation in seconds
   * (and restores it).
   */
  static volatile Duration kafkaCredentialsCheckInterval =
      KafkaSinkConfig.DEFAULT_CREDENTIALS_CHECK_INTERVAL;

  private final SecretValues secrets;
  private final WebhookTranslation webhooks;
  private final OtlpSinkTranslation otlp;
  private final PostgresSinkTranslation postgres;

  public SinkTranslation(KubernetesClient client) {
    this.secrets = new SecretValues(client);
    this.webhooks = new WebhookTranslation(secrets);
    this.otlp = new OtlpSinkTranslation(secrets);
    this.postgres = new PostgresSinkTranslation(secrets, client);
  }

  /**
   * Builds the sink named {@code name}.
   *
   * @throws IllegalArgumentException naming the field when the spec is unusable
   */
  Built build(String name, KollectSink resource) {
    KollectSinkSpec spec = resource.getSpec();
    if (spec == null || spec.type() == null) {
      throw new IllegalArgumentException("spec.type: is missing (stdout, file, http, kafka, otlp or postgres)");
    }
    SinkOptions options = options(spec);
    if (spec.tls() != null && spec.type() == KollectSinkSpec.Type.KAFKA) {
      // the kafka block has its own tls (no insecureSkipVerify: the kafka client always verifies)
      throw new IllegalArgumentException("spec.tls: type kafka takes its TLS settings in "
          + "spec.kafka.tls; move them there");
    }
    if (spec.tls() != null && spec.type() != KollectSinkSpec.Type.HTTP
        && spec.type() != KollectSinkSpec.Type.OTLP
        && spec.type() != KollectSinkSpec.Type.POSTGRES) {
      throw new IllegalArgumentException("spec.tls: type " + spec.type().name().toLowerCase(
          java.util.Locale.ROOT) + " does not speak TLS; remove the tls block");
    }
    Sink sink = switch (spec.type()) {
      case STDOUT -> new StdoutSink(name);
      case FILE -> file(name, spec);
      case HTTP -> http(name, resource.getMetadata().getNamespace(), spec);
      case KAFKA -> kafka(name, resource.getMetadata().getNamespace(), spec);
      case OTLP -> otlp.build(name, resource.getMetadata().getNamespace(), spec,
          spec.tls() == null ? null : tls(resource.getMetadata().getNamespace(), spec.tls()),
          options.heartbeatInterval());
      case POSTGRES -> postgres.build(name, resource.getMetadata().getNamespace(), spec.postgres(),
          spec.tls() == null ? null : tls(resource.getMetadata().getNamespace(), spec.tls()));
    };
    List<String> warnings = spec.tls() != null && Boolean.TRUE.equals(spec.tls().insecureSkipVerify())
        ? List.of(INSECURE_WARNING) : List.of();
    return new Built(sink, options, warnings);
  }

  static SinkOptions options(KollectSinkSpec spec) {
    // The kafka sink's own defaults (linger 5 ms, heartbeat off: the compacted topic keeps every
    // object's last state); the spec's batch and heartbeatInterval still override them.
    SinkOptions options = spec.type() == KollectSinkSpec.Type.KAFKA
        ? KafkaSink.defaultOptions() : SinkOptions.defaults();
    if (spec.type() == KollectSinkSpec.Type.POSTGRES) {
      options = PostgresSink.defaultOptions();
    }
    if (spec.batch() != null) {
      if (spec.batch().maxSize() != null) {
        options = options.withMaxBatchSize(spec.batch().maxSize());
      }
      if (spec.batch().linger() != null) {
        options = options.withLinger(duration("spec.batch.linger", spec.batch().linger()));
      }
    }
    if (spec.heartbeatInterval() != null) {
      options = options.withHeartbeatInterval(
          duration("spec.heartbeatInterval", spec.heartbeatInterval()));
    }
    Optional<Duration> cap = maxBackoff;
    if (cap.isPresent() && cap.get().compareTo(options.maxBackoff()) < 0) {
      Duration max = cap.get();
      Duration initial = options.initialBackoff();
      options = options.withBackoff(initial.compareTo(max) < 0 ? initial : max, max);
    }
    return options;
  }

  /** Parses a Go-style duration ({@code 1m30s}) naming the field when it is not one. */
  static Duration duration(String field, String text) {
    try {
      return io.fabric8.kubernetes.api.model.Duration.parse(text).getDuration();
    } catch (java.text.ParseException | RuntimeException e) {
      throw new IllegalArgumentException(field + ": '" + text + "' is not a duration (e.g. 30s, 1m30s)");
    }
  }

  private static Sink file(String name, KollectSinkSpec spec) {
    KollectSinkSpec.File f = spec.file();
    if (f == null || f.path() == null || f.path().isBlank()) {
      throw new IllegalArgumentException("spec.file.path: is required for type file");
    }
    Path path;
    try {
      path = Path.of(f.path());
    } catch (java.nio.file.InvalidPathException e) {
      throw new IllegalArgumentException("spec.file.path: '" + f.path() + "' is not a path");
    }
    try {
      return new FileSink(name, path,
          f.maxBytes() == null ? FileSink.DEFAULT_MAX_BYTES : f.maxBytes(),
          f.maxFiles() == null ? FileSink.DEFAULT_KEPT_FILES : f.maxFiles());
    } catch (IllegalArgumentException e) {
      // FileSink names its parameters maxBytes/keptFiles; the resource calls the latter maxFiles.
      throw new IllegalArgumentException("spec.file." + e.getMessage().replace("keptFiles", "maxFiles"));
    }
  }

  private Sink http(String name, String namespace, KollectSinkSpec spec) {
    KollectSinkSpec.Http h = spec.http();
    if (h == null || h.url() == null || h.url().isBlank()) {
      throw new IllegalArgumentException("spec.http.url: is required for type http");
    }
    URI url = url(h.url());
    HttpSinkConfig config;
    try {
      config = HttpSinkConfig.of(url).withGzip(Boolean.TRUE.equals(h.gzip()));
      if (h.timeout() != null) {
        config = config.withTimeout(duration("spec.http.timeout", h.timeout()));
      }
      if (h.headers() != null) {
        config = config.withHeaders(h.headers());
      }
      if (h.bearerTokenSecretRef() != null && h.basicAuthSecretRef() != null) {
        throw new IllegalArgumentException(
            "bearerTokenSecretRef, basicAuthSecretRef: set at most one of them");
      }
      if (h.bearerTokenSecretRef() != null) {
        KollectSinkSpec.SecretKeyRef ref = h.bearerTokenSecretRef();
        require(ref.name(), "spec.http.bearerTokenSecretRef.name");
        require(ref.key(), "spec.http.bearerTokenSecretRef.key");
        config = config.withBearerToken(() -> secrets.value(namespace, ref.name(), ref.key()).strip());
      }
      if (h.basicAuthSecretRef() != null) {
        KollectSinkSpec.BasicAuthSecretRef ref = h.basicAuthSecretRef();
        require(ref.name(), "spec.http.basicAuthSecretRef.name");
        String userKey = ref.usernameKey() == null ? "username" : ref.usernameKey();
        String passwordKey = ref.passwordKey() == null ? "password" : ref.passwordKey();
        config = config.withBasicAuth(() -> new HttpSinkConfig.BasicCredentials(
            secrets.value(namespace, ref.name(), userKey),
            secrets.value(namespace, ref.name(), passwordKey)));
      }
      config = webhooks.apply(config, namespace, h);
    } catch (IllegalArgumentException e) {
      String msg = e.getMessage();
      throw new IllegalArgumentException(msg.startsWith("spec.") ? msg : "spec.http." + msg);
    }
    if (spec.tls() != null) {
      if (!"https".equalsIgnoreCase(url.getScheme())) {
        throw new IllegalArgumentException("spec.tls: the URL " + h.url()
            + " is not https://; TLS settings need an https URL");
      }
      config = config.withTls(tls(namespace, spec.tls()));
    }
    return new HttpSink(name, config);
  }

  /**
   * A kafka sink. Secrets (TLS PEMs, SASL credentials) are read now, so a missing Secret or key is
   * reported at once naming the field; the sink is given suppliers over {@link SecretValues} and
   * asks them again at most every {@link KafkaSinkConfig#credentialsCheckInterval()}, so a rotated
   * Secret takes effect within that and the Secrets' TTL, on the same sink (a rebuilt sink would
   * be re-sent the full current set).
   */
  private KafkaSink kafka(String name, String namespace, KollectSinkSpec spec) {
    try {
      return kafkaSink(name, namespace, spec.kafka());
    } catch (IllegalArgumentException e) {
      // KafkaSinkConfig names its fields relative to the kafka block
      String msg = e.getMessage();
      throw new IllegalArgumentException(msg.startsWith("spec.") ? msg : "spec.kafka." + msg);
    }
  }

  private KafkaSink kafkaSink(String name, String namespace, KollectSinkSpec.Kafka k) {
    if (k == null) {
      throw new IllegalArgumentException("spec.kafka: is required for type kafka");
    }
    if (k.bootstrapServers() == null || k.bootstrapServers().isEmpty()) {
      throw new IllegalArgumentException("spec.kafka.bootstrapServers: is required (host:port)");
    }
    for (String server : k.bootstrapServers()) {
      if (server == null || !server.matches(HOST_PORT)) {
        throw new IllegalArgumentException("spec.kafka.bootstrapServers: '" + server
            + "' is not host:port");
      }
    }
    require(k.topic(), "spec.kafka.topic");
    KafkaSinkConfig.Builder config = KafkaSinkConfig.builder()
        .bootstrapServers(k.bootstrapServers())
        .topic(k.topic())
        .credentialsCheckInterval(kafkaCredentialsCheckInterval)
        .deletes(switch (k.deletes() == null ? KollectSinkSpec.Deletes.TOMBSTONE : k.deletes()) {
          case TOMBSTONE -> KafkaSinkConfig.Deletes.TOMBSTONE;
          case RECORD -> KafkaSinkConfig.Deletes.RECORD;
          case BOTH -> KafkaSinkConfig.Deletes.BOTH;
        });
    if (k.deliveryTimeout() != null) {
      config.deliveryTimeout(duration("spec.kafka.deliveryTimeout", k.deliveryTimeout()));
    }
    if (k.createTopic() != null) {
      config.createTopic(createTopic(k.createTopic()));
    }
    if (k.tls() != null) {
      config.tls(kafkaTls(namespace, k.tls()));
    }
    if (k.sasl() != null) {
      config.sasl(kafkaSasl(namespace, k.sasl()));
    }
    if (k.producerProperties() != null) {
      new TreeMap<>(k.producerProperties()).forEach((key, value) ->
          config.producerProperty(key, producerProperty(key, value)));
    }
    return new KafkaSink(name, config.build());
  }

  /** {@code spec.kafka.createTopic}: the topic the sink creates when it is missing. */
  private KafkaSinkConfig.CreateTopic createTopic(KollectSinkSpec.CreateTopic c) {
    if (c.partitions() == null || c.partitions() < 1) {
      throw new IllegalArgumentException("spec.kafka.createTopic.partitions: is required, at least 1");
    }
    if (c.replicationFactor() == null || c.replicationFactor() < 1
        || c.replicationFactor() > Short.MAX_VALUE) {
      throw new IllegalArgumentException(
          "spec.kafka.createTopic.replicationFactor: is required, at least 1");
    }
    return new KafkaSinkConfig.CreateTopic(c.partitions(),
        c.replicationFactor().shortValue(),
        c.deleteRetention() == null ? null
            : duration("spec.kafka.createTopic.deleteRetention", c.deleteRetention()),
        c.minCompactionLag() == null ? null
            : duration("spec.kafka.createTopic.minCompactionLag", c.minCompactionLag()));
  }

  /** {@code spec.kafka.tls}: CA and client certificate from Secrets, read when a client needs them. */
  private KafkaSinkConfig.Tls kafkaTls(String namespace, KollectSinkSpec.KafkaTls tls) {
    Supplier<String> ca = null;
    Supplier<String> cert = null;
    Supplier<String> key = null;
    if (tls.caSecretRef() != null) {
      KollectSinkSpec.CaSecretRef ref = tls.caSecretRef();
      require(ref.name(), "spec.kafka.tls.caSecretRef.name");
      String caKey = ref.key() == null || ref.key().isBlank() ? CA_KEY : ref.key();
      ca = () -> secrets.value(namespace, ref.name(), caKey);
      check(ca, "spec.kafka.tls.caSecretRef");
    }
    if (tls.clientCertSecretRef() != null) {
      KollectSinkSpec.ClientCertSecretRef ref = tls.clientCertSecretRef();
      require(ref.name(), "spec.kafka.tls.clientCertSecretRef.name");
      cert = () -> secrets.value(namespace, ref.name(), TLS_CRT);
      key = () -> secrets.value(namespace, ref.name(), TLS_KEY);
      check(cert, "spec.kafka.tls.clientCertSecretRef");
      check(key, "spec.kafka.tls.clientCertSecretRef");
    }
    return new KafkaSinkConfig.Tls(ca, cert, key);
  }

  /** {@code spec.kafka.sasl}: the mechanism, and username and password from a Secret. */
  private KafkaSinkConfig.Sasl kafkaSasl(String namespace, KollectSinkSpec.Sasl sasl) {
    require(sasl.mechanism(), "spec.kafka.sasl.mechanism");
    KafkaSinkConfig.SaslMechanism mechanism;
    try {
      mechanism = KafkaSinkConfig.SaslMechanism.parse(sasl.mechanism());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("spec.kafka." + e.getMessage());
    }
    KollectSinkSpec.BasicAuthSecretRef ref = sasl.secretRef();
    if (ref == null) {
      throw new IllegalArgumentException("spec.kafka.sasl.secretRef: is required");
    }
    require(ref.name(), "spec.kafka.sasl.secretRef.name");
    String userKey = ref.usernameKey() == null ? "username" : ref.usernameKey();
    String passwordKey = ref.passwordKey() == null ? "password" : ref.passwordKey();
    // the sink strips the username (and names one that became empty as sasl.username)
    Supplier<String> username = () -> secrets.value(namespace, ref.name(), userKey);
    Supplier<String> password = () -> secrets.value(namespace, ref.name(), passwordKey);
    check(username, "spec.kafka.sasl.secretRef");
    check(password, "spec.kafka.sasl.secretRef");
    if (username.get().isBlank()) {
      throw new IllegalArgumentException("spec.kafka.sasl.secretRef: Secret " + namespace + "/"
          + ref.name() + " key " + userKey + " is empty");
    }
    return new KafkaSinkConfig.Sasl(mechanism, username, password);
  }

  /**
   * Checks one of {@code spec.kafka.producerProperties} now, with kafka-clients' own definition of
   * the setting, so a bad value is the sink's condition at once instead of a producer that fails
   * to start at the first write.
   *
   * @throws IllegalArgumentException naming the key and the problem
   */
  static String producerProperty(String key, String value) {
    String field = "spec.kafka.producerProperties." + key;
    if (!KAFKA_PRODUCER_PROPERTIES.contains(key)) {
      throw new IllegalArgumentException(field + ": is not allowed; only tuning settings are ("
          + String.join(", ", new TreeSet<>(KAFKA_PRODUCER_PROPERTIES))
          + "): security comes from spec.kafka.tls and spec.kafka.sasl, timeouts from "
          + "spec.kafka.deliveryTimeout, acks and idempotence are the sink's");
    }
    if (value == null) {
      throw new IllegalArgumentException(field + ": has no value");
    }
    ConfigDef.ConfigKey definition = ProducerConfig.configDef().configKeys().get(key);
    if (definition == null) {
      throw new IllegalArgumentException(field + ": is not a setting of this kafka-clients");
    }
    Object parsed;
    try {
      parsed = ConfigDef.parseType(key, value.strip(), definition.type);
      if (definition.validator != null) {
        definition.validator.ensureValid(key, parsed);
      }
    } catch (ConfigException e) {
      throw new IllegalArgumentException(field + ": '" + value + "' is not valid: "
          + e.getMessage());
    }
    Long limit = KAFKA_PRODUCER_LIMITS.get(key);
    if (limit != null && parsed instanceof Number n && n.longValue() > limit) {
      throw new IllegalArgumentException(field + ": " + n + " is above the operator's limit of "
          + limit + " bytes (the producer's buffers are on the operator's heap, shared by every "
          + "sink)");
    }
    return value.strip();
  }

  /**
   * Parses a sink URL: http or https, a host, and a port in 1-65535 when one is given.
   *
   * @throws IllegalArgumentException naming {@code spec.http.url} and the problem
   */
  static URI url(String text) {
    URI url;
    try {
      url = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("spec.http.url: '" + text + "' is not a URL");
    }
    if (url.getScheme() == null || !(url.getScheme().equalsIgnoreCase("http")
        || url.getScheme().equalsIgnoreCase("https"))) {
      throw new IllegalArgumentException("spec.http.url: must be an http or https URL, got " + text);
    }
    if (url.getHost() == null) {
      // java.net.URI parses an out-of-range port as part of a registry-based authority.
      String authority = url.getRawAuthority() == null ? "" : url.getRawAuthority();
      int colon = authority.lastIndexOf(':');
      if (colon >= 0 && authority.substring(colon + 1).matches("-?[0-9]+")) {
        throw new IllegalArgumentException("spec.http.url: port " + authority.substring(colon + 1)
            + " is outside 1-65535");
      }
      throw new IllegalArgumentException("spec.http.url: '" + text + "' has no host");
    }
    if (url.getPort() != -1 && (url.getPort() < 1 || url.getPort() > 65535)) {
      throw new IllegalArgumentException("spec.http.url: port " + url.getPort()
          + " is outside 1-65535");
    }
    return url;
  }

  /**
   * Resolves a {@code tls} block: the Secrets are read now, so a missing Secret or key is reported
   * at once naming the field, the Secret and the key (never a value); the suppliers read them again
   * on use, so rotation takes effect without a restart.
   */
  TlsConfig tls(String namespace, KollectSinkSpec.Tls tls) {
    Supplier<String> ca = null;
    Supplier<String> cert = null;
    Supplier<String> key = null;
    if (tls.caSecretRef() != null) {
      KollectSinkSpec.CaSecretRef ref = tls.caSecretRef();
      require(ref.name(), "spec.tls.caSecretRef.name");
      String caKey = ref.key() == null || ref.key().isBlank() ? CA_KEY : ref.key();
      ca = () -> secrets.value(namespace, ref.name(), caKey);
      check(ca, "spec.tls.caSecretRef");
    }
    if (tls.clientCertSecretRef() != null) {
      KollectSinkSpec.ClientCertSecretRef ref = tls.clientCertSecretRef();
      require(ref.name(), "spec.tls.clientCertSecretRef.name");
      cert = () -> secrets.value(namespace, ref.name(), TLS_CRT);
      key = () -> secrets.value(namespace, ref.name(), TLS_KEY);
      check(cert, "spec.tls.clientCertSecretRef");
      check(key, "spec.tls.clientCertSecretRef");
    }
    return new TlsConfig(ca, cert, key, Boolean.TRUE.equals(tls.insecureSkipVerify()));
  }

  static void check(Supplier<String> value, String field) {
    try {
      value.get();
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage());
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      throw new IllegalArgumentException(field + ": cannot read the Secret: HTTP " + e.getCode());
    }
  }


  static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + ": is required");
    }
  }
}

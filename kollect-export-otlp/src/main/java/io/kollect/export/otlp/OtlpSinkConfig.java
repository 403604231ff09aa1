package io.kollect.export.otlp;

import io.kollect.export.TlsConfig;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Settings of an {@link OtlpSink}; build with {@link #builder()}.
 *
 * @param endpoint where the OTLP receiver listens: for {@link Protocol#HTTP_PROTOBUF} the full
 *     logs URL (for example {@code https://collector:4318/v1/logs}), for {@link Protocol#GRPC} the
 *     scheme, host and port ({@code https://collector:4317})
 * @param protocol {@code http/protobuf} or {@code grpc}
 * @param tls how the receiver is verified and the sink authenticates ({@code null}: the JDK's
 *     trust store for an {@code https} endpoint, nothing for {@code http}); the client key must be
 *     PKCS#8 PEM, and {@code insecureSkipVerify} is refused (the OTLP exporters have no such mode)
 * @param headers request headers (for example an API key), each value a supplier asked again like
 *     the TLS parts, so a rotated key takes effect without a new sink
 * @param timeout how long one {@link OtlpSink#write} waits for the receiver's answer at most
 *     (default 10 s)
 * @param reportInterval the sink's heartbeat interval, sent as {@code entity.report.interval} so a
 *     receiver can expire an entity whose heartbeat stops ({@link Duration#ZERO}: heartbeat off,
 *     the attribute is omitted)
 * @param resourceAttributes string attributes of the OTLP resource every log record is sent under,
 *     beside {@code service.name=kollect} (which they may override)
 * @param credentialsCheckInterval how often, at most, a write asks the {@code tls} and {@code
 *     headers} suppliers again to notice rotated material (default 10 s; zero: before every write)
 */
public record OtlpSinkConfig(
    URI endpoint,
    Protocol protocol,
    TlsConfig tls,
    Map<String, Supplier<String>> headers,
    Duration timeout,
    Duration reportInterval,
    Map<String, String> resourceAttributes,
    Duration credentialsCheckInterval) {

  /** Default {@link #timeout()}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link #credentialsCheckInterval()}. */
  public static final Duration DEFAULT_CREDENTIALS_CHECK_INTERVAL = Duration.ofSeconds(10);

  /** Rejects what the sink cannot honour, naming the field. */
  public OtlpSinkConfig {
    Objects.requireNonNull(endpoint, "endpoint");
    String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(
        Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || endpoint.getHost() == null) {
      throw new IllegalArgumentException("endpoint: an http:// or https:// URL with a host, got "
          + endpoint);
    }
    protocol = protocol == null ? Protocol.HTTP_PROTOBUF : protocol;
    if (tls != null && tls.insecureSkipVerify()) {
      throw new IllegalArgumentException("tls.insecureSkipVerify: not supported by the otlp sink;"
          + " give the receiver's CA as tls.caPem");
    }
    if (tls != null && !scheme.equals("https")) {
      throw new IllegalArgumentException("tls: set, but the endpoint is " + endpoint
          + " (use https://)");
    }
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    if (timeout.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("timeout: must be at least 100ms, got " + timeout);
    }
    reportInterval = reportInterval == null ? Duration.ZERO : reportInterval;
    if (reportInterval.isNegative()) {
      throw new IllegalArgumentException("reportInterval: must not be negative, got "
          + reportInterval);
    }
    resourceAttributes = resourceAttributes == null ? Map.of() : Map.copyOf(resourceAttributes);
    credentialsCheckInterval = credentialsCheckInterval == null
        ? DEFAULT_CREDENTIALS_CHECK_INTERVAL : credentialsCheckInterval;
    if (credentialsCheckInterval.isNegative()) {
      throw new IllegalArgumentException("credentialsCheckInterval: must not be negative, got "
          + credentialsCheckInterval);
    }
  }

  /** A builder; the endpoint is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Never shows header values (they are typically API keys). */
  @Override
  public String toString() {
    return "OtlpSinkConfig[endpoint=" + endpoint + ", protocol=" + protocol.configName()
        + ", tls=" + tls + ", headers=" + headers.keySet() + ", timeout=" + timeout
        + ", reportInterval=" + reportInterval + ", resourceAttributes=" + resourceAttributes
        + ", credentialsCheckInterval=" + credentialsCheckInterval + "]";
  }

  /** The OTLP transports, as OpenTelemetry's {@code OTEL_EXPORTER_OTLP_PROTOCOL} names them. */
  public enum Protocol {
    /** OTLP/HTTP with binary protobuf bodies ({@code http/protobuf}). */
    HTTP_PROTOBUF("http/protobuf"),
    /** OTLP/gRPC ({@code grpc}). */
    GRPC("grpc");

    private final String configName;

    Protocol(String configName) {
      this.configName = configName;
    }

    /** The name as configured: {@code http/protobuf} or {@code grpc}. */
    public String configName() {
      return configName;
    }

    /** Parses {@code http/protobuf} or {@code grpc}. */
    public static Protocol parse(String name) {
      for (Protocol p : values()) {
        if (p.configName.equalsIgnoreCase(name)) {
          return p;
        }
      }
      throw new IllegalArgumentException("protocol: one of http/protobuf, grpc, got " + name);
    }
  }

  /** Builds an {@link OtlpSinkConfig}. */
  public static final class Builder {
    private URI endpoint;
    private Protocol protocol = Protocol.HTTP_PROTOBUF;
    private TlsConfig tls;
    private final Map<String, Supplier<String>> headers = new LinkedHashMap<>();
    private Duration timeout = DEFAULT_TIMEOUT;
    private Duration reportInterval = Duration.ZERO;
    private final Map<String, String> resourceAttributes = new LinkedHashMap<>();
    private Duration credentialsCheckInterval = DEFAULT_CREDENTIALS_CHECK_INTERVAL;

    private Builder() {}

    /** See {@link OtlpSinkConfig#endpoint()}. */
    public Builder endpoint(URI endpoint) {
      this.endpoint = endpoint;
      return this;
    }

    /** See {@link OtlpSinkConfig#endpoint()}. */
    public Builder endpoint(String endpoint) {
      return endpoint(URI.create(endpoint));
    }

    /** See {@link OtlpSinkConfig#protocol()}. */
    public Builder protocol(Protocol protocol) {
      this.protocol = protocol;
      return this;
    }

    /** See {@link OtlpSinkConfig#tls()}. */
    public Builder tls(TlsConfig tls) {
      this.tls = tls;
      return this;
    }

    /** Adds a header whose value {@code value} supplies (asked again to notice a rotation). */
    public Builder header(String name, Supplier<String> value) {
      headers.put(Objects.requireNonNull(name, "header name"), Objects.requireNonNull(value,
          "header " + name));
      return this;
    }

    /** See {@link OtlpSinkConfig#timeout()}. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** See {@link OtlpSinkConfig#reportInterval()}: the sink's heartbeat interval. */
    public Builder reportInterval(Duration interval) {
      this.reportInterval = interval;
      return this;
    }

    /** Adds a resource attribute. */
    public Builder resourceAttribute(String key, String value) {
      resourceAttributes.put(key, value);
      return this;
    }

    /** See {@link OtlpSinkConfig#credentialsCheckInterval()}. */
    public Builder credentialsCheckInterval(Duration interval) {
      this.credentialsCheckInterval = interval;
      return this;
    }

    /** The config; throws {@link IllegalArgumentException} naming a field it cannot honour. */
    public OtlpSinkConfig build() {
      return new OtlpSinkConfig(endpoint, protocol, tls, headers, timeout, reportInterval,
          resourceAttributes, credentialsCheckInterval);
    }
  }
}

package io.kollect.operator.sink;

import io.kollect.export.TlsConfig;
import io.kollect.export.otlp.OtlpSink;
import io.kollect.export.otlp.OtlpSinkConfig;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.crd.OtlpSinkSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * {@code KollectSink} {@code type: otlp} to an {@link OtlpSink}. The header Secrets are read now,
 * so a missing Secret or key is the sink's condition at once, naming the field; the sink is given
 * suppliers over {@link SecretValues} and asks them again at most every {@link
 * OtlpSinkConfig#credentialsCheckInterval()}, so a rotated API key or certificate takes effect on
 * the same sink (a rebuilt sink would be sent the full current set again).
 */
final class OtlpSinkTranslation {

  /**
   * How often the otlp sinks built from now on ask their header and TLS suppliers again: the
   * library's default, unless an integration test of this package shortens it to see a rotation
   * in seconds (and restores it).
   */
  static volatile Duration credentialsCheckInterval =
      OtlpSinkConfig.DEFAULT_CREDENTIALS_CHECK_INTERVAL;

  private final SecretValues secrets;

  OtlpSinkTranslation(SecretValues secrets) {
    this.secrets = secrets;
  }

  /**
   * The otlp sink of {@code spec}.
   *
   * @param tls the sink's {@code spec.tls}, resolved, or {@code null}
   * @param heartbeat the sink's heartbeat interval, sent as {@code entity.report.interval} (zero:
   *     off, the attribute is omitted)
   * @throws IllegalArgumentException naming the field and the problem
   */
  OtlpSink build(String name, String namespace, KollectSinkSpec spec, TlsConfig tls,
      Duration heartbeat) {
    OtlpSinkSpec o = spec.otlp();
    if (o == null) {
      throw new IllegalArgumentException("spec.otlp: is required for type otlp");
    }
    if (o.endpoint() == null || o.endpoint().isBlank()) {
      throw new IllegalArgumentException("spec.otlp.endpoint: is required");
    }
    OtlpSinkConfig.Protocol protocol = protocol(o.protocol());
    URI endpoint = endpoint(o.endpoint(), protocol);
    if (spec.tls() != null && Boolean.TRUE.equals(spec.tls().insecureSkipVerify())) {
      throw new IllegalArgumentException("spec.tls.insecureSkipVerify: not supported by the otlp "
          + "sink (the OTLP exporters always verify); give the receiver's CA in "
          + "spec.tls.caSecretRef");
    }
    if (tls != null && !"https".equalsIgnoreCase(endpoint.getScheme())) {
      throw new IllegalArgumentException("spec.tls: the endpoint " + o.endpoint()
          + " is not https://; TLS settings need an https endpoint");
    }
    OtlpSinkConfig.Builder config = OtlpSinkConfig.builder()
        .endpoint(endpoint)
        .protocol(protocol)
        .tls(tls)
        .reportInterval(heartbeat)
        .credentialsCheckInterval(credentialsCheckInterval);
    if (o.timeout() != null) {
      config.timeout(SinkTranslation.duration("spec.otlp.timeout", o.timeout()));
    }
    if (o.headerSecretRefs() != null) {
      new TreeMap<>(o.headerSecretRefs()).forEach((header, ref) ->
          config.header(header, headerValue(namespace, header, ref)));
    }
    if (o.resourceAttributes() != null) {
      new TreeMap<>(o.resourceAttributes()).forEach(config::resourceAttribute);
    }
    try {
      return new OtlpSink(name, config.build());
    } catch (IllegalArgumentException e) {
      // OtlpSinkConfig names its fields relative to the otlp block
      throw new IllegalArgumentException("spec.otlp." + e.getMessage());
    }
  }

  private static OtlpSinkConfig.Protocol protocol(String text) {
    if (text == null || text.isBlank()) {
      return OtlpSinkConfig.Protocol.HTTP_PROTOBUF;
    }
    try {
      return OtlpSinkConfig.Protocol.parse(text.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("spec.otlp." + e.getMessage());
    }
  }

  /**
   * The endpoint as the protocol wants it: OTLP/HTTP posts to exactly the URL given, so it must
   * name the logs path; OTLP/gRPC takes no path. Both mistakes would otherwise show only as
   * failing deliveries (a 404, an unimplemented method).
   */
  static URI endpoint(String text, OtlpSinkConfig.Protocol protocol) {
    String field = "spec.otlp.endpoint";
    URI uri;
    try {
      uri = new URI(text.strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(field + ": '" + text + "' is not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException(field + ": must be an http or https URL, got " + text);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(field + ": '" + text + "' has no host (or its port is "
          + "outside 1-65535)");
    }
    if (uri.getPort() == 0 || uri.getPort() > 65535) {
      throw new IllegalArgumentException(field + ": port " + uri.getPort() + " is outside 1-65535");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (protocol == OtlpSinkConfig.Protocol.HTTP_PROTOBUF && (path.isEmpty() || path.equals("/"))) {
      throw new IllegalArgumentException(field + ": http/protobuf posts to exactly this URL: give "
          + "the logs path, e.g. " + scheme + "://" + uri.getRawAuthority() + "/v1/logs");
    }
    if (protocol == OtlpSinkConfig.Protocol.GRPC && !(path.isEmpty() || path.equals("/"))) {
      throw new IllegalArgumentException(field + ": grpc takes scheme, host and port only, got "
          + "the path " + path);
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(field + ": no query, fragment or credentials in the URL "
          + "(put credentials in headerSecretRefs)");
    }
    return uri;
  }

  /** A header's value from its Secret, read once now to report a missing one naming the field. */
  private Supplier<String> headerValue(String namespace, String header,
      KollectSinkSpec.SecretKeyRef ref) {
    String field = "spec.otlp.headerSecretRefs." + header;
    if (header.isEmpty() || !header.chars().allMatch(OtlpSinkTranslation::isTokenChar)) {
      throw new IllegalArgumentException(field + ": '" + header + "' is not a header name");
    }
    if (ref == null || ref.name() == null || ref.name().isBlank()) {
      throw new IllegalArgumentException(field + ".name: is required");
    }
    if (ref.key() == null || ref.key().isBlank()) {
      throw new IllegalArgumentException(field + ".key: is required");
    }
    Supplier<String> value = () -> secrets.value(namespace, ref.name(), ref.key()).strip();
    String now;
    try {
      now = value.get();
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage());
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      throw new IllegalArgumentException(field + ": cannot read the Secret: HTTP " + e.getCode());
    }
    if (now.isEmpty() || now.indexOf('\n') >= 0 || now.indexOf('\r') >= 0) {
      throw new IllegalArgumentException(field + ": Secret " + namespace + "/" + ref.name()
          + " key " + ref.key() + " is empty or not one line");
    }
    return value;
  }

  private static boolean isTokenChar(int c) {
    return c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
  }

}

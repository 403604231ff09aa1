package io.kollect.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.FileSink;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.export.StdoutSink;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;

/** A KollectSink to a configured {@link Sink} and its {@link SinkOptions}. */
final class SinkTranslation {

  /**
   * A sink ready for the engine.
   *
   * @param sink the sink
   * @param options batching and heartbeat
   */
  record Built(Sink sink, SinkOptions options) {}

  private final SecretValues secrets;

  SinkTranslation(KubernetesClient client) {
    this.secrets = new SecretValues(client);
  }

  /**
   * Builds the sink named {@code name}.
   *
   * @throws IllegalArgumentException naming the field when the spec is unusable
   */
  Built build(String name, KollectSink resource) {
    KollectSinkSpec spec = resource.getSpec();
    if (spec == null || spec.type() == null) {
      throw new IllegalArgumentException("spec.type: is missing (stdout, file or http)");
    }
    SinkOptions options = options(spec);
    Sink sink = switch (spec.type()) {
      case STDOUT -> new StdoutSink(name);
      case FILE -> file(name, spec);
      case HTTP -> http(name, resource.getMetadata().getNamespace(), spec);
    };
    return new Built(sink, options);
  }

  static SinkOptions options(KollectSinkSpec spec) {
    SinkOptions options = SinkOptions.defaults();
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
    URI url;
    try {
      url = new URI(h.url());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("spec.http.url: '" + h.url() + "' is not a URL");
    }
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
    } catch (IllegalArgumentException e) {
      String msg = e.getMessage();
      throw new IllegalArgumentException(msg.startsWith("spec.") ? msg : "spec.http." + msg);
    }
    return new HttpSink(name, config);
  }

  private static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + ": is required");
    }
  }
}

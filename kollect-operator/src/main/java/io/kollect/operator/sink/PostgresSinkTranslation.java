package io.kollect.operator.sink;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.export.TlsConfig;
import io.kollect.export.postgres.PostgresSink;
import io.kollect.export.postgres.PostgresSinkConfig;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.crd.PostgresSinkSpec;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * {@code spec.postgres} (with the shared {@code spec.tls}) to a {@link PostgresSink}. Secrets are
 * read now, so a missing Secret or key is the sink's condition at once naming the field; the sink
 * is given suppliers over {@link SecretValues} and asks them again at most every {@link
 * PostgresSinkConfig#credentialsCheckInterval()}, so a rotated password or certificate takes effect
 * on the same sink (a rebuilt sink would be sent the full current set again).
 *
 * <p>Every sink built here carries one writer identity: the UID of this cluster's {@code
 * kube-system} namespace. Shards and replicas of one operator share it; an operator of another
 * cluster that was given the same {@code --cluster-name} has another, and the sink's status names
 * that second writer.
 */
final class PostgresSinkTranslation {

  /**
   * How often the sinks built from now on refresh their writer row and look for conflicting
   * writers: the library's default, unless an integration test of this package shortens it to see
   * a conflict in seconds (and restores it).
   */
  static volatile Duration maintenanceInterval = PostgresSinkConfig.DEFAULT_MAINTENANCE_INTERVAL;
  /** As {@link #maintenanceInterval}, for how often credentials are asked again. */
  static volatile Duration credentialsCheckInterval =
      PostgresSinkConfig.DEFAULT_CREDENTIALS_CHECK_INTERVAL;
  /**
   * As {@link #maintenanceInterval}, for how long a connection is waited for: a refused, failed
   * or unauthenticated connection is retried by the pool until then, so a test of a sink that
   * cannot connect waits it out before the condition says why.
   */
  static volatile Duration connectTimeout = PostgresSinkConfig.DEFAULT_CONNECT_TIMEOUT;

  private final SecretValues secrets;
  private final KubernetesClient client;
  private volatile String writerIdentity;

  PostgresSinkTranslation(SecretValues secrets, KubernetesClient client) {
    this.secrets = secrets;
    this.client = client;
  }

  /**
   * Builds the sink; {@code tls} is the resolved shared TLS block or {@code null}.
   *
   * @throws IllegalArgumentException naming the field when the spec is unusable
   */
  PostgresSink build(String name, String namespace, PostgresSinkSpec spec, TlsConfig tls) {
    if (spec == null) {
      throw new IllegalArgumentException("spec.postgres: is required for type postgres");
    }
    String url = url(namespace, spec);
    KollectSinkSpec.BasicAuthSecretRef ref = spec.credentialsSecretRef();
    if (ref == null) {
      throw new IllegalArgumentException("spec.postgres.credentialsSecretRef: is required (a "
          + "Secret with the username and password keys)");
    }
    SinkTranslation.require(ref.name(), "spec.postgres.credentialsSecretRef.name");
    String userKey = ref.usernameKey() == null ? "username" : ref.usernameKey();
    String passwordKey = ref.passwordKey() == null ? "password" : ref.passwordKey();
    Supplier<String> username = () -> secrets.value(namespace, ref.name(), userKey).strip();
    Supplier<String> password = () -> secrets.value(namespace, ref.name(), passwordKey);
    SinkTranslation.check(username, "spec.postgres.credentialsSecretRef");
    SinkTranslation.check(password, "spec.postgres.credentialsSecretRef");
    if (username.get().isEmpty()) {
      throw new IllegalArgumentException("spec.postgres.credentialsSecretRef: Secret " + namespace
          + "/" + ref.name() + " key " + userKey + " is empty");
    }
    PostgresSinkConfig.Builder config = PostgresSinkConfig.builder()
        .url(url)
        .credentials(username, password)
        .writerIdentity(writerIdentity())
        .maintenanceInterval(maintenanceInterval)
        .credentialsCheckInterval(credentialsCheckInterval)
        .connectTimeout(connectTimeout);
    if (spec.schema() != null) {
      config.schema(spec.schema());
    }
    if (spec.history() != null && Boolean.TRUE.equals(spec.history().enabled())) {
      config.history(PostgresSinkConfig.History.keptFor(spec.history().retention() == null
          ? null : retention("spec.postgres.history.retention", spec.history().retention())));
    }
    if (spec.tombstoneRetention() != null) {
      config.tombstoneRetention(SinkTranslation.duration("spec.postgres.tombstoneRetention",
          spec.tombstoneRetention()));
    }
    if (tls != null) {
      if (tls.insecureSkipVerify()) {
        throw new IllegalArgumentException("spec.tls.insecureSkipVerify: type postgres always "
            + "verifies the server (sslmode verify-full); give its CA in spec.tls.caSecretRef");
      }
      config.tls(new PostgresSinkConfig.Tls(tls.caPem(), tls.clientCertPem(),
          tls.clientKeyPem()));
    }
    try {
      return new PostgresSink(name, config.build());
    } catch (IllegalArgumentException e) {
      // PostgresSinkConfig names its fields relative to the postgres block
      throw new IllegalArgumentException("spec.postgres." + e.getMessage());
    }
  }

  private String url(String namespace, PostgresSinkSpec spec) {
    if (spec.url() != null && spec.urlSecretRef() != null) {
      throw new IllegalArgumentException("spec.postgres.url, spec.postgres.urlSecretRef: set one "
          + "of them");
    }
    String url;
    if (spec.urlSecretRef() != null) {
      KollectSinkSpec.SecretKeyRef ref = spec.urlSecretRef();
      SinkTranslation.require(ref.name(), "spec.postgres.urlSecretRef.name");
      SinkTranslation.require(ref.key(), "spec.postgres.urlSecretRef.key");
      Supplier<String> value = () -> secrets.value(namespace, ref.name(), ref.key());
      SinkTranslation.check(value, "spec.postgres.urlSecretRef");
      url = value.get().strip();
      if (!url.startsWith("jdbc:postgresql://")) {
        // never quote a value read from a Secret: it may hold a password
        throw new IllegalArgumentException("spec.postgres.urlSecretRef: Secret " + namespace + "/"
            + ref.name() + " key " + ref.key() + " is not a jdbc:postgresql:// URL");
      }
      return url;
    }
    if (spec.url() == null || spec.url().isBlank()) {
      throw new IllegalArgumentException("spec.postgres.url: is required for type postgres (or "
          + "urlSecretRef)");
    }
    url = spec.url().strip();
    if (!url.startsWith("jdbc:postgresql://")) {
      throw new IllegalArgumentException("spec.postgres.url: must be a jdbc:postgresql://"
          + "host:port/database URL, got " + url);
    }
    if (url.toLowerCase(java.util.Locale.ROOT).matches(".*[?&]password=.*")) {
      throw new IllegalArgumentException("spec.postgres.url: holds a password; put the "
          + "credentials in the Secret of credentialsSecretRef");
    }
    return url;
  }

  /** {@code 30d} or a Go-style duration. */
  static Duration retention(String field, String text) {
    if (text.matches("[0-9]+d")) {
      try {
        return Duration.ofDays(Long.parseLong(text.substring(0, text.length() - 1)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(field + ": '" + text + "' is too large");
      }
    }
    return SinkTranslation.duration(field, text);
  }

  /**
   * The UID of {@code kube-system}, read once: it is the same for every replica and shard of an
   * operator in this cluster and differs between clusters. When it cannot be read (no permission),
   * the API server's address stands in, which replicas of one deployment share as well.
   */
  private String writerIdentity() {
    String identity = writerIdentity;
    if (identity == null && client != null) {
      try {
        Namespace ns = client.namespaces().withName("kube-system").get();
        identity = ns != null && ns.getMetadata().getUid() != null
            ? "kube-system/" + ns.getMetadata().getUid() : "server/" + client.getMasterUrl();
      } catch (KubernetesClientException e) {
        identity = "server/" + client.getMasterUrl();
      }
      writerIdentity = identity;
    }
    return identity;
  }
}

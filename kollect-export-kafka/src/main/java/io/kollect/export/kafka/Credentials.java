package io.kollect.export.kafka;

import io.kollect.export.SecretFingerprint;
import io.kollect.export.SuppliedSecret;
import java.util.function.Supplier;

/**
 * What the {@link KafkaSinkConfig#tls()} and {@link KafkaSinkConfig#sasl()} suppliers returned at
 * one moment. The sink compares {@link #fingerprint()}s to notice a rotation, so the values are
 * never compared, logged or printed ({@link #toString()} is redacted: it holds a private key and a
 * password).
 */
record Credentials(String caPem, String clientCertPem, String clientKeyPem, String username,
    String password, SecretFingerprint fingerprint) {

  static final String CA = "tls.caPem";
  static final String CLIENT_CERT = "tls.clientCertPem";
  static final String CLIENT_KEY = "tls.clientKeyPem";
  static final String USERNAME = "sasl.username";
  static final String PASSWORD = "sasl.password";


  /** Asks every supplier of {@code config} once. */
  static Credentials read(KafkaSinkConfig config) throws SuppliedSecret.UnavailableException {
    KafkaSinkConfig.Tls tls = config.tls();
    KafkaSinkConfig.Sasl sasl = config.sasl();
    String ca = tls == null ? null : ask(tls.caPem(), CA);
    String cert = tls == null ? null : ask(tls.clientCertPem(), CLIENT_CERT);
    String key = tls == null ? null : ask(tls.clientKeyPem(), CLIENT_KEY);
    String username = sasl == null ? null : ask(sasl.username(), USERNAME).strip();
    String password = sasl == null ? null : ask(sasl.password(), PASSWORD);
    return new Credentials(ca, cert, key, username, password,
        SecretFingerprint.of(ca, cert, key, username, password));
  }

  private static String ask(Supplier<String> supplier, String field)
      throws SuppliedSecret.UnavailableException {
    return SuppliedSecret.read(supplier, field, field.equals(PASSWORD));
  }


  /** Whether {@code other} holds the same values. */
  boolean sameAs(Credentials other) {
    return other != null && fingerprint.equals(other.fingerprint);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Credentials c && sameAs(c);
  }

  @Override
  public int hashCode() {
    return fingerprint.hashCode();
  }

  @Override
  public String toString() {
    return "Credentials[redacted]";
  }
}

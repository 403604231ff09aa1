package io.kollect.export.postgres;

import io.kollect.export.SecretFingerprint;
import io.kollect.export.SuppliedSecret;
import java.util.function.Supplier;

/**
 * What the credential and TLS suppliers of a {@link PostgresSinkConfig} returned at one moment.
 * The sink compares {@link #fingerprint()}s to notice a rotation, so values are never compared,
 * logged or printed ({@link #toString()} is redacted: it holds a password and a private key).
 */
record Credentials(String username, String password, String caPem, String clientCertPem,
    String clientKeyPem, SecretFingerprint fingerprint) {


  /** Asks every supplier of {@code config} once. */
  static Credentials read(PostgresSinkConfig config) throws SuppliedSecret.UnavailableException {
    String username = ask(config.username(), "username", false).strip();
    String password = ask(config.password(), "password", true);
    PostgresSinkConfig.Tls tls = config.tls();
    String ca = tls == null ? null : ask(tls.caPem(), "tls.caPem", false);
    String cert = tls == null ? null : ask(tls.clientCertPem(), "tls.clientCertPem", false);
    String key = tls == null ? null : ask(tls.clientKeyPem(), "tls.clientKeyPem", false);
    return new Credentials(username, password, ca, cert, key,
        SecretFingerprint.of(username, password, ca, cert, key));
  }

  private static String ask(Supplier<String> supplier, String field, boolean mayBeBlank)
      throws SuppliedSecret.UnavailableException {
    return SuppliedSecret.read(supplier, field, mayBeBlank);
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

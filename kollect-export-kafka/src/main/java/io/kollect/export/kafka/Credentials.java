package io.kollect.export.kafka;

import io.kollect.export.SecretFingerprint;
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

  /** A part of the credentials that could not be read, named by its field. */
  static final class Unavailable extends Exception {
    Unavailable(String message) {
      super(message, null, false, false);
    }
  }

  /** Asks every supplier of {@code config} once. */
  static Credentials read(KafkaSinkConfig config) throws Unavailable {
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

  private static String ask(Supplier<String> supplier, String field) throws Unavailable {
    if (supplier == null) {
      return null;
    }
    String value;
    try {
      value = supplier.get();
    } catch (RuntimeException e) {
      // the exception's message could quote where the value came from, or the value: keep its type
      throw new Unavailable("cannot read " + field + " (" + e.getClass().getSimpleName() + ")");
    }
    if (value == null || (!field.equals(PASSWORD) && value.isBlank())) {
      throw new Unavailable(field + " is missing (empty)");
    }
    return value;
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

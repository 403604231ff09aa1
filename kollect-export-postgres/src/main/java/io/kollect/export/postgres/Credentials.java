package io.kollect.export.postgres;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * What the credential and TLS suppliers of a {@link PostgresSinkConfig} returned at one moment.
 * The sink compares {@link #fingerprint()}s to notice a rotation, so values are never compared,
 * logged or printed ({@link #toString()} is redacted: it holds a password and a private key).
 */
record Credentials(String username, String password, String caPem, String clientCertPem,
    String clientKeyPem, byte[] fingerprint) {

  /** A part of the credentials that could not be read, named by its field. */
  static final class Unavailable extends Exception {
    Unavailable(String message) {
      super(message, null, false, false);
    }
  }

  /** Asks every supplier of {@code config} once. */
  static Credentials read(PostgresSinkConfig config) throws Unavailable {
    String username = ask(config.username(), "username", false).strip();
    String password = ask(config.password(), "password", true);
    PostgresSinkConfig.Tls tls = config.tls();
    String ca = tls == null ? null : ask(tls.caPem(), "tls.caPem", false);
    String cert = tls == null ? null : ask(tls.clientCertPem(), "tls.clientCertPem", false);
    String key = tls == null ? null : ask(tls.clientKeyPem(), "tls.clientKeyPem", false);
    return new Credentials(username, password, ca, cert, key,
        fingerprint(username, password, ca, cert, key));
  }

  private static String ask(Supplier<String> supplier, String field, boolean mayBeBlank)
      throws Unavailable {
    if (supplier == null) {
      return null;
    }
    String value;
    try {
      value = supplier.get();
    } catch (RuntimeException e) {
      // the exception's message could quote the value or where it came from: keep its type only
      throw new Unavailable("cannot read " + field + " (" + e.getClass().getSimpleName() + ")");
    }
    if (value == null || (!mayBeBlank && value.isBlank())) {
      throw new Unavailable(field + " is missing (empty)");
    }
    return value;
  }

  /** SHA-256 over the length-prefixed values: equal exactly when every value is. */
  private static byte[] fingerprint(String... values) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (String v : values) {
        byte[] bytes = v == null ? new byte[0] : v.getBytes(StandardCharsets.UTF_8);
        digest.update(Integer.toString(v == null ? -1 : bytes.length)
            .getBytes(StandardCharsets.US_ASCII));
        digest.update((byte) ':');
        digest.update(bytes);
      }
      return digest.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is a required JDK algorithm", e);
    }
  }

  /** Whether {@code other} holds the same values. */
  boolean sameAs(Credentials other) {
    return other != null && Arrays.equals(fingerprint, other.fingerprint);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Credentials c && sameAs(c);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(fingerprint);
  }

  @Override
  public String toString() {
    return "Credentials[redacted]";
  }
}

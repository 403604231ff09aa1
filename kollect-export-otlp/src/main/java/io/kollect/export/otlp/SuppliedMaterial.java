package io.kollect.export.otlp;

import io.kollect.export.TlsConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What the TLS and header suppliers of an {@link OtlpSinkConfig} returned at one moment. The sink
 * compares {@link #fingerprint()}s to notice a rotation; values are never logged ({@link
 * #toString()} is redacted: they hold a private key and API keys).
 */
record SuppliedMaterial(String caPem, String clientCertPem, String clientKeyPem,
    Map<String, String> headers, byte[] fingerprint) {

  /** A part that could not be read, named by its field, never by its value. */
  static final class Unavailable extends Exception {
    Unavailable(String message) {
      super(message, null, false, false);
    }
  }

  /** Asks every supplier of {@code config} once. */
  static SuppliedMaterial read(OtlpSinkConfig config) throws Unavailable {
    TlsConfig tls = config.tls();
    String ca = tls == null ? null : ask(tls.caPem(), "tls.caPem");
    String cert = tls == null ? null : ask(tls.clientCertPem(), "tls.clientCertPem");
    String key = tls == null ? null : ask(tls.clientKeyPem(), "tls.clientKeyPem");
    Map<String, String> headers = new LinkedHashMap<>();
    for (Map.Entry<String, Supplier<String>> h : new TreeMap<>(config.headers()).entrySet()) {
      headers.put(h.getKey(), ask(h.getValue(), "headers." + h.getKey()).strip());
    }
    MessageDigest digest = sha256();
    for (String v : new String[] {ca, cert, key}) {
      update(digest, v);
    }
    headers.forEach((k, v) -> {
      update(digest, k);
      update(digest, v);
    });
    return new SuppliedMaterial(ca, cert, key, Map.copyOf(headers), digest.digest());
  }

  private static String ask(Supplier<String> supplier, String field) throws Unavailable {
    if (supplier == null) {
      return null;
    }
    String value;
    try {
      value = supplier.get();
    } catch (RuntimeException e) {
      // the message could quote the value or where it came from: keep the type only
      throw new Unavailable("cannot read " + field + " (" + e.getClass().getSimpleName() + ")");
    }
    if (value == null || value.isBlank()) {
      throw new Unavailable(field + " is missing (empty)");
    }
    return value;
  }

  /** Length-prefixed, so two different value lists never give the same bytes. */
  private static void update(MessageDigest digest, String v) {
    byte[] bytes = v == null ? new byte[0] : v.getBytes(StandardCharsets.UTF_8);
    digest.update(Integer.toString(v == null ? -1 : bytes.length).getBytes(
        StandardCharsets.US_ASCII));
    digest.update((byte) ':');
    digest.update(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is a required JDK algorithm", e);
    }
  }

  /** Whether {@code other} holds the same values. */
  boolean sameAs(SuppliedMaterial other) {
    return other != null && Arrays.equals(fingerprint, other.fingerprint);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SuppliedMaterial m && sameAs(m);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(fingerprint);
  }

  @Override
  public String toString() {
    return "SuppliedMaterial[redacted]";
  }
}

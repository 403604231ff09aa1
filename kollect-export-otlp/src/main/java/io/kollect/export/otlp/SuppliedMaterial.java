package io.kollect.export.otlp;

import io.kollect.export.SecretFingerprint;
import io.kollect.export.SuppliedSecret;
import io.kollect.export.TlsConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What the TLS and header suppliers of an {@link OtlpSinkConfig} returned at one moment. The sink
 * compares {@link #fingerprint()}s to notice a rotation; values are never logged ({@link
 * #toString()} is redacted: they hold a private key and API keys).
 */
record SuppliedMaterial(String caPem, String clientCertPem, String clientKeyPem,
    Map<String, String> headers, SecretFingerprint fingerprint) {


  /** Asks every supplier of {@code config} once. */
  static SuppliedMaterial read(OtlpSinkConfig config) throws SuppliedSecret.UnavailableException {
    TlsConfig tls = config.tls();
    String ca = tls == null ? null : ask(tls.caPem(), "tls.caPem");
    String cert = tls == null ? null : ask(tls.clientCertPem(), "tls.clientCertPem");
    String key = tls == null ? null : ask(tls.clientKeyPem(), "tls.clientKeyPem");
    Map<String, String> headers = new LinkedHashMap<>();
    for (Map.Entry<String, Supplier<String>> h : new TreeMap<>(config.headers()).entrySet()) {
      headers.put(h.getKey(), ask(h.getValue(), "headers." + h.getKey()).strip());
    }
    // the same values in the same order as before: a missing PEM (null) is not an empty one
    List<String> values = new ArrayList<>(Arrays.asList(ca, cert, key));
    headers.forEach((k, v) -> {
      values.add(k);
      values.add(v);
    });
    return new SuppliedMaterial(ca, cert, key, Map.copyOf(headers), SecretFingerprint.of(values));
  }

  private static String ask(Supplier<String> supplier, String field)
      throws SuppliedSecret.UnavailableException {
    return SuppliedSecret.read(supplier, field, false);
  }



  /** Whether {@code other} holds the same values. */
  boolean sameAs(SuppliedMaterial other) {
    return other != null && fingerprint.equals(other.fingerprint);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SuppliedMaterial m && sameAs(m);
  }

  @Override
  public int hashCode() {
    return fingerprint.hashCode();
  }

  @Override
  public String toString() {
    return "SuppliedMaterial[redacted]";
  }
}

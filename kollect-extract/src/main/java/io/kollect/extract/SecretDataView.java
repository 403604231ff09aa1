package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.security.auth.x500.X500Principal;

/**
 * What paths see in place of a core v1 Secret's {@code data} and {@code stringData}: per key, a
 * description of the value that is safe to export, never the value in clear or encoded.
 *
 * <pre>{@code
 * {"tls.crt": {"length": 1164, "digest": "hmac-sha256:5f2c...",
 *              "certificate": {"subject": "CN=shop.example.com", "issuer": "CN=Example CA",
 *                              "sans": ["shop.example.com"], "notBefore": "2026-01-01T00:00:00Z",
 *                              "notAfter": "2027-01-01T00:00:00Z"}}}
 * }</pre>
 *
 * <p>{@code length} is the decoded byte length. {@code digest} is an HMAC-SHA256 of the decoded
 * value keyed by {@link ExtractOptions#secretDigestKey()}, absent without a key: keyed, so that a
 * digest of a short or guessable value (a 4-digit PIN, "admin") cannot be reversed by hashing
 * candidates, yet it changes when the value rotates. {@code certificate} describes the first
 * certificate of a PEM {@code CERTIFICATE} value (JDK {@link CertificateFactory}). Thread-safe.
 */
final class SecretDataView {

  private static final String PEM_BEGIN = "-----BEGIN CERTIFICATE-----";
  private static final String PEM_END = "-----END CERTIFICATE-----";
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final byte[] digestKey;

  SecretDataView(ExtractOptions options) {
    this.digestKey = options.secretDigestKey();
  }

  /** Whether the top-level key of an object of this rule's type holds Secret values. */
  static boolean holdsSecretValues(String topKey) {
    return topKey.equals("data") || topKey.equals("stringData");
  }

  /**
   * The key → metadata map for a {@code data} ({@code base64} values) or {@code stringData}
   * (plain values) map; anything that is not an object describes nothing.
   */
  ObjectNode describe(JsonNode values, boolean base64) {
    ObjectNode out = F.objectNode();
    if (values == null || !values.isObject()) {
      return out;
    }
    Iterator<Map.Entry<String, JsonNode>> it = values.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (v == null || v.isNull()) {
        out.putNull(e.getKey());
        continue;
      }
      out.set(e.getKey(), describe(bytes(v, base64)));
    }
    return out;
  }

  /** The metadata of one plain (not base64) value, e.g. a Helm release in a ConfigMap. */
  ObjectNode describe(JsonNode value) {
    return describe(bytes(value, false));
  }

  private static byte[] bytes(JsonNode v, boolean base64) {
    String text = v.isTextual() ? v.textValue() : v.toString();
    if (base64) {
      try {
        return Base64.getMimeDecoder().decode(text);
      } catch (IllegalArgumentException notBase64) {
        // The API server only stores valid base64; a hand-written manifest may not. Describe the
        // text as given rather than fail the object: the value is still never exported.
      }
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private ObjectNode describe(byte[] value) {
    ObjectNode m = F.objectNode();
    m.put("length", value.length);
    if (digestKey != null) {
      m.put("digest", "hmac-sha256:" + HexFormat.of().formatHex(hmac(value)));
    }
    ObjectNode cert = certificate(value);
    if (cert != null) {
      m.set("certificate", cert);
    }
    return m;
  }

  private byte[] hmac(byte[] value) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(digestKey, "HmacSHA256"));
      return mac.doFinal(value);
    } catch (GeneralSecurityException e) {
      // HmacSHA256 is mandatory in every JDK; a failure here is a broken runtime, not bad input.
      throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
    }
  }

  /** The first PEM certificate's metadata; {@code null} when the value holds none or it is corrupt. */
  static ObjectNode certificate(byte[] value) {
    String text = new String(value, StandardCharsets.ISO_8859_1);
    int begin = text.indexOf(PEM_BEGIN);
    if (begin < 0) {
      return null;
    }
    int end = text.indexOf(PEM_END, begin);
    if (end < 0) {
      return null;
    }
    byte[] pem = text.substring(begin, end + PEM_END.length()).getBytes(StandardCharsets.ISO_8859_1);
    X509Certificate c;
    try {
      c = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
    } catch (CertificateException | ClassCastException e) {
      return null;
    }
    ObjectNode m = F.objectNode();
    m.put("subject", c.getSubjectX500Principal().getName(X500Principal.RFC2253));
    m.put("issuer", c.getIssuerX500Principal().getName(X500Principal.RFC2253));
    ArrayNode sans = m.putArray("sans");
    for (String san : subjectAltNames(c)) {
      sans.add(san);
    }
    m.put("notBefore", c.getNotBefore().toInstant().toString());
    m.put("notAfter", c.getNotAfter().toInstant().toString());
    return m;
  }

  /** DNS names, IP addresses, URIs and e-mail addresses, in certificate order. */
  private static List<String> subjectAltNames(X509Certificate c) {
    Collection<List<?>> all;
    try {
      all = c.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return List.of();
    }
    if (all == null) {
      return List.of();
    }
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    for (List<?> san : all) {
      if (san.size() >= 2 && san.get(1) instanceof String s) {
        out.add(s);
      }
    }
    return out;
  }
}

package io.kollect.export;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * What a sink's credential suppliers (passwords, private keys, API keys) returned at one moment,
 * reduced to a SHA-256: equal exactly when every value is, so a sink notices a rotation by
 * comparing fingerprints and never compares, logs or prints the values. The values are
 * length-prefixed before hashing, so two different lists never give the same bytes, and a missing
 * value ({@code null}) differs from an empty one.
 */
public final class SecretFingerprint {

  private final byte[] digest;

  private SecretFingerprint(byte[] digest) {
    this.digest = digest;
  }

  /** The fingerprint of these values, in this order. */
  public static SecretFingerprint of(String... values) {
    return of(Arrays.asList(values));
  }

  /** The fingerprint of these values, in this order. */
  public static SecretFingerprint of(List<String> values) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is a required JDK algorithm", e);
    }
    for (String v : values) {
      byte[] bytes = v == null ? new byte[0] : v.getBytes(StandardCharsets.UTF_8);
      sha256.update(Integer.toString(v == null ? -1 : bytes.length)
          .getBytes(StandardCharsets.US_ASCII));
      sha256.update((byte) ':');
      sha256.update(bytes);
    }
    return new SecretFingerprint(sha256.digest());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecretFingerprint f && MessageDigest.isEqual(digest, f.digest);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(digest);
  }

  /** Redacted: a fingerprint is compared, never shown. */
  @Override
  public String toString() {
    return "SecretFingerprint[redacted]";
  }
}

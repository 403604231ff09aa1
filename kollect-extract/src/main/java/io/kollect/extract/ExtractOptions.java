package io.kollect.extract;

import java.util.Arrays;

/**
 * Settings that apply to every rule of a compiled profile but do not belong in the profile itself,
 * because they come from the host (a Secret the operator is given, a CLI flag).
 *
 * @param secretDigestKey the HMAC-SHA256 key for the {@code digest} of each Secret value (see
 *     docs/profile-reference.md, "Secrets"); {@code null} or empty: no digest, key names and lengths
 *     only. Use the same key for every replica and shard so digests stay stable across restarts.
 */
public record ExtractOptions(byte[] secretDigestKey) {

  private static final ExtractOptions NONE = new ExtractOptions(null);

  public ExtractOptions {
    // A copy: the caller may clear its array, and the key must not change under a compiled profile.
    secretDigestKey = secretDigestKey == null || secretDigestKey.length == 0 ? null : secretDigestKey.clone();
  }

  /** No digest key: Secret values are described by key names and lengths only. */
  public static ExtractOptions none() {
    return NONE;
  }

  /** A copy of the key, or {@code null} when there is none. */
  @Override
  public byte[] secretDigestKey() {
    return secretDigestKey == null ? null : secretDigestKey.clone();
  }

  boolean hasDigestKey() {
    return secretDigestKey != null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExtractOptions other && Arrays.equals(secretDigestKey, other.secretDigestKey);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(secretDigestKey);
  }

  /** Never prints the key. */
  @Override
  public String toString() {
    return secretDigestKey == null ? "ExtractOptions[no digest key]" : "ExtractOptions[digest key of " + secretDigestKey.length + " bytes]";
  }
}

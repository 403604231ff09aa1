package io.kollect.core;

/**
 * A target's identity: namespace and name (an embedder may use any namespace string).
 *
 * @param namespace namespace
 * @param name name
 */
public record TargetId(String namespace, String name) {
  /** Parses {@code namespace/name}. */
  public static TargetId parse(String s) {
    int slash = s.indexOf('/');
    if (slash <= 0 || slash == s.length() - 1) {
      throw new IllegalArgumentException("target id must be namespace/name: " + s);
    }
    return new TargetId(s.substring(0, slash), s.substring(slash + 1));
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}

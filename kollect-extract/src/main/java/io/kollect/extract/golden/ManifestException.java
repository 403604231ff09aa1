package io.kollect.extract.golden;

/**
 * Input that cannot be read as Kubernetes manifests or golden expectations: a missing or unreadable
 * file, invalid YAML/JSON, a malformed {@code expected.jsonl} line. The message names the file and,
 * where known, line and column; it never quotes the content.
 */
public final class ManifestException extends RuntimeException {
  public ManifestException(String message) {
    super(message);
  }

  public ManifestException(String message, Throwable cause) {
    super(message, cause);
  }
}

package io.kollect.operator;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * Where the key of the HMAC-SHA256 digests of Secret values comes from: a Secret
 * in the operator's namespace ({@code --digest-key-secret NAME}, key {@code key}), a file ({@code
 * --digest-key-file PATH}), or nowhere (records carry Secret key names and value lengths only).
 *
 * <p>Every replica and shard must use the same key, so that digests are stable across restarts
 * and failovers; that is why the key comes from one Secret rather than being generated.
 *
 * @param secretName a Secret in the operator's namespace holding the key under {@link #SECRET_KEY}
 * @param file a file holding the key
 */
public record DigestKeySource(Optional<String> secretName, Optional<Path> file) {

  /** The key of the digest Secret's data that holds the key. */
  public static final String SECRET_KEY = "key";
  /** Shorter keys make digests guessable for short values. */
  static final int MIN_KEY_BYTES = 16;

  public DigestKeySource {
    if (secretName.isPresent() && file.isPresent()) {
      throw new IllegalArgumentException(
          "--digest-key-secret, --digest-key-file: give at most one of them");
    }
  }

  /** No key: no digests. */
  public static DigestKeySource none() {
    return new DigestKeySource(Optional.empty(), Optional.empty());
  }

  /** The key in Secret {@code name} of the operator's namespace, under {@link #SECRET_KEY}. */
  public static DigestKeySource secret(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("--digest-key-secret: a Secret name is required");
    }
    return new DigestKeySource(Optional.of(name), Optional.empty());
  }

  /** The key in a file; the file is checked now, so a missing one fails at start. */
  public static DigestKeySource file(Path path) {
    readFile(path);
    return new DigestKeySource(Optional.empty(), Optional.of(path));
  }

  /**
   * The key bytes of a file: its content without trailing line breaks (as {@code echo} and {@code
   * kubectl create secret --from-file} leave them).
   *
   * @throws IllegalArgumentException naming the flag and the file when it is missing, unreadable,
   *     or shorter than 16 bytes (never quoting the content)
   */
  public static byte[] readFile(Path path) {
    if (path == null || !Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw new IllegalArgumentException("--digest-key-file: " + path
          + " does not exist or is not a readable file");
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (IOException e) {
      throw new IllegalArgumentException("--digest-key-file: cannot read " + path + ": "
          + e.getMessage());
    }
    return checked(stripLineBreaks(bytes), "--digest-key-file: " + path);
  }

  /**
   * Resolves the key: empty for {@link #none()}.
   *
   * @param client reads the Secret
   * @param operatorNamespace where the Secret lives
   * @throws IllegalStateException naming the Secret (never its value) when it or its key is missing
   */
  public Optional<byte[]> resolve(KubernetesClient client, String operatorNamespace) {
    if (file.isPresent()) {
      return Optional.of(readFile(file.get()));
    }
    if (secretName.isEmpty()) {
      return Optional.empty();
    }
    String where = "--digest-key-secret: Secret " + operatorNamespace + "/" + secretName.get();
    Secret secret;
    try {
      secret = client.secrets().inNamespace(operatorNamespace).withName(secretName.get()).get();
    } catch (KubernetesClientException e) {
      throw new IllegalStateException(where + " cannot be read at " + client.getMasterUrl()
          + ": HTTP " + e.getCode() + " " + firstLine(e.getMessage()));
    }
    if (secret == null) {
      throw new IllegalStateException(where + " does not exist");
    }
    if (secret.getData() != null && secret.getData().get(SECRET_KEY) != null) {
      byte[] key = Base64.getDecoder().decode(secret.getData().get(SECRET_KEY));
      return Optional.of(checked(key, where + " key " + SECRET_KEY));
    }
    if (secret.getStringData() != null && secret.getStringData().get(SECRET_KEY) != null) {
      return Optional.of(checked(secret.getStringData().get(SECRET_KEY)
          .getBytes(java.nio.charset.StandardCharsets.UTF_8), where + " key " + SECRET_KEY));
    }
    throw new IllegalStateException(where + " has no key '" + SECRET_KEY + "'");
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static byte[] stripLineBreaks(byte[] bytes) {
    int end = bytes.length;
    while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
      end--;
    }
    return Arrays.copyOf(bytes, end);
  }

  private static byte[] checked(byte[] key, String where) {
    if (key.length < MIN_KEY_BYTES) {
      throw new IllegalArgumentException(where + ": the key must be at least " + MIN_KEY_BYTES
          + " bytes long, got " + key.length);
    }
    return key;
  }
}

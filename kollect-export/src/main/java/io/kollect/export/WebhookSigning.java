package io.kollect.export;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs {@link HttpSink} requests the Standard Webhooks way (https://www.standardwebhooks.com), so
 * a receiver verifies them with any of that specification's libraries.
 *
 * <p>Every request carries {@code webhook-id} (stable for one request body: a retry of the same
 * content repeats it, so a receiver de-duplicates by it), {@code webhook-timestamp} (Unix
 * seconds, taken afresh for every attempt, so a retry after a timeout is inside the receiver's
 * tolerance) and {@code webhook-signature}: {@code v1,} followed by the base64 of
 * HMAC-SHA256(key, id + "." + timestamp + "." + body) over the exact bytes sent, one such
 * signature per key, separated by spaces.
 *
 * <p>Keys are in the specification's form, {@code whsec_} followed by the base64 of the key
 * bytes. The supplier is asked before every request, so a host can read them from a Kubernetes
 * Secret and rotate them without rebuilding the sink: during a rotation it returns the old and the
 * new key, and a receiver that knows either one accepts the request. Key values never appear in a
 * message, a log or {@link #toString()}.
 */
public final class WebhookSigning {

  static final String PREFIX = "whsec_";
  private static final String FIELD = "signingKeys";

  private final Supplier<List<String>> keys;

  private WebhookSigning(Supplier<List<String>> keys) {
    this.keys = keys;
  }

  /**
   * Signs with the keys {@code keys} returns (at least one, each {@code whsec_<base64>}). The
   * supplier is asked once now, so a missing or malformed key is reported when the configuration
   * is built, and again before every request.
   *
   * @throws IllegalArgumentException naming the field {@code signingKeys} and the position of a
   *     bad key (never its value), or saying that the supplier failed
   */
  public static WebhookSigning keys(Supplier<List<String>> keys) {
    Objects.requireNonNull(keys, FIELD);
    WebhookSigning signing = new WebhookSigning(keys);
    signing.read();
    return signing;
  }

  /** Signs with fixed keys (each {@code whsec_<base64>}). */
  public static WebhookSigning keys(String... keys) {
    List<String> fixed = List.of(keys);
    return keys(() -> fixed);
  }

  /**
   * The current keys, decoded.
   *
   * @throws IllegalArgumentException naming the field and the position of a bad key, or the type
   *     of the supplier's exception (its message could quote the Secret)
   */
  List<byte[]> read() {
    List<String> current;
    try {
      current = keys.get();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(FIELD + ": cannot be read (" + e.getClass().getSimpleName()
          + ")");
    }
    if (current == null || current.isEmpty()) {
      throw new IllegalArgumentException(FIELD + ": at least one key is required");
    }
    List<byte[]> decoded = new ArrayList<>(current.size());
    for (int i = 0; i < current.size(); i++) {
      decoded.add(decode(current.get(i), i + 1, current.size()));
    }
    return decoded;
  }

  private static byte[] decode(String key, int position, int count) {
    String where = FIELD + ": key " + position + " of " + count;
    String k = key == null ? "" : key.strip();
    if (!k.startsWith(PREFIX)) {
      throw new IllegalArgumentException(where + " does not start with '" + PREFIX
          + "' (the Standard Webhooks form is whsec_<base64 of the key>)");
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(k.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + " is not base64 after '" + PREFIX + "'");
    }
    if (bytes.length == 0) {
      throw new IllegalArgumentException(where + " is empty after '" + PREFIX + "'");
    }
    return bytes;
  }

  /**
   * The {@code webhook-signature} header value: one {@code v1,<base64>} per key, space-separated.
   */
  static String signatures(List<byte[]> keys, String id, long timestamp, byte[] body) {
    StringBuilder header = new StringBuilder();
    for (byte[] key : keys) {
      if (header.length() > 0) {
        header.append(' ');
      }
      header.append("v1,").append(signature(key, id, timestamp, body));
    }
    return header.toString();
  }

  /** base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)). */
  static String signature(byte[] key, String id, long timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      // every JDK provides HmacSHA256, and it takes a key of any non-zero length
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  @Override
  public String toString() {
    return "WebhookSigning[standard-webhooks v1, keys=***]";
  }
}

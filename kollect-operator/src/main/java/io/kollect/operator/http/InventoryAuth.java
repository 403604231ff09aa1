package io.kollect.operator.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.function.Supplier;

/**
 * Who may read {@code /inventory}: holders of a static bearer token, or anyone when turned off
 * explicitly.
 */
public sealed interface InventoryAuth {

  /** No authentication: only for loopback use or behind a proxy that authenticates. */
  static InventoryAuth none() {
    return new None();
  }

  /**
   * {@code /inventory} is not served: the default when neither a token file nor {@code
   * --inventory-auth=none} is given, so records are never served without a decision to.
   */
  static InventoryAuth disabled() {
    return new Disabled();
  }

  /** A token re-read from a file on each request, so a rotated mounted Secret takes effect. */
  static InventoryAuth tokenFile(Path file) {
    return new Token(() -> {
      try {
        return Files.readString(file, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read inventory token file " + file, e);
      }
    });
  }

  /** A fixed token. */
  static InventoryAuth token(String token) {
    return new Token(() -> token);
  }

  /** The outcome of checking one request. */
  enum Verdict {
    ALLOWED,
    /** No or malformed credentials: 401. */
    UNAUTHENTICATED,
    /** A token that is not the right one: 403. */
    FORBIDDEN,
    /** The endpoint is turned off: 404. */
    DISABLED
  }

  /** Checks an {@code Authorization} header value ({@code null} when absent). */
  Verdict check(String authorizationHeader);

  /** Endpoint off. */
  record Disabled() implements InventoryAuth {
    @Override
    public Verdict check(String authorizationHeader) {
      return Verdict.DISABLED;
    }
  }

  /** Authentication turned off. */
  record None() implements InventoryAuth {
    @Override
    public Verdict check(String authorizationHeader) {
      return Verdict.ALLOWED;
    }
  }

  /**
   * A bearer token, compared in constant time.
   *
   * @param expected supplies the valid token
   */
  record Token(Supplier<String> expected) implements InventoryAuth {
    @Override
    public Verdict check(String header) {
      if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
        return Verdict.UNAUTHENTICATED;
      }
      String presented = header.substring(7).strip();
      if (presented.isEmpty() || presented.contains(" ")) {
        return Verdict.UNAUTHENTICATED;
      }
      String want = expected.get();
      if (want.isEmpty()) {
        // An empty token file must not turn authentication into "any empty token".
        return Verdict.FORBIDDEN;
      }
      return MessageDigest.isEqual(
              presented.getBytes(StandardCharsets.UTF_8), want.getBytes(StandardCharsets.UTF_8))
          ? Verdict.ALLOWED
          : Verdict.FORBIDDEN;
    }

    @Override
    public String toString() {
      return "Token[****]";
    }
  }
}

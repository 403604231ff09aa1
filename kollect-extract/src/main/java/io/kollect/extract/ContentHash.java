package io.kollect.extract;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A content hash as it is held in memory: the 32 bytes of a SHA-256 in four {@code long}s (48 bytes
 * in all) instead of its 64-character hex text (a {@code String} of 104 bytes). Every held record
 * and export entry carries one, so this is a per-object saving; the text is rebuilt only where a
 * hash leaves the process (the record format, a checkpoint), and is the same text byte for byte.
 *
 * <p>Text that is not a lower-case hex SHA-256 (tests and hand-written checkpoints use short
 * labels) is kept as it is, so {@link #toString()} always gives back exactly the text it was made
 * from, and two hashes are equal exactly when their texts are.
 */
public final class ContentHash {

  private static final int SHA256_HEX_LENGTH = 64;
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final ThreadLocal<char[]> HEX_BUFFER =
      ThreadLocal.withInitial(() -> new char[SHA256_HEX_LENGTH]);

  private final long w0;
  private final long w1;
  private final long w2;
  private final long w3;
  /** The text when it is not a lower-case hex SHA-256, else {@code null}. */
  private final String text;

  private ContentHash(long w0, long w1, long w2, long w3, String text) {
    this.w0 = w0;
    this.w1 = w1;
    this.w2 = w2;
    this.w3 = w3;
    this.text = text;
  }

  /** The hash of {@code text} ({@code null} for {@code null}). */
  public static ContentHash of(String text) {
    if (text == null) {
      return null;
    }
    if (!isLowerHexSha256(text)) {
      return new ContentHash(0, 0, 0, 0, text);
    }
    return new ContentHash(word(text, 0), word(text, 1), word(text, 2), word(text, 3), null);
  }

  /** The hash whose bytes are the 32-byte SHA-256 {@code digest}. */
  static ContentHash ofSha256(byte[] digest) {
    if (digest.length != SHA256_HEX_LENGTH / 2) {
      throw new IllegalArgumentException("a SHA-256 digest has 32 bytes, not " + digest.length);
    }
    return new ContentHash(word(digest, 0), word(digest, 1), word(digest, 2), word(digest, 3), null);
  }

  private static boolean isLowerHexSha256(String s) {
    if (s.length() != SHA256_HEX_LENGTH) {
      return false;
    }
    for (int i = 0; i < SHA256_HEX_LENGTH; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static long word(String hex, int i) {
    return HexFormat.fromHexDigitsToLong(hex, i * 16, i * 16 + 16);
  }

  private static long word(byte[] b, int i) {
    long w = 0;
    for (int j = i * 8; j < i * 8 + 8; j++) {
      w = (w << 8) | (b[j] & 0xFF);
    }
    return w;
  }

  /** The text this hash was made from (a SHA-256 as 64 lower-case hex digits). */
  @Override
  public String toString() {
    return text != null ? text : new String(hexDigits());
  }

  /**
   * Writes {@link #toString()} as a JSON string without making the {@code String}: every record a
   * sink writes and every checkpoint entry carries its hash as text.
   */
  public void writeTo(JsonGenerator gen) throws IOException {
    if (text != null) {
      gen.writeString(text);
    } else {
      // the generator copies the characters before it returns, so one buffer per thread serves
      gen.writeString(hexDigits(HEX_BUFFER.get()), 0, SHA256_HEX_LENGTH);
    }
  }

  private char[] hexDigits() {
    return hexDigits(new char[SHA256_HEX_LENGTH]);
  }

  private char[] hexDigits(char[] out) {
    hexDigits(w0, out, 0);
    hexDigits(w1, out, 16);
    hexDigits(w2, out, 32);
    hexDigits(w3, out, 48);
    return out;
  }

  private static void hexDigits(long word, char[] out, int at) {
    for (int i = 15; i >= 0; i--) {
      // a table, not Character.forDigit (which checks its radix and branches per digit): every
      // record and checkpoint entry writes 64 of them
      out[at + i] = HEX[(int) (word & 0xF)];
      word >>>= 4;
    }
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof ContentHash h && w0 == h.w0 && w1 == h.w1 && w2 == h.w2
        && w3 == h.w3 && Objects.equals(text, h.text));
  }

  @Override
  public int hashCode() {
    return text != null ? text.hashCode() : Long.hashCode(w0 ^ w1 ^ w2 ^ w3);
  }
}

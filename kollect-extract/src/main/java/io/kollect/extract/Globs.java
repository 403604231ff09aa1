package io.kollect.extract;

import java.util.regex.Pattern;

/** Shell-style globs on key names: {@code *} any run of characters, {@code ?} one character. */
final class Globs {
  private Globs() {}

  /** Case-insensitive: key names differ in case across charts and tools. */
  static Pattern compile(String glob) {
    StringBuilder re = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (char c : glob.toCharArray()) {
      if (c == '*' || c == '?') {
        if (!literal.isEmpty()) {
          re.append(Pattern.quote(literal.toString()));
          literal.setLength(0);
        }
        re.append(c == '*' ? ".*" : ".");
      } else {
        literal.append(c);
      }
    }
    if (!literal.isEmpty()) {
      re.append(Pattern.quote(literal.toString()));
    }
    return Pattern.compile(re.toString(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  }

  /** Case-sensitive variant for label and annotation keys, which Kubernetes treats exactly. */
  static Pattern compileExact(String glob) {
    return Pattern.compile(compile(glob).pattern(), Pattern.DOTALL);
  }
}

package io.kollect.extract;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Translates the kubectl JSONPath dialect into Jayway json-path syntax, which then does the
 * evaluation.
 *
 * <p>Why a translation layer and not a second evaluator: Jayway is well kept and fast once a path
 * is compiled, but its surface syntax differs from kubectl's in exactly the places Kubernetes users
 * rely on: the optional {@code {}} wrapper, {@code \.} escapes in dotted keys such as {@code
 * .metadata.labels.app\.kubernetes\.io/name}, and {@code /} inside names. Every name is emitted in
 * bracket notation, so Jayway never has to guess where a key ends.
 *
 * <p>Deliberate extension: an unescaped {@code ['app.kubernetes.io/name']} addresses the key with
 * dots (kubectl splits it on the dots and silently prints nothing).
 */
final class KubectlPath {

  private static final Pattern INDEX = Pattern.compile("-?\\d+");
  private static final Pattern UNION = Pattern.compile("-?\\d+(\\s*,\\s*-?\\d+)+");
  private static final Pattern SLICE = Pattern.compile("(-?\\d*):(-?\\d*)(?::(-?\\d*))?");

  /**
   * A translated path.
   *
   * @param jayway the equivalent Jayway path
   * @param staticPrefix the object keys the path starts with, up to its first wildcard, index,
   *     filter or recursive segment
   * @param readsRoot the path contains a filter that reads from the document root ({@code $}), so
   *     it may look anywhere in the object
   */
  record Translated(String jayway, List<String> staticPrefix, boolean readsRoot) {}

  private final String src;
  private int pos;
  private final int end;
  private final StringBuilder out = new StringBuilder("$");
  private final List<String> prefix = new ArrayList<>();
  private boolean prefixOpen = true;
  private boolean readsRoot;

  private KubectlPath(String src, int start, int end) {
    this.src = src;
    this.pos = start;
    this.end = end;
  }

  static Translated translate(String path) throws PathSyntaxException {
    if (path == null || path.isBlank()) {
      throw new PathSyntaxException("empty path", 1);
    }
    int start = 0;
    int end = path.length();
    while (start < end && Character.isWhitespace(path.charAt(start))) {
      start++;
    }
    while (end > start && Character.isWhitespace(path.charAt(end - 1))) {
      end--;
    }
    if (path.charAt(start) == '{') {
      int close = matchingBrace(path, start, end);
      if (close == -2) {
        throw new PathSyntaxException("nested '{' is not supported", start + 1);
      }
      if (close < 0) {
        throw new PathSyntaxException("'{' is never closed", start + 1);
      }
      if (close != end - 1) {
        throw new PathSyntaxException(
            "only one {...} expression is supported, found more text", close + 2);
      }
      start++;
      end--;
      while (start < end && Character.isWhitespace(path.charAt(start))) {
        start++;
      }
      while (end > start && Character.isWhitespace(path.charAt(end - 1))) {
        end--;
      }
    } else if (path.charAt(end - 1) == '}') {
      throw new PathSyntaxException("unexpected '}'", end);
    }
    String inner = path.substring(start, end);
    if (inner.startsWith("range ") || inner.equals("end") || inner.startsWith("range\t")) {
      throw new PathSyntaxException(
          "{range}/{end} templates are not supported; use [*] to address every element",
          start + 1);
    }
    KubectlPath p = new KubectlPath(path, start, end);
    p.parse();
    return new Translated(p.out.toString(), List.copyOf(p.prefix), p.readsRoot);
  }

  private static int matchingBrace(String s, int open, int end) throws PathSyntaxException {
    char quote = 0;
    int quoteAt = -1;
    for (int i = open + 1; i < end; i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        quoteAt = i;
      } else if (c == '{') {
        return -2;
      } else if (c == '}') {
        return i;
      }
    }
    if (quote != 0) {
      throw new PathSyntaxException("unterminated string", quoteAt + 1);
    }
    return -1;
  }

  private void parse() throws PathSyntaxException {
    if (pos < end && src.charAt(pos) == '$') {
      pos++;
    }
    if (pos < end && isNameStart(src.charAt(pos))) {
      // Lenient: "metadata.name" reads as ".metadata.name".
      appendName(readName());
    }
    if (pos == end - 1 && src.charAt(pos) == '.') {
      pos++; // "{.}" is the whole object
    }
    while (pos < end) {
      char c = src.charAt(pos);
      if (c == '.') {
        if (pos + 1 < end && src.charAt(pos + 1) == '.') {
          int at = pos;
          pos += 2;
          closePrefix();
          out.append("..");
          if (pos >= end) {
            throw new PathSyntaxException("expected a field name after '..'", at + 1);
          }
          char n = src.charAt(pos);
          if (n == '*') {
            pos++;
            out.append('*');
          } else if (n == '[') {
            // "..[...]": Jayway wants "..[...]" as well; the bracket appends itself
            out.setLength(out.length() - 2);
            out.append("..");
            bracket(true);
          } else if (isNameStart(n)) {
            out.setLength(out.length() - 2);
            out.append("..").append(quoteKey(readName()));
          } else {
            throw new PathSyntaxException("unexpected '" + n + "'", pos + 1);
          }
        } else {
          pos++;
          if (pos >= end) {
            throw new PathSyntaxException("expected a field name after '.'", pos);
          }
          char n = src.charAt(pos);
          if (n == '*') {
            pos++;
            closePrefix();
            out.append("[*]");
          } else if (n == '[') {
            bracket(false); // ".[0]" is accepted by kubectl too
          } else if (isNameStart(n)) {
            appendName(readName());
          } else {
            throw new PathSyntaxException("unexpected '" + n + "'", pos + 1);
          }
        }
      } else if (c == '[') {
        bracket(false);
      } else {
        throw new PathSyntaxException("unexpected '" + c + "'", pos + 1);
      }
    }
  }

  private static boolean isNameStart(char c) {
    return c != '.' && c != '[' && c != ']' && c != '(' && c != ')' && c != '{' && c != '}'
        && c != '*' && c != '\'' && c != '"' && c != '?' && c != '@' && c != '$' && c != ','
        && !Character.isWhitespace(c);
  }

  private static boolean isNameChar(char c) {
    return c != '.' && c != '[' && c != ']' && c != '(' && c != ')' && c != '{' && c != '}'
        && c != '\'' && c != '"' && c != ',' && !Character.isWhitespace(c) && c != '='
        && c != '!' && c != '<' && c != '>' && c != '&' && c != '|';
  }

  /** A dotted name up to the next unescaped '.' or '['; "\." is a literal dot. */
  private String readName() throws PathSyntaxException {
    StringBuilder name = new StringBuilder();
    while (pos < end) {
      char c = src.charAt(pos);
      if (c == '\\') {
        if (pos + 1 < end && src.charAt(pos + 1) == '.') {
          name.append('.');
          pos += 2;
          continue;
        }
        throw new PathSyntaxException("only '.' can be escaped with '\\'", pos + 1);
      }
      if (!isNameChar(c)) {
        break;
      }
      name.append(c);
      pos++;
    }
    return name.toString();
  }

  private void appendName(String name) {
    out.append(quoteKey(name));
    if (prefixOpen) {
      prefix.add(name);
    }
  }

  private void closePrefix() {
    prefixOpen = false;
  }

  static String quoteKey(String key) {
    return "['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']";
  }

  private void bracket(boolean recursive) throws PathSyntaxException {
    int open = pos;
    int close = closingBracket(open);
    String content = src.substring(open + 1, close).trim();
    int contentCol = open + 2;
    pos = close + 1;
    if (content.isEmpty()) {
      throw new PathSyntaxException("empty '[]'", open + 1);
    }
    char first = content.charAt(0);
    if (first == '*') {
      if (content.length() != 1) {
        throw new PathSyntaxException("unexpected text after '*'", contentCol + 1);
      }
      closePrefix();
      out.append("[*]");
    } else if (first == '?') {
      closePrefix();
      out.append("[?").append(filter(open + 1, close)).append(']');
    } else if (first == '\'' || first == '"') {
      List<String> keys = quotedKeys(open + 1, close);
      if (keys.size() > 1) {
        throw new PathSyntaxException(
            "several keys in one [...] are not supported; use one field per key", open + 1);
      }
      if (recursive) {
        out.append(quoteKey(keys.get(0)));
      } else {
        appendName(keys.get(0));
      }
    } else if (INDEX.matcher(content).matches() || UNION.matcher(content).matches()) {
      closePrefix();
      out.append('[').append(content.replace(" ", "")).append(']');
    } else {
      var slice = SLICE.matcher(content);
      if (!slice.matches()) {
        throw new PathSyntaxException("invalid index '" + abbreviate(content) + "'", contentCol);
      }
      String step = slice.group(3);
      if (step != null && !step.isEmpty() && !step.equals("1")) {
        throw new PathSyntaxException("slice steps other than 1 are not supported", contentCol);
      }
      closePrefix();
      out.append('[').append(slice.group(1)).append(':').append(slice.group(2)).append(']');
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 12 ? s : s.substring(0, 12) + "...";
  }

  /** Index of the ']' closing the '[' at {@code open}, honouring quotes and parentheses. */
  private int closingBracket(int open) throws PathSyntaxException {
    char quote = 0;
    int quoteAt = -1;
    java.util.ArrayDeque<Integer> opens = new java.util.ArrayDeque<>();
    for (int i = open + 1; i < end; i++) {
      char c = src.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        quoteAt = i;
      } else if (c == '(' || c == '[') {
        opens.push(i);
      } else if (c == ')') {
        if (opens.isEmpty() || src.charAt(opens.peek()) != '(') {
          throw new PathSyntaxException("unexpected ')'", i + 1);
        }
        opens.pop();
      } else if (c == ']') {
        if (opens.isEmpty()) {
          return i;
        }
        if (src.charAt(opens.peek()) != '[') {
          throw new PathSyntaxException("'(' is never closed", opens.peek() + 1);
        }
        opens.pop();
      }
    }
    if (quote != 0) {
      throw new PathSyntaxException("unterminated string", quoteAt + 1);
    }
    if (!opens.isEmpty()) {
      int at = opens.peek();
      throw new PathSyntaxException("'" + src.charAt(at) + "' is never closed", at + 1);
    }
    throw new PathSyntaxException("'[' is never closed", open + 1);
  }

  private List<String> quotedKeys(int from, int to) throws PathSyntaxException {
    List<String> keys = new ArrayList<>();
    int i = from;
    while (i < to) {
      char c = src.charAt(i);
      if (Character.isWhitespace(c) || (c == ',' && !keys.isEmpty())) {
        i++;
        continue;
      }
      if (c != '\'' && c != '"') {
        throw new PathSyntaxException("unexpected '" + c + "'", i + 1);
      }
      StringBuilder key = new StringBuilder();
      int j = i + 1;
      boolean closed = false;
      while (j < to) {
        char d = src.charAt(j);
        if (d == '\\' && j + 1 < to) {
          key.append(src.charAt(j + 1));
          j += 2;
          continue;
        }
        if (d == c) {
          closed = true;
          break;
        }
        key.append(d);
        j++;
      }
      if (!closed) {
        throw new PathSyntaxException("unterminated string", i + 1);
      }
      keys.add(key.toString());
      i = j + 1;
    }
    return keys;
  }

  /**
   * Translates a filter "?(...)" between from (the '?') and to (the closing ']'): field references
   * after '@' or '$' are rewritten in bracket notation, everything else (operators, literals) is
   * Jayway's filter language, which is a superset of kubectl's.
   */
  private String filter(int from, int to) throws PathSyntaxException {
    int i = from + 1;
    while (i < to && Character.isWhitespace(src.charAt(i))) {
      i++;
    }
    if (i >= to || src.charAt(i) != '(') {
      throw new PathSyntaxException("expected '(' after '?'", i + 1);
    }
    int last = to - 1;
    while (last > i && Character.isWhitespace(src.charAt(last))) {
      last--;
    }
    if (src.charAt(last) != ')') {
      throw new PathSyntaxException("expected ')' to close the filter", last + 1);
    }
    if (last == i + 1) {
      throw new PathSyntaxException("empty filter", i + 1);
    }
    StringBuilder expr = new StringBuilder("(");
    int j = i + 1;
    boolean sawRef = false;
    while (j < last) {
      char c = src.charAt(j);
      if (c == '\'' || c == '"') {
        int k = j + 1;
        while (k < last && src.charAt(k) != c) {
          if (src.charAt(k) == '\\') {
            k++;
          }
          k++;
        }
        if (k >= last) {
          throw new PathSyntaxException("unterminated string", j + 1);
        }
        expr.append(src, j, k + 1);
        j = k + 1;
      } else if (c == '@' || c == '$') {
        if (c == '$') {
          readsRoot = true;
        }
        sawRef = true;
        KubectlPath ref = new KubectlPath(src, j + 1, refEnd(j + 1, last));
        ref.parseReference();
        String jay = ref.out.toString();
        expr.append(c).append(jay, 1, jay.length());
        j = ref.end;
      } else {
        expr.append(c);
        j++;
      }
    }
    if (!sawRef) {
      throw new PathSyntaxException("a filter must refer to '@'", i + 2);
    }
    return expr.append(')').toString();
  }

  /** Where a field reference inside a filter ends: at an operator, space or parenthesis. */
  private int refEnd(int from, int limit) {
    int depth = 0;
    char quote = 0;
    int k = from;
    while (k < limit) {
      char c = src.charAt(k);
      if (quote != 0) {
        if (c == '\\') {
          k++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '[') {
        depth++;
      } else if (c == ']') {
        depth--;
      } else if (depth > 0 && (c == '\'' || c == '"')) {
        quote = c;
      } else if (depth == 0 && c == '\\' && k + 1 < limit) {
        k++;
      } else if (depth == 0 && c != '.' && !isNameChar(c) && c != '*') {
        break;
      }
      k++;
    }
    return k;
  }

  private void parseReference() throws PathSyntaxException {
    while (pos < end) {
      char c = src.charAt(pos);
      if (c == '.') {
        pos++;
        if (pos >= end) {
          throw new PathSyntaxException("expected a field name after '.'", pos);
        }
        if (src.charAt(pos) == '*') {
          pos++;
          out.append("[*]");
        } else {
          String name = readName();
          if (name.isEmpty()) {
            throw new PathSyntaxException("expected a field name after '.'", pos);
          }
          out.append(quoteKey(name));
        }
      } else if (c == '[') {
        bracket(false);
      } else {
        throw new PathSyntaxException("unexpected '" + c + "'", pos + 1);
      }
    }
  }
}

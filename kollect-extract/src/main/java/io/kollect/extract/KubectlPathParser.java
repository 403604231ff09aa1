package io.kollect.extract;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the kubectl JSONPath dialect into {@link PathStep}s, following client-go's {@code
 * util/jsonpath} parser rule for rule (which characters end a name, {@code ..} followed by a name,
 * quoted keys in brackets as paths in unions, filter operators), so that {@link PathEvaluator} can
 * give kubectl's results. Errors carry a 1-based column in the whole path string.
 *
 * <p>Kollect's differences, all documented in docs/profile-reference.md: one {@code {...}} block
 * per path (the text-output constructs {@code range}/{@code end}, several blocks and text outside
 * braces are refused by name); a path without braces is a path ({@code metadata.name} reads as
 * {@code .metadata.name}), not text; a single quoted key in brackets, {@code ['a.b/c']} or {@code
 * ["a.b/c"]}, is that key, dots included (kubectl splits it on the dots); {@code ..*} and {@code
 * [*]} on objects are accepted; {@code \} escapes only {@code .} and quotes.
 */
final class KubectlPathParser {

  private static final Set<String> OPERATORS = Set.of("<", ">", "==", "!=", "<=", ">=");
  private static final Pattern SLICE = Pattern.compile("(-?\\d*)(:-?\\d*)?(:-?\\d*)?");
  private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

  private final String src;
  private int pos;
  private final int end;
  private boolean readsRoot;
  private boolean braceless;

  private KubectlPathParser(String src, int start, int end) {
    this.src = src;
    this.pos = start;
    this.end = end;
  }

  /** The steps of a whole path, with or without {@code {}}. */
  static KubectlPath parse(String path) throws PathSyntaxException {
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
    boolean braced = path.charAt(start) == '{';
    if (braced) {
      int close = matchingBrace(path, start, end);
      if (close < 0) {
        throw new PathSyntaxException("'{' is never closed", start + 1);
      }
      String inner = path.substring(start + 1, close).strip();
      if (inner.startsWith("range ") || inner.equals("range") || inner.equals("end")) {
        throw new PathSyntaxException("{range}/{end} templates are not supported (text output); "
            + "use [*] to address every element", start + 2);
      }
      if (close != end - 1) {
        int next = close + 1;
        while (next < end && Character.isWhitespace(path.charAt(next))) {
          next++;
        }
        throw new PathSyntaxException(path.charAt(next) == '{'
            ? "only one {...} expression is supported, found another block"
            : "only one {...} expression is supported, found more text", next + 1);
      }
      start++;
      end--;
    } else {
      int brace = path.indexOf('{', start);
      if (brace >= 0 && brace < end) {
        throw new PathSyntaxException(
            "text outside {...} is not supported (text output); write the path alone", 1 + start);
      }
      if (path.charAt(end - 1) == '}') {
        throw new PathSyntaxException("unexpected '}'", end);
      }
    }
    KubectlPathParser p = new KubectlPathParser(path, start, end);
    p.braceless = !braced;
    List<PathStep> steps = p.steps(!braced);
    return new KubectlPath(path, steps, p.readsRoot);
  }

  /** The '}' closing the '{' at open, honouring quotes; -1 when there is none. */
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
        throw new PathSyntaxException("nested '{' is not supported", i + 1);
      } else if (c == '}') {
        return i;
      }
    }
    if (quote != 0) {
      throw new PathSyntaxException("unterminated string", quoteAt + 1);
    }
    return -1;
  }

  /** client-go's isTerminator: what ends a name after '.'. */
  private static boolean endsName(char c) {
    return Character.isWhitespace(c) || c == '.' || c == ',' || c == '[' || c == ']' || c == '$'
        || c == '@' || c == '{' || c == '}';
  }

  private static boolean isAlphaNumeric(char c) {
    return c == '_' || Character.isLetterOrDigit(c);
  }

  private List<PathStep> steps(boolean lenientLeadingName) throws PathSyntaxException {
    List<PathStep> steps = new ArrayList<>();
    if (lenientLeadingName && pos < end && src.charAt(pos) != '$' && src.charAt(pos) != '@'
        && !endsName(src.charAt(pos)) && src.charAt(pos) != '\'' && src.charAt(pos) != '"') {
      // Without braces a leading name is a field: "metadata.name" reads as ".metadata.name".
      steps.add(field(readName()));
    }
    while (pos < end) {
      char c = src.charAt(pos);
      if (src.startsWith("..", pos)) {
        if (!steps.isEmpty() && steps.get(steps.size() - 1) instanceof PathStep.Recursive) {
          throw new PathSyntaxException("invalid multiple recursive descent", pos + 1);
        }
        pos += 2;
        steps.add(new PathStep.Recursive());
        if (pos < end && src.charAt(pos) == '*') {
          pos++;
          steps.add(new PathStep.Wildcard()); // "..*": every value below, a Kollect extension
        } else if (pos < end && isAlphaNumeric(src.charAt(pos))) {
          steps.add(field(readName()));
        }
      } else if (c == '.') {
        pos++;
        if (pos < end && src.charAt(pos) == '*' && (pos + 1 == end || endsName(src.charAt(pos + 1)))) {
          pos++;
          steps.add(new PathStep.Wildcard());
        } else {
          String name = readName();
          if (!name.isEmpty()) {
            steps.add(field(name));
          }
        }
      } else if (c == '[') {
        steps.add(bracket());
      } else if (Character.isWhitespace(c) && braceless) {
        throw new PathSyntaxException(
            "text outside {...} is not supported (text output); write the path alone", pos + 1);
      } else if (Character.isWhitespace(c) || c == '@' || c == '$') {
        pos++; // the current object (client-go: "just pass it")
      } else if (c == '"' || c == '\'') {
        steps.add(new PathStep.Literal(JsonNodeFactory.instance.textNode(quoted())));
      } else if (c == '+' || c == '-' || Character.isDigit(c)) {
        steps.add(number());
      } else if (isAlphaNumeric(c)) {
        steps.add(identifier());
      } else {
        throw new PathSyntaxException("unexpected '" + c + "'", pos + 1);
      }
    }
    return steps;
  }

  private static PathStep field(String name) {
    return name.equals("*") ? new PathStep.Wildcard() : new PathStep.Field(name);
  }

  /** A name up to the next terminator; "\." is a literal dot. */
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
      if (endsName(c)) {
        break;
      }
      name.append(c);
      pos++;
    }
    return name.toString();
  }

  private PathStep identifier() throws PathSyntaxException {
    int start = pos;
    while (pos < end && isAlphaNumeric(src.charAt(pos))) {
      pos++;
    }
    String word = src.substring(start, pos);
    switch (word) {
      case "true":
      case "false":
        return new PathStep.Literal(JsonNodeFactory.instance.booleanNode(word.equals("true")));
      case "range":
      case "end":
        throw new PathSyntaxException("{range}/{end} templates are not supported (text output); "
            + "use [*] to address every element", start + 1);
      default:
        throw new PathSyntaxException("unrecognized identifier " + word, start + 1);
    }
  }

  private PathStep number() throws PathSyntaxException {
    Matcher m = NUMBER.matcher(src).region(pos, end);
    if (!m.lookingAt()) {
      throw new PathSyntaxException("unexpected '" + src.charAt(pos) + "'", pos + 1);
    }
    String text = m.group();
    pos = m.end();
    BigDecimal d = new BigDecimal(text.startsWith("+") ? text.substring(1) : text);
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0) {
      return new PathStep.Literal(f.numberNode(d.longValueExact()));
    }
    return new PathStep.Literal(f.numberNode(d.doubleValue()));
  }

  /** A quoted string at pos; backslash escapes the next character. */
  private String quoted() throws PathSyntaxException {
    char q = src.charAt(pos);
    int open = pos;
    StringBuilder out = new StringBuilder();
    pos++;
    while (pos < end) {
      char c = src.charAt(pos);
      if (c == '\\' && pos + 1 < end) {
        out.append(src.charAt(pos + 1));
        pos += 2;
        continue;
      }
      if (c == q) {
        pos++;
        return out.toString();
      }
      out.append(c);
      pos++;
    }
    throw new PathSyntaxException("unterminated string", open + 1);
  }

  private PathStep bracket() throws PathSyntaxException {
    int open = pos;
    int close = closingBracket(open);
    int contentStart = open + 1;
    while (contentStart < close && Character.isWhitespace(src.charAt(contentStart))) {
      contentStart++;
    }
    pos = close + 1;
    if (contentStart == close) {
      throw new PathSyntaxException("empty '[]'", open + 1);
    }
    if (src.charAt(contentStart) == '?') {
      return filter(contentStart, close);
    }
    List<int[]> members = splitTopLevel(contentStart, close);
    if (members.size() > 1) {
      List<List<PathStep>> union = new ArrayList<>();
      for (int[] m : members) {
        union.add(unionMember(m[0], m[1]));
      }
      return new PathStep.Union(union);
    }
    char first = src.charAt(contentStart);
    if (first == '\'' || first == '"') {
      KubectlPathParser key = new KubectlPathParser(src, contentStart, close);
      String name = key.quoted();
      key.skipSpace();
      if (key.pos != close) {
        throw new PathSyntaxException("unexpected '" + src.charAt(key.pos) + "'", key.pos + 1);
      }
      return new PathStep.Field(name); // the key itself, dots included (Kollect's reading)
    }
    return slice(contentStart, close);
  }

  private void skipSpace() {
    while (pos < end && Character.isWhitespace(src.charAt(pos))) {
      pos++;
    }
  }

  /** A union member as client-go reads it: a quoted member is a path ('a.b' is .a.b). */
  private List<PathStep> unionMember(int from, int to) throws PathSyntaxException {
    while (from < to && Character.isWhitespace(src.charAt(from))) {
      from++;
    }
    while (to > from && Character.isWhitespace(src.charAt(to - 1))) {
      to--;
    }
    if (from == to) {
      throw new PathSyntaxException("empty member in '[...]'", from + 1);
    }
    char first = src.charAt(from);
    if (first == '\'' || first == '"') {
      KubectlPathParser key = new KubectlPathParser(src, from, to);
      String text = key.quoted();
      if (key.pos != to) {
        throw new PathSyntaxException("unexpected '" + src.charAt(key.pos) + "'", key.pos + 1);
      }
      List<PathStep> steps = new ArrayList<>();
      for (String part : text.split("(?<!\\\\)\\.", -1)) {
        steps.add(new PathStep.Field(part.replace("\\", "")));
      }
      return steps;
    }
    if (src.substring(from, to).equals("*")) {
      return List.of(new PathStep.Wildcard());
    }
    return List.of(slice(from, to));
  }

  private PathStep slice(int from, int to) throws PathSyntaxException {
    String text = src.substring(from, to).replaceAll("\\s+", "");
    if (text.equals("*")) {
      return new PathStep.Wildcard();
    }
    Matcher m = SLICE.matcher(text);
    if (!m.matches()) {
      throw new PathSyntaxException("invalid index '" + abbreviate(text) + "'", from + 1);
    }
    try {
      Integer start = m.group(1).isEmpty() ? null : Integer.valueOf(m.group(1));
      if (m.group(2) == null) {
        if (start == null) {
          throw new PathSyntaxException("invalid index '" + abbreviate(text) + "'", from + 1);
        }
        return new PathStep.Slice(start, null, null, true);
      }
      Integer stop = m.group(2).length() == 1 ? null : Integer.valueOf(m.group(2).substring(1));
      Integer step = m.group(3) == null || m.group(3).length() == 1 ? null : Integer.valueOf(m.group(3).substring(1));
      return new PathStep.Slice(start, stop, step, false);
    } catch (NumberFormatException e) {
      throw new PathSyntaxException("index '" + abbreviate(text) + "' is too large", from + 1);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 12 ? s : s.substring(0, 12) + "...";
  }

  /** Member ranges split at commas outside quotes, brackets and parentheses. */
  private List<int[]> splitTopLevel(int from, int to) {
    List<int[]> out = new ArrayList<>();
    int start = from;
    for (int comma = findTopLevel(start, to, c -> c == ','); comma >= 0;
        comma = findTopLevel(start, to, c -> c == ',')) {
      out.add(new int[] {start, comma});
      start = comma + 1;
    }
    out.add(new int[] {start, to});
    return out;
  }

  /**
   * The first index in [from, to) outside quotes, brackets and parentheses whose character
   * {@code wanted} accepts, or -1. Quotes honour backslash escapes; nesting is counted, not
   * checked (the callers work inside a range whose brackets were matched already).
   */
  private int findTopLevel(int from, int to, java.util.function.IntPredicate wanted) {
    int depth = 0;
    char quote = 0;
    for (int i = from; i < to; i++) {
      char c = src.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '[' || c == '(') {
        depth++;
      } else if (c == ']' || c == ')') {
        depth--;
      } else if (depth == 0 && wanted.test(c)) {
        return i;
      }
    }
    return -1;
  }

  /** Index of the ']' closing the '[' at open, honouring quotes, brackets and parentheses. */
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

  /** "?(left op right)" between from (the '?') and to (the closing ']'). */
  private PathStep filter(int from, int to) throws PathSyntaxException {
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
    int bodyStart = i + 1;
    int bodyEnd = last;
    if (src.substring(bodyStart, bodyEnd).isBlank()) {
      throw new PathSyntaxException("empty filter", i + 1);
    }
    // client-go: ^([^!<>=]+)([!<>=]+)(.+?)$ — the first run of operator characters outside
    // quotes and brackets splits the sides.
    // client-go has no logical operators; name them, rather than the '&' or '|' that a split
    // at the comparison below would leave in the right operand.
    int logical = findTopLevel(bodyStart, bodyEnd, c -> c == '&' || c == '|');
    if (logical >= 0) {
      int end = logical;
      while (end < bodyEnd && (src.charAt(end) == '&' || src.charAt(end) == '|')) {
        end++;
      }
      throw new PathSyntaxException("unrecognized filter operator " + src.substring(logical, end)
          + " (the kubectl dialect has no logical operators)", logical + 1);
    }
    int opStart = findTopLevel(bodyStart, bodyEnd, c -> "!<>=".indexOf(c) >= 0);
    if (opStart < 0) {
      return new PathStep.Filter(operand(bodyStart, bodyEnd), "exists", null);
    }
    int opEnd = opStart;
    while (opEnd < bodyEnd && "!<>=".indexOf(src.charAt(opEnd)) >= 0) {
      opEnd++;
    }
    if (opEnd < bodyEnd && src.charAt(opEnd) == '~') {
      opEnd++; // =~ (a regular-expression match elsewhere) is one operator kubectl lacks, not '='
    }
    String op = src.substring(opStart, opEnd);
    if (!OPERATORS.contains(op)) {
      throw new PathSyntaxException("unrecognized filter operator " + op, opStart + 1);
    }
    if (src.substring(bodyStart, opStart).isBlank() || src.substring(opEnd, bodyEnd).isBlank()) {
      throw new PathSyntaxException("filter operator " + op + " needs a value on both sides", opStart + 1);
    }
    return new PathStep.Filter(operand(bodyStart, opStart), op, operand(opEnd, bodyEnd));
  }

  private PathStep.Operand operand(int from, int to) throws PathSyntaxException {
    while (from < to && Character.isWhitespace(src.charAt(from))) {
      from++;
    }
    boolean fromRoot = from < to && src.charAt(from) == '$';
    if (fromRoot) {
      readsRoot = true;
    }
    KubectlPathParser side = new KubectlPathParser(src, from, to);
    List<PathStep> steps = side.steps(false);
    readsRoot |= side.readsRoot;
    return new PathStep.Operand(steps, fromRoot);
  }
}

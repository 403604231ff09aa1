package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Applies {@link PathStep}s to a Jackson tree the way client-go's {@code util/jsonpath} applies
 * its nodes to an unstructured object: each step maps the list of current values to the next list.
 * Objects keep document order where kubectl walks Go maps (in random order).
 *
 * <p>Two modes. Strict ({@code tolerant == false}) fails where kubectl fails, with kubectl's
 * message. Tolerant, for extraction, drops the one value a step cannot apply to (an index out of
 * range, a filter on a string) and goes on with the others, cuts a slice end that runs past the
 * array to its length, and treats missing keys as no match; it never fails.
 */
final class PathEvaluator {

  private final JsonNode root;
  private final boolean allowMissingKeys;
  private final boolean tolerant;

  PathEvaluator(JsonNode root, boolean allowMissingKeys, boolean tolerant) {
    this.root = root;
    this.allowMissingKeys = allowMissingKeys || tolerant;
    this.tolerant = tolerant;
  }

  List<JsonNode> run(List<PathStep> steps) throws PathEvaluationException {
    return run(List.of(root), steps);
  }

  private List<JsonNode> run(List<JsonNode> input, List<PathStep> steps) throws PathEvaluationException {
    List<JsonNode> cur = input;
    for (PathStep step : steps) {
      cur = apply(cur, step);
    }
    return cur;
  }

  private List<JsonNode> apply(List<JsonNode> input, PathStep step) throws PathEvaluationException {
    if (step instanceof PathStep.Field f) {
      return field(input, f.name());
    } else if (step instanceof PathStep.Wildcard) {
      return wildcard(input);
    } else if (step instanceof PathStep.Slice s) {
      return slice(input, s);
    } else if (step instanceof PathStep.Union u) {
      List<JsonNode> out = new ArrayList<>();
      for (List<PathStep> member : u.members()) {
        out.addAll(run(input, member));
      }
      return out;
    } else if (step instanceof PathStep.Recursive) {
      List<JsonNode> out = new ArrayList<>();
      for (JsonNode v : input) {
        descend(v, out);
      }
      return out;
    } else if (step instanceof PathStep.Filter f) {
      return filter(input, f);
    } else if (step instanceof PathStep.Literal l) {
      return List.of(l.value());
    }
    throw new IllegalStateException("unknown step " + step);
  }

  private static boolean absent(JsonNode v) {
    return v == null || v.isNull() || v.isMissingNode();
  }

  private List<JsonNode> field(List<JsonNode> input, String name) throws PathEvaluationException {
    List<JsonNode> out = new ArrayList<>();
    if (input.isEmpty()) {
      return out; // no input, no output, no error (client-go)
    }
    for (JsonNode v : input) {
      if (!absent(v) && v.isObject()) {
        JsonNode child = v.get(name);
        if (child != null) {
          out.add(child);
        }
      }
    }
    if (out.isEmpty() && !allowMissingKeys) {
      throw new PathEvaluationException(name + " is not found");
    }
    return out;
  }

  private static List<JsonNode> wildcard(List<JsonNode> input) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode v : input) {
      if (!absent(v) && v.isContainerNode()) {
        v.forEach(out::add);
      }
    }
    return out;
  }

  private List<JsonNode> slice(List<JsonNode> input, PathStep.Slice s) throws PathEvaluationException {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode v : input) {
      if (absent(v)) {
        continue;
      }
      try {
        sliceOne(v, s, out);
      } catch (PathEvaluationException e) {
        if (!tolerant) {
          throw e;
        }
      }
    }
    return out;
  }

  /** client-go's evalArray for one value, bound by bound. */
  private void sliceOne(JsonNode v, PathStep.Slice s, List<JsonNode> out) throws PathEvaluationException {
    if (!v.isArray()) {
      throw new PathEvaluationException(goType(v) + " is not array or slice");
    }
    int len = v.size();
    int start = s.start() == null ? 0 : s.start();
    if (start < 0) {
      start += len;
    }
    int end;
    if (s.index()) {
      end = s.start() + 1; // derived: [i] is [i:i+1]
      if (end <= 0) {
        end += len;
      }
    } else {
      end = s.end() == null ? len : s.end();
      if (end < 0) {
        end += len;
      }
    }
    if (end == start) {
      return; // zero elements requested: allowed whatever the bounds
    }
    if (start >= len || start < 0) {
      throw new PathEvaluationException("array index out of bounds: index " + start + ", length " + len);
    }
    if (end > len || end < 0) {
      if (!tolerant || end < 0) {
        throw new PathEvaluationException("array index out of bounds: index " + (end - 1) + ", length " + len);
      }
      end = len; // a collector reading [0:3] of a shorter list wants what there is
    }
    if (start > end) {
      throw new PathEvaluationException("starting index " + start + " is greater than ending index " + end);
    }
    int step = 1;
    if (s.step() != null) {
      if (s.step() <= 0) {
        throw new PathEvaluationException("step must be > 0");
      }
      step = s.step();
    }
    for (int i = start; i < end; i += step) {
      out.add(v.get(i));
    }
  }

  /** The value and every non-empty container below it, depth first (client-go's evalRecursive). */
  private static void descend(JsonNode v, List<JsonNode> out) {
    if (absent(v) || !v.isContainerNode() || v.isEmpty()) {
      return;
    }
    out.add(v);
    Iterator<JsonNode> children = v.elements();
    while (children.hasNext()) {
      descend(children.next(), out);
    }
  }

  private List<JsonNode> filter(List<JsonNode> input, PathStep.Filter f) throws PathEvaluationException {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode v : input) {
      if (absent(v) || !v.isArray()) {
        if (tolerant) {
          continue;
        }
        throw new PathEvaluationException(goType(v) + " is not array or slice and cannot be filtered");
      }
      for (JsonNode element : v) {
        try {
          if (passes(element, f)) {
            out.add(element);
          }
        } catch (PathEvaluationException e) {
          if (!tolerant) {
            throw e;
          }
        }
      }
    }
    return out;
  }

  private boolean passes(JsonNode element, PathStep.Filter f) throws PathEvaluationException {
    if (f.op().equals("exists")) {
      try {
        return !side(element, f.left()).isEmpty();
      } catch (PathEvaluationException e) {
        return false; // client-go ignores the error of an existence test
      }
    }
    List<JsonNode> lefts = side(element, f.left());
    if (lefts.isEmpty()) {
      return false;
    }
    if (lefts.size() > 1) {
      throw new PathEvaluationException("can only compare one element at a time");
    }
    List<JsonNode> rights = side(element, f.right());
    if (rights.isEmpty()) {
      return false;
    }
    if (rights.size() > 1) {
      throw new PathEvaluationException("can only compare one element at a time");
    }
    return compare(lefts.get(0), f.op(), rights.get(0));
  }

  private List<JsonNode> side(JsonNode element, PathStep.Operand side) throws PathEvaluationException {
    return run(List.of(side.fromRoot() ? root : element), side.steps());
  }

  private static boolean compare(JsonNode l, String op, JsonNode r) throws PathEvaluationException {
    int c;
    if (l.isNumber() && r.isNumber()) {
      c = l.decimalValue().compareTo(r.decimalValue());
    } else if (l.isTextual() && r.isTextual()) {
      c = l.textValue().compareTo(r.textValue());
    } else if (l.isBoolean() && r.isBoolean() && (op.equals("==") || op.equals("!="))) {
      c = l.booleanValue() == r.booleanValue() ? 0 : 1;
    } else if (absent(l) || absent(r) || l.isContainerNode() || r.isContainerNode() || l.isBoolean()) {
      throw new PathEvaluationException("invalid type for comparison");
    } else {
      throw new PathEvaluationException("incompatible types for comparison");
    }
    switch (op) {
      case "==":
        return c == 0;
      case "!=":
        return c != 0;
      case "<":
        return c < 0;
      case "<=":
        return c <= 0;
      case ">":
        return c > 0;
      case ">=":
        return c >= 0;
      default:
        throw new PathEvaluationException("unrecognized filter operator " + op);
    }
  }

  /** The Go type client-go would name for a decoded JSON value (messages only, never values). */
  static String goType(JsonNode v) {
    if (absent(v)) {
      return "<nil>";
    } else if (v.isObject()) {
      return "map[string]interface {}";
    } else if (v.isArray()) {
      return "[]interface {}";
    } else if (v.isTextual()) {
      return "string";
    } else if (v.isBoolean()) {
      return "bool";
    } else if (v.isIntegralNumber()) {
      return "int64";
    }
    return "float64";
  }
}

package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A compiled kubectl JSONPath: {@link KubectlPathParser} parses it once, {@link PathEvaluator}
 * applies it to Jackson trees.
 *
 * <p>Why Kollect evaluates kubectl's dialect itself rather than translating it for a general
 * JSONPath library (as it once did with Jayway json-path): the dialects differ in
 * meaning, not only in syntax, exactly where Kubernetes users rely on kubectl — slice steps and
 * negative slice ends relative to the array length, {@code [-1:0]} being an error, quoted union
 * members being paths ({@code ['metadata.name','status.capacity']}), {@code ..} inside filters,
 * "not found" versus "empty" — and client-go's own test table ({@code KubectlJsonPathConformanceTest})
 * can only pass with kubectl's semantics.
 */
final class KubectlPath {

  private final String source;
  private final List<PathStep> steps;
  private final boolean readsRoot;
  private final boolean definite;
  private final List<String> staticPrefix;

  KubectlPath(String source, List<PathStep> steps, boolean readsRoot) {
    this.source = source;
    this.steps = List.copyOf(steps);
    this.readsRoot = readsRoot;
    boolean d = true;
    List<String> prefix = new ArrayList<>();
    boolean prefixOpen = true;
    for (PathStep s : steps) {
      if (s instanceof PathStep.Field f) {
        if (prefixOpen) {
          prefix.add(f.name());
        }
        continue;
      }
      prefixOpen = false;
      if (!(s instanceof PathStep.Literal) && !(s instanceof PathStep.Slice sl && sl.index())) {
        d = false;
      }
    }
    this.definite = d;
    this.staticPrefix = List.copyOf(prefix);
  }

  /** Parses a path in the kubectl dialect, with or without the surrounding {@code {}}. */
  static KubectlPath parse(String path) throws PathSyntaxException {
    return KubectlPathParser.parse(path);
  }

  /** The path as written. */
  String source() {
    return source;
  }

  List<PathStep> steps() {
    return steps;
  }

  /**
   * Whether the path can match only one place: no wildcard, slice, union, filter or {@code ..};
   * single indexes ({@code [0]}, {@code [-1]}) are definite.
   */
  boolean isDefinite() {
    return definite;
  }

  /**
   * The object keys the path starts with, up to its first wildcard, index, filter or recursive
   * segment: what a projection must keep for the path to see what it would see in the full object.
   */
  List<String> staticPrefix() {
    return staticPrefix;
  }

  /** The path contains a filter that reads from the document root ({@code $}), so it may look anywhere. */
  boolean readsRoot() {
    return readsRoot;
  }

  /**
   * kubectl's results for this path, failing where kubectl fails ("x is not found" only when
   * {@code allowMissingKeys} is false, as {@code kubectl --allow-missing-template-keys=false}).
   */
  List<JsonNode> evaluate(JsonNode root, boolean allowMissingKeys) throws PathEvaluationException {
    return new PathEvaluator(root, allowMissingKeys, false).run(steps);
  }

  /**
   * What a collector extracts: kubectl's results where kubectl succeeds; where kubectl would fail
   * the whole print (a missing key, an index out of range, a filter on a string), the values it
   * fails on contribute nothing and the rest still match.
   */
  List<JsonNode> matches(JsonNode root) {
    try {
      return new PathEvaluator(root, true, true).run(steps);
    } catch (PathEvaluationException e) {
      throw new IllegalStateException("a tolerant evaluation never fails", e);
    }
  }

  @Override
  public String toString() {
    return source;
  }
}

package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** One step of a parsed kubectl JSONPath: what {@link PathEvaluator} applies to each current value. */
sealed interface PathStep {

  /** {@code .name} or {@code ['name']}: the value under a key of an object. */
  record Field(String name) implements PathStep {}

  /** {@code .*} or {@code [*]}: every value of an object or element of an array. */
  record Wildcard() implements PathStep {}

  /**
   * {@code [i]}, {@code [start:end:step]}: kubectl's array node. Absent bounds are {@code null};
   * {@code index} marks the single-index form {@code [i]} (end derived as {@code i + 1}).
   */
  record Slice(Integer start, Integer end, Integer step, boolean index) implements PathStep {}

  /** {@code [a,b]}: each member path applied to the same input, results grouped per member. */
  record Union(List<List<PathStep>> members) implements PathStep {}

  /** {@code ..}: the value and every non-empty object or array below it, depth first. */
  record Recursive() implements PathStep {}

  /** {@code [?(left op right)]} or {@code [?(left)]} (op {@code exists}) over array elements. */
  record Filter(Operand left, String op, Operand right) implements PathStep {}

  /** A quoted string, number or {@code true}/{@code false} in an action: the value itself. */
  record Literal(JsonNode value) implements PathStep {}

  /** One side of a filter: a path from the element ({@code @}) or from the root ({@code $}). */
  record Operand(List<PathStep> steps, boolean fromRoot) {}
}

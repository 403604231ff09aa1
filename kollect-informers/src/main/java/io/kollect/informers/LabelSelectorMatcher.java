package io.kollect.informers;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A compiled {@link LabelSelector}: {@code matchLabels} and {@code matchExpressions} with the
 * operators {@code In}, {@code NotIn}, {@code Exists} and {@code DoesNotExist}, all ANDed, as the
 * API server evaluates them.
 */
final class LabelSelectorMatcher implements Predicate<Map<String, String>> {

  private static final LabelSelectorMatcher ALL = new LabelSelectorMatcher(List.of());

  private final List<Predicate<Map<String, String>>> requirements;

  private LabelSelectorMatcher(List<Predicate<Map<String, String>>> requirements) {
    this.requirements = requirements;
  }

  /**
   * Compiles {@code selector} ({@code null} matches everything).
   *
   * @throws IllegalArgumentException naming the offending field when the selector is invalid
   */
  static LabelSelectorMatcher compile(LabelSelector selector) {
    if (selector == null) {
      return ALL;
    }
    List<Predicate<Map<String, String>>> out = new ArrayList<>();
    if (selector.getMatchLabels() != null) {
      selector.getMatchLabels().forEach((key, value) -> {
        requireKey(key, "labelSelector.matchLabels");
        out.add(labels -> value != null && value.equals(labels.get(key)));
      });
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    if (expressions != null) {
      for (int i = 0; i < expressions.size(); i++) {
        out.add(requirement(expressions.get(i), "labelSelector.matchExpressions[" + i + "]"));
      }
    }
    return out.isEmpty() ? ALL : new LabelSelectorMatcher(List.copyOf(out));
  }

  private static Predicate<Map<String, String>> requirement(LabelSelectorRequirement r, String field) {
    String key = r.getKey();
    requireKey(key, field + ".key");
    String operator = r.getOperator();
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    if (operator == null) {
      throw new IllegalArgumentException(field + ".operator: missing (expected In, NotIn, Exists or DoesNotExist)");
    }
    switch (operator) {
      case "In", "NotIn" -> {
        if (values.isEmpty()) {
          throw new IllegalArgumentException(
              field + ".values: must be non-empty for operator " + operator);
        }
        Set<String> set = Set.copyOf(values);
        return operator.equals("In")
            ? labels -> labels.get(key) != null && set.contains(labels.get(key))
            : labels -> labels.get(key) == null || !set.contains(labels.get(key));
      }
      case "Exists", "DoesNotExist" -> {
        if (!values.isEmpty()) {
          throw new IllegalArgumentException(
              field + ".values: must be empty for operator " + operator);
        }
        return operator.equals("Exists")
            ? labels -> labels.containsKey(key)
            : labels -> !labels.containsKey(key);
      }
      default -> throw new IllegalArgumentException(field + ".operator: unknown operator '"
          + operator + "' (expected In, NotIn, Exists or DoesNotExist)");
    }
  }

  private static void requireKey(String key, String field) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(field + ": label key must not be empty");
    }
  }

  @Override
  public boolean test(Map<String, String> labels) {
    Map<String, String> l = labels == null ? Map.of() : labels;
    for (Predicate<Map<String, String>> r : requirements) {
      if (!r.test(l)) {
        return false;
      }
    }
    return true;
  }
}

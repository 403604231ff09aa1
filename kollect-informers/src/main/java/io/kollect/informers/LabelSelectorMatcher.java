package io.kollect.informers;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A compiled {@link LabelSelector} evaluated as the API server does: {@code matchLabels} and
 * {@code matchExpressions} ({@code In}, {@code NotIn}, {@code Exists}, {@code DoesNotExist}), all
 * ANDed; {@code null} or empty matches everything.
 *
 * <p>Leases filter with it on read; hosts use it to validate selectors up front (errors name the
 * field) and to match namespace selectors against Namespace objects.
 */
public final class LabelSelectorMatcher implements Predicate<Map<String, String>> {

  /** Matches everything. */
  public static final LabelSelectorMatcher ALL = new LabelSelectorMatcher(List.of());

  private final List<Predicate<Map<String, String>>> requirements;

  private LabelSelectorMatcher(List<Predicate<Map<String, String>>> requirements) {
    this.requirements = requirements;
  }

  /**
   * Compiles a selector.
   *
   * @param field where the selector is, for error messages (e.g. {@code scope.labelSelector})
   * @throws IllegalArgumentException naming the field and problem when the selector is invalid
   */
  public static LabelSelectorMatcher compile(LabelSelector selector, String field) {
    if (selector == null) {
      return ALL;
    }
    List<Predicate<Map<String, String>>> out = new ArrayList<>();
    if (selector.getMatchLabels() != null) {
      selector.getMatchLabels().forEach((key, value) -> {
        requireKey(key, field + ".matchLabels");
        if (value == null) {
          throw new IllegalArgumentException(field + ".matchLabels[" + key + "]: value must be set");
        }
        out.add(labels -> value.equals(labels.get(key)));
      });
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    if (expressions != null) {
      for (int i = 0; i < expressions.size(); i++) {
        out.add(requirement(expressions.get(i), field + ".matchExpressions[" + i + "]"));
      }
    }
    return new LabelSelectorMatcher(List.copyOf(out));
  }

  private static Predicate<Map<String, String>> requirement(LabelSelectorRequirement r,
      String field) {
    String key = r.getKey();
    requireKey(key, field + ".key");
    String op = r.getOperator();
    Set<String> values = r.getValues() == null ? Set.of() : Set.copyOf(r.getValues());
    if (op == null) {
      throw new IllegalArgumentException(field + ".operator: must be one of In, NotIn, Exists, "
          + "DoesNotExist");
    }
    switch (op) {
      case "In", "NotIn" -> {
        if (values.isEmpty()) {
          throw new IllegalArgumentException(field + ".values: must not be empty for " + op);
        }
      }
      case "Exists", "DoesNotExist" -> {
        if (!values.isEmpty()) {
          throw new IllegalArgumentException(field + ".values: must be empty for " + op);
        }
      }
      default -> throw new IllegalArgumentException(field + ".operator: unknown operator '" + op
          + "', expected In, NotIn, Exists or DoesNotExist");
    }
    return switch (op) {
      case "In" -> labels -> labels.containsKey(key) && values.contains(labels.get(key));
      case "NotIn" -> labels -> !labels.containsKey(key) || !values.contains(labels.get(key));
      case "Exists" -> labels -> labels.containsKey(key);
      default -> labels -> !labels.containsKey(key);
    };
  }

  private static void requireKey(String key, String field) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(field + ": label key must not be empty");
    }
  }

  /** Whether the labels ({@code null} for none) match. */
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

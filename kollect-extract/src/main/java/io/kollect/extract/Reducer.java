package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** The reducers a field may apply to the values its path matched. */
enum Reducer {
  /** Number of matches; 0 when nothing matched. */
  COUNT,
  /** Sum of the numeric matches; 0 when there are none. */
  SUM,
  /** Smallest numeric match, or lexicographically smallest when all matches are strings. */
  MIN,
  /** Largest numeric match, or lexicographically largest when all matches are strings. */
  MAX,
  /** The first match. */
  FIRST,
  /** The matches joined with {@code ,} (strings as they are, other values as JSON). */
  JOIN;

  static final String NAMES = "count, sum, min, max, first, join";

  static Optional<Reducer> named(String name) {
    for (Reducer r : values()) {
      if (r.name().toLowerCase(Locale.ROOT).equals(name)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  /** Reduces the matches; {@code null} means "absent" (the field's default applies). */
  JsonNode apply(List<JsonNode> matches) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    switch (this) {
      case COUNT:
        return f.numberNode(matches.size());
      case FIRST:
        return matches.isEmpty() ? null : matches.get(0);
      case JOIN:
        return matches.isEmpty()
            ? null
            : f.textNode(
                matches.stream()
                    .map(m -> m.isTextual() ? m.textValue() : m.toString())
                    .collect(Collectors.joining(",")));
      case SUM: {
        boolean integral = true;
        BigDecimal sum = BigDecimal.ZERO;
        for (JsonNode m : matches) {
          if (m.isNumber()) {
            integral &= m.isIntegralNumber();
            sum = sum.add(m.decimalValue());
          }
        }
        return integral ? f.numberNode(sum.toBigInteger().longValueExact()) : f.numberNode(sum.doubleValue());
      }
      case MIN:
      case MAX:
        return extreme(matches, this == MAX);
      default:
        throw new IllegalStateException(name());
    }
  }

  private static JsonNode extreme(List<JsonNode> matches, boolean max) {
    JsonNode best = null;
    boolean numeric = matches.stream().anyMatch(JsonNode::isNumber);
    for (JsonNode m : matches) {
      if (numeric ? !m.isNumber() : !m.isTextual()) {
        continue;
      }
      if (best == null) {
        best = m;
        continue;
      }
      int c = numeric
          ? m.decimalValue().compareTo(best.decimalValue())
          : m.textValue().compareTo(best.textValue());
      if (max ? c > 0 : c < 0) {
        best = m;
      }
    }
    return best;
  }
}

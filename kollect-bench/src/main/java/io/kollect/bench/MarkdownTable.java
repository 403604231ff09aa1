package io.kollect.bench;

import java.util.ArrayList;
import java.util.List;

/** A markdown table: a label column, a goal column, an "as filed" column (the figure when the goal was set), measured columns. */
final class MarkdownTable {

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  MarkdownTable(List<String> measuredColumns) {
    header = new ArrayList<>(List.of("", "goal", "as filed"));
    header.addAll(measuredColumns);
  }

  MarkdownTable row(String label, String goal, String today, List<String> measured) {
    List<String> r = new ArrayList<>(List.of(label, goal, today));
    r.addAll(measured);
    while (r.size() < header.size()) {
      r.add("");
    }
    rows.add(r);
    return this;
  }

  String render() {
    StringBuilder b = new StringBuilder();
    b.append("| ").append(String.join(" | ", header)).append(" |\n");
    b.append("|---|---|---|").append("---:|".repeat(header.size() - 3)).append('\n');
    for (List<String> r : rows) {
      b.append("| ").append(String.join(" | ", r)).append(" |\n");
    }
    return b.toString();
  }

  static String mib(Object bytes) {
    if (!(bytes instanceof Number n) || n.longValue() < 0) {
      return "–";
    }
    return String.format("%.0f MiB", n.doubleValue() / (1 << 20));
  }

  static String num(Object value, String format) {
    return value instanceof Number n && !Double.isNaN(n.doubleValue()) ? String.format(format, n.doubleValue()) : "–";
  }
}

package io.kollect.bench;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go-style durations ({@code 500ms}, {@code 30s}, {@code 1m30s}, {@code 10h}), as the operator's flags. */
final class GoDurations {

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h)");

  private GoDurations() {}

  static Duration parse(String text) {
    Matcher m = PART.matcher(text);
    Duration d = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n = Long.parseLong(m.group(1));
      d = d.plus(switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      });
      end = m.end();
    }
    if (end != text.length() || text.isEmpty()) {
      throw new IllegalArgumentException("not a duration: '" + text + "' (e.g. 500ms, 30s, 1m30s)");
    }
    return d;
  }
}

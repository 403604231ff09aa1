package io.kollect.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code apiserver_request_total} from the API server's own {@code /metrics}, summed by
 * "VERB resource[/subresource]" (over codes, scopes and components). Non-resource requests (e.g. the
 * runner's own GET /metrics) have an empty resource and are left out.
 */
record ApiRequestCounts(Map<String, Long> byVerbResource) {

  private static final Pattern LINE = Pattern.compile("^apiserver_request_total\\{([^}]*)}\\s+(\\S+)$",
      Pattern.MULTILINE);
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  static ApiRequestCounts parse(String metrics) {
    Map<String, Long> out = new TreeMap<>();
    Matcher m = LINE.matcher(metrics);
    while (m.find()) {
      Map<String, String> labels = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(1));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      String resource = labels.getOrDefault("resource", "");
      if (resource.isEmpty()) {
        continue;
      }
      String sub = labels.getOrDefault("subresource", "");
      String key = labels.getOrDefault("verb", "?") + " " + resource + (sub.isEmpty() ? "" : "/" + sub);
      out.merge(key, (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return new ApiRequestCounts(out);
  }

  /** What happened between {@code before} and this snapshot (entries that did not change are dropped). */
  ApiRequestCounts minus(ApiRequestCounts before) {
    Map<String, Long> out = new TreeMap<>();
    byVerbResource.forEach((k, v) -> {
      long d = v - before.byVerbResource.getOrDefault(k, 0L);
      if (d != 0) {
        out.put(k, d);
      }
    });
    return new ApiRequestCounts(out);
  }

  long total() {
    return byVerbResource.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Requests of one verb (e.g. LIST, WATCH, PATCH, DELETECOLLECTION). */
  long verb(String verb) {
    return byVerbResource.entrySet().stream().filter(e -> e.getKey().startsWith(verb + " "))
        .mapToLong(Map.Entry::getValue).sum();
  }
}

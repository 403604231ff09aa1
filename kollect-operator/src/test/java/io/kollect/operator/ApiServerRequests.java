package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the API server itself counts of the requests it served ({@code apiserver_request_total}),
 * so a test can bound what the operator costs it without trusting the operator's own figures.
 */
public final class ApiServerRequests {

  private static final Pattern REQUESTS =
      Pattern.compile("^apiserver_request_total\\{(.*)} (\\S+)$", Pattern.MULTILINE);
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private ApiServerRequests() {}

  /** The request counters, summed by {@code VERB group/resource[/subresource]}. */
  public static Map<String, Long> count(KubernetesClient client) throws Exception {
    HttpClient http = client.getHttpClient();
    HttpResponse<String> response = http.sendAsync(http.newHttpRequestBuilder()
        .uri(client.getMasterUrl().toString().replaceAll("/$", "") + "/metrics").build(),
        String.class).get(30, TimeUnit.SECONDS);
    assertThat(response.code()).as("GET /metrics").isEqualTo(200);
    Map<String, Long> out = new TreeMap<>();
    Matcher m = REQUESTS.matcher(response.body());
    while (m.find()) {
      Map<String, String> labels = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(1));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      String group = labels.getOrDefault("group", "");
      String key = labels.get("verb") + " " + (group.isEmpty() ? "" : group + "/")
          + labels.getOrDefault("resource", "")
          + (labels.getOrDefault("subresource", "").isEmpty() ? ""
              : "/" + labels.get("subresource"));
      out.merge(key, (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return out;
  }

  /** The requests counted in {@code after} and not yet in {@code before}; only the non-zero. */
  public static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
    Map<String, Long> out = new TreeMap<>();
    after.forEach((k, v) -> {
      long d = v - before.getOrDefault(k, 0L);
      if (d > 0) {
        out.put(k, d);
      }
    });
    return out;
  }
}

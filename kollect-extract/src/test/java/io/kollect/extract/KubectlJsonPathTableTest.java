package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays src/test/resources/kubectl/jsonpath-table.json: for each path, what real kubectl 1.20.2
 * printed for objects/deployment.yaml (recorded by src/test/kubectl/record_kubectl_table.py). Kollect's
 * value, printed the way kubectl prints values, must be the same text. Typed expectations below are
 * Kollect's own contract (JSON types kept, list vs scalar) and are hand-written.
 */
class KubectlJsonPathTableTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNode OBJECT = TestObjects.resource("deployment.yaml");

  /** Where Kollect deliberately differs from kubectl: the value Kollect gives instead. */
  private static final Map<String, String> EXTENSIONS = Map.of(
      "{.metadata.labels['app.kubernetes.io/name']}", "\"checkout\"",
      "{.metadata.labels[\"app\\.kubernetes\\.io/part-of\"]}", "\"shop\"");

  /** Typed results (JSON) for a selection of rows; "absent" when no field is produced. */
  private static final Map<String, String> TYPED = Map.ofEntries(
      Map.entry("{.spec.replicas}", "3"),
      Map.entry(".metadata.name", "\"checkout\""),
      Map.entry("{.metadata.labels}",
          "{\"app.kubernetes.io/name\":\"checkout\",\"app.kubernetes.io/part-of\":\"shop\",\"tier\":\"backend\"}"),
      Map.entry("{.spec.strategy.rollingUpdate.maxUnavailable}", "0"),
      Map.entry("{.spec.template.spec.containers[0].image}", "\"registry.example.com/shop/checkout:2.4.1\""),
      Map.entry("{.spec.template.spec.containers[-1].name}", "\"sidecar\""),
      Map.entry("{.spec.template.spec.containers[0:1].name}", "[\"app\"]"),
      Map.entry("{.spec.template.spec.containers[*].name}", "[\"app\",\"sidecar\"]"),
      Map.entry("{.spec.template.spec.containers[*].ports[*].containerPort}", "[8080,9090,9901]"),
      Map.entry("{.spec.template.spec.containers[0].readinessProbe.httpGet}", "{\"path\":\"/ready\",\"port\":8080}"),
      Map.entry("{.status.conditions[?(@.type==\"Available\")].status}", "[\"True\"]"),
      Map.entry("{.status.conditions[?(@.type==\"Nope\")].status}", "absent"),
      Map.entry("{.spec.template.spec.containers[5].name}", "absent"),
      Map.entry("{.nope}", "absent"),
      Map.entry("{.nope.deeper}", "absent"),
      Map.entry("{.spec.template.spec.containers[*].nope}", "absent"));

  static Stream<Arguments> rows() throws IOException {
    try (InputStream in = KubectlJsonPathTableTest.class.getResourceAsStream("/kubectl/jsonpath-table.json")) {
      JsonNode table = JSON.readTree(in);
      List<Arguments> out = new ArrayList<>();
      for (JsonNode row : table.get("rows")) {
        List<String> flags = new ArrayList<>();
        row.get("flags").forEach(f -> flags.add(f.asText()));
        out.add(Arguments.of(row.get("path").asText(), row.get("kubectl").asText(), row.get("kubectlExit").asInt(), flags));
      }
      return out.stream();
    }
  }

  private static JsonNode evaluate(String path) {
    CompiledProfile p = ProfileCompiler.compile("table", new ProfileSpec(List.of(new ResourceRule(
        "apps", "v1", "Deployment", List.of(FieldRule.of("f", path)), null, null, null, false, false))));
    return p.extract(OBJECT, TestObjects.CTX).orElseThrow().fields().get("f");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void printsWhatKubectlPrints(String path, String kubectl, int kubectlExit, List<String> flags) throws Exception {
    JsonNode value = evaluate(path);
    if (flags.contains("extension")) {
      assertThat(kubectl).as("kubectl prints nothing for this form").isEmpty();
      assertThat(JSON.writeValueAsString(value)).isEqualTo(EXTENSIONS.get(path));
      return;
    }
    if (flags.contains("error")) {
      assertThat(kubectlExit).as("kubectl fails on this path").isEqualTo(1);
      assertThat(value).as("Kollect treats it as absent").isNull();
      return;
    }
    assertThat(kubectlExit).isZero();
    String printed = printLikeKubectl(value, path);
    if (flags.contains("unordered")) {
      // kubectl walks Go maps in random order for '..' and '.*'; compare the multiset of words.
      assertThat(sortedWords(printed)).isEqualTo(sortedWords(kubectl));
    } else {
      assertThat(printed).isEqualTo(kubectl);
    }
    String typed = TYPED.get(path);
    if (typed != null) {
      assertThat(value == null ? "absent" : JSON.writeValueAsString(value)).isEqualTo(typed);
    }
  }

  private static List<String> sortedWords(String s) {
    List<String> w = new ArrayList<>(Arrays.asList(s.split(" ")));
    w.sort(null);
    return w;
  }

  /** kubectl prints each match (strings raw, everything else as Go's JSON), space-separated. */
  private static String printLikeKubectl(JsonNode value, String path) throws Exception {
    if (value == null) {
      return "";
    }
    boolean list = !KubectlPath.parse(path).isDefinite();
    if (!list) {
      return print(value);
    }
    List<String> parts = new ArrayList<>();
    value.forEach(v -> parts.add(print(v)));
    return String.join(" ", parts);
  }

  private static String print(JsonNode v) {
    if (v.isTextual()) {
      return v.textValue();
    }
    return goJson(v);
  }

  /** Go's encoding/json: compact, map keys sorted. */
  private static String goJson(JsonNode v) {
    if (v.isObject()) {
      Map<String, JsonNode> sorted = new TreeMap<>();
      v.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
      StringBuilder sb = new StringBuilder("{");
      sorted.forEach((k, x) -> sb.append(sb.length() > 1 ? "," : "").append(JSON.valueToTree(k).toString()).append(':').append(goJson(x)));
      return sb.append('}').toString();
    }
    if (v.isArray()) {
      List<String> parts = new ArrayList<>();
      v.forEach(x -> parts.add(goJson(x)));
      return "[" + String.join(",", parts) + "]";
    }
    return v.toString();
  }
}

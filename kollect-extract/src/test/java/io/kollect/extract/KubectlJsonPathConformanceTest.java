package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * kubectl JSONPath conformance: client-go's own JSONPath test table (124 cases, read in place from
 * shared/conformance/jsonpath; see its README). Every single-block case of cases.json passes, scored
 * as the README says: with the case's allowMissingKeys, against {@code expected} (or {@code
 * expectedIfKeysSorted}; {@code <nil>} also right for a nil value, as kubectl 1.20 prints it); an
 * error case must fail, and with an {@code expectedErrorMessage} with exactly that message. The
 * text-output cases of cases-multi.json are refused with an error that names the construct.
 */
class KubectlJsonPathConformanceTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DIR = SharedConformance.dir("jsonpath");

  /**
   * README quirk 3: the expected message names the Go type of the test's struct input
   * ({@code map[string]int}); on JSON input upstream itself says {@code map[string]interface {}}.
   */
  private static final Map<String, String> MESSAGE_OF_A_GO_STRUCT_INPUT =
      Map.of("TestStructInput/invalid array", "map[string]interface {} is not array or slice");

  static Stream<Arguments> singleBlockCases() throws IOException {
    return cases("cases.json");
  }

  static Stream<Arguments> textOutputCases() throws IOException {
    return cases("cases-multi.json");
  }

  private static Stream<Arguments> cases(String file) throws IOException {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode c : JSON.readTree(DIR.resolve(file).toFile())) {
      out.add(Arguments.of(c.get("id").asText(), c));
    }
    return out.stream();
  }

  @Test
  void theTableIsComplete() throws IOException {
    assertThat(JSON.readTree(DIR.resolve("cases.json").toFile()).size()).isEqualTo(108);
    assertThat(JSON.readTree(DIR.resolve("cases-multi.json").toFile()).size()).isEqualTo(16);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("singleBlockCases")
  void everySingleBlockCaseGivesKubectlsOutputOrError(String id, JsonNode c) throws IOException {
    JsonNode input = JSON.readTree(DIR.resolve("inputs").resolve(c.get("input").asText() + ".json").toFile());
    String template = c.get("template").asText();
    boolean allowMissingKeys = c.get("allowMissingKeys").asBoolean();
    String printed;
    try {
      printed = print(KubectlPath.parse(template).evaluate(input, allowMissingKeys));
    } catch (PathSyntaxException | PathEvaluationException e) {
      String message = e instanceof PathSyntaxException s ? s.problem() : e.getMessage();
      if (!c.path("expectError").asBoolean()) {
        fail("%s failed: %s", template, e.getMessage());
      }
      if (c.hasNonNull("expectedErrorMessage")) {
        assertThat(message).isEqualTo(MESSAGE_OF_A_GO_STRUCT_INPUT.getOrDefault(id, c.get("expectedErrorMessage").asText()));
      }
      return;
    }
    if (c.path("expectError").asBoolean()) {
      fail("%s must fail (kubectl: %s) but printed \"%s\"", template, c.path("upstreamErrorMessage").asText(""), printed);
    }
    String expected = c.get("expected").asText();
    if (c.get("compare").asText().equals("sorted-fields")) {
      assertThat(sortedWords(printed)).isEqualTo(sortedWords(expected));
      return;
    }
    List<String> right = new ArrayList<>(List.of(expected));
    if (c.hasNonNull("expectedIfKeysSorted")) {
      right.add(c.get("expectedIfKeysSorted").asText());
    }
    if (id.equals("TestJSONInput/nil value")) {
      right.add("<nil>"); // kubectl 1.20.2 (client-go v0.20.2) prints a nil value so
    }
    assertThat(printed).as(template).isIn(right);
  }

  /**
   * Extraction evaluates the same engine in its tolerant mode: wherever kubectl succeeds, a field's
   * value, printed the way kubectl prints, is kubectl's output (a nil value is an absent field).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("singleBlockCases")
  void extractionGivesKubectlsValuesWhereKubectlSucceeds(String id, JsonNode c) throws Exception {
    if (c.path("expectError").asBoolean() || id.equals("TestJSONInput/nil value")) {
      return;
    }
    JsonNode input = JSON.readTree(DIR.resolve("inputs").resolve(c.get("input").asText() + ".json").toFile());
    String template = c.get("template").asText();
    KubectlPath path = KubectlPath.parse(template);
    JsonNode value = new CompiledField("f", template, path, null, null, null).evaluate(input);
    List<JsonNode> results = new ArrayList<>();
    if (value != null && !path.isDefinite()) {
      value.forEach(results::add);
    } else if (value != null) {
      results.add(value);
    }
    String expected = c.get("expected").asText();
    if (c.get("compare").asText().equals("sorted-fields")) {
      assertThat(sortedWords(print(results))).isEqualTo(sortedWords(expected));
    } else {
      assertThat(print(results)).as(template).isEqualTo(expected);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("textOutputCases")
  void textOutputTemplatesAreRefusedNamingTheConstruct(String id, JsonNode c) {
    String template = c.get("template").asText();
    try {
      KubectlPath.parse(template);
      fail("%s was accepted", template);
    } catch (PathSyntaxException e) {
      assertThat(e.problem()).as(template).containsAnyOf("{range}/{end}", "only one {...} expression", "text outside {...}");
    }
  }

  /** kubectl's PrintResults: strings raw, other values as compact JSON, space-separated. */
  static String print(List<JsonNode> results) {
    List<String> parts = new ArrayList<>();
    for (JsonNode r : results) {
      parts.add(r.isTextual() ? r.textValue() : r.toString());
    }
    return String.join(" ", parts);
  }

  private static List<String> sortedWords(String s) {
    List<String> w = new ArrayList<>(Arrays.asList(s.trim().split("\\s+")));
    w.sort(null);
    return w;
  }
}

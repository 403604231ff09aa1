package io.kollect.extract;

import static io.kollect.extract.TestObjects.CTX;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Helm conformance: every real Helm 3 release record in shared/conformance/helm (read in place; see
 * its README and decoded-summary.json) decodes through a {@code helmRelease: true} rule into the
 * facts the summary lists, with values scrubbed and nothing of the rendered manifest or chart
 * reachable; a plain Secret rule sees {@code data.release} only as metadata.
 */
class HelmReleaseConformanceTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DIR = SharedConformance.dir("helm");

  private static final CompiledProfile SUMMARY = TestObjects.profile("""
      resources:
      - version: v1
        kind: Secret
        helmRelease: true
        labels: ["*"]
        fields:
        - {name: name, path: .release.name}
        - {name: namespace, path: .release.namespace}
        - {name: version, path: .release.revision}
        - {name: info.status, path: .release.status}
        - {name: info.description, path: .release.info.description}
        - {name: info.first_deployed, path: .release.info.first_deployed}
        - {name: info.last_deployed, path: .release.info.last_deployed}
        - {name: chart.metadata.name, path: .release.chart.metadata.name}
        - {name: chart.metadata.version, path: .release.chart.metadata.version}
        - {name: chart.metadata.appVersion, path: .release.chart.metadata.appVersion}
        - {name: chart.metadata.apiVersion, path: .release.chart.metadata.apiVersion}
        - {name: config, path: .release.values}
        - {name: everything, path: '..*'}
      """);

  private static final CompiledProfile PLAIN = TestObjects.profile("""
      resources:
      - version: v1
        kind: Secret
        fields: [{name: all, path: '..*'}, {name: release, path: .data.release}]
      """);

  /** Each release Secret of the fixtures with its summary entry. */
  static Stream<Arguments> releases() throws IOException {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode file : JSON.readTree(DIR.resolve("decoded-summary.json").toFile())) {
      String name = file.get("file").asText();
      List<JsonNode> secrets = secrets(name);
      JsonNode expected = file.get("releases");
      assertThat(secrets).as(name).hasSize(expected.size());
      for (int i = 0; i < secrets.size(); i++) {
        out.add(Arguments.of(name + (secrets.size() > 1 ? "#" + (i + 1) : ""), secrets.get(i), expected.get(i)));
      }
    }
    return out.stream();
  }

  private static List<JsonNode> secrets(String file) throws IOException {
    Path p = DIR.resolve(file);
    if (file.endsWith(".dat")) {
      // The bare value kubectl prints for {.data.release}; wrap it as the Secret it came from.
      ObjectNode s = JSON.createObjectNode();
      s.put("apiVersion", "v1").put("kind", "Secret").put("type", "helm.sh/release.v1");
      s.putObject("metadata").put("name", "bare").put("namespace", "bare");
      s.putObject("data").put("release", Files.readString(p).trim());
      return List.of(s);
    }
    JsonNode doc = file.endsWith(".json") ? JSON.readTree(p.toFile()) : TestObjects.YAML.readTree(p.toFile());
    List<JsonNode> out = new ArrayList<>();
    if (doc.has("items")) {
      doc.get("items").forEach(out::add);
    } else {
      out.add(doc);
    }
    return out;
  }

  @Test
  void everyFixtureFileIsSummarised() throws IOException {
    List<String> summarised = new ArrayList<>();
    JSON.readTree(DIR.resolve("decoded-summary.json").toFile()).forEach(f -> summarised.add(f.get("file").asText()));
    try (Stream<Path> files = Files.list(DIR)) {
      assertThat(files.map(f -> f.getFileName().toString())
          .filter(f -> !f.equals("README.md") && !f.equals("decoded-summary.json")))
          .containsExactlyInAnyOrderElementsOf(summarised);
    }
    assertThat(releases()).hasSize(9); // 7 releases, the two bare values also as their derived Secrets
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("releases")
  void decodesIntoTheSummarisedFactsWithValuesScrubbed(String id, JsonNode secret, JsonNode expected) throws IOException {
    Record r = SUMMARY.extract(secret, CTX).orElseThrow();
    for (String key : List.of("name", "namespace", "version", "info.status", "info.description", "info.first_deployed",
        "info.last_deployed", "chart.metadata.name", "chart.metadata.version", "chart.metadata.appVersion",
        "chart.metadata.apiVersion")) {
      JsonNode want = expected.get(key);
      JsonNode got = r.fields().get(key);
      if (want.isTextual() && want.textValue().equals("<absent>")) {
        assertThat(got).as(id + " " + key).isNull();
      } else {
        assertThat(got).as(id + " " + key).isEqualTo(want);
      }
    }
    JsonNode config = expected.get("config");
    if (config.isTextual()) {
      assertThat(r.fields()).as(id + " config").doesNotContainKey("config");
    } else {
      List<String> keys = new ArrayList<>();
      r.fields().get("config").fieldNames().forEachRemaining(keys::add);
      List<String> want = new ArrayList<>();
      config.forEach(k -> want.add(k.asText()));
      assertThat(keys).as(id + " config keys").isEqualTo(want);
    }
    // The record's identity is the Secret's; the payload's own name/namespace are fields.
    assertThat(r.name()).isEqualTo(secret.path("metadata").path("name").asText());
    assertThat(r.namespace()).isEqualTo(secret.path("metadata").path("namespace").asText());
    if (expected.has("secretLabels")) {
      assertThat(r.labels()).as(id + " labels").isEqualTo(JSON.convertValue(expected.get("secretLabels"), java.util.Map.class));
    }
    String json = Records.toJsonLine(r);
    JsonNode release = decodeAsHelmDoes(secret.path("data").path("release").textValue());
    assertThat(json).as("the raw blob").doesNotContain(secret.path("data").path("release").textValue().substring(0, 32));
    assertThat(r.fields().get("everything").toString()).as("manifest and chart files are never in the view")
        .doesNotContain("\"manifest\"", "\"templates\"", "\"hooks\"", "\"files\"");
    for (String secretValue : secretValuesInManifest(release.path("manifest").asText(""))) {
      assertThat(json).as(id + ": a Secret value of the rendered manifest").doesNotContain(secretValue);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("releases")
  void aPlainSecretRuleSeesTheReleaseOnlyAsMetadata(String id, JsonNode secret, JsonNode expected) {
    Record r = PLAIN.extract(secret, CTX).orElseThrow();
    String blob = secret.path("data").path("release").textValue();
    assertThat(r.fields().get("release").path("length").intValue())
        .isEqualTo(Base64.getMimeDecoder().decode(blob).length);
    assertThat(Records.toJsonLine(r)).doesNotContain(blob.substring(0, 32), blob.substring(blob.length() - 32).trim(), "H4sI");
  }

  @Test
  void theManifestOfTheSecondSapccReleaseDoesHoldASecretValueThatMustNotLeak() throws IOException {
    JsonNode secret = secrets("sapcc-gatekeeper-addons-2.derived-secret.json").get(0);
    JsonNode release = decodeAsHelmDoes(secret.path("data").path("release").textValue());
    assertThat(secretValuesInManifest(release.path("manifest").asText())).isNotEmpty();
  }

  /** base64 (Kubernetes) → base64 (Helm) → gunzip → JSON, independently of the code under test. */
  private static JsonNode decodeAsHelmDoes(String dataRelease) throws IOException {
    byte[] helm = Base64.getMimeDecoder().decode(dataRelease);
    byte[] gz = Base64.getMimeDecoder().decode(helm);
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      return JSON.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static final Pattern SECRET_DATA_LINE = Pattern.compile("(?m)^\\s+(password|token|secret)\\w*:\\s*\"?([^\"\\s]{4,})");

  private static List<String> secretValuesInManifest(String manifest) {
    List<String> out = new ArrayList<>();
    Matcher m = SECRET_DATA_LINE.matcher(manifest);
    while (m.find()) {
      out.add(m.group(2));
    }
    return out;
  }
}

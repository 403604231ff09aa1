package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The helm-releases sample's Secrets are real Helm 3 storage of the committed release documents. */
class HelmReleaseFixturesTest {
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyReleaseDocumentHasItsSecretAndNoSecretLacksADocument() throws IOException {
    List<String> expected = HelmReleaseSecrets.sources().stream()
        .map(p -> p.getFileName().toString().replaceFirst("\\.json$", ".yaml"))
        .toList();
    List<String> actual = SamplePaths.yamlFiles("helm-releases", "input").stream()
        .map(p -> p.getFileName().toString())
        .toList();
    assertThat(expected).isNotEmpty();
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void committedSecretsDecodeToTheirReleaseDocuments() throws IOException {
    for (Path source : HelmReleaseSecrets.sources()) {
      Path secretFile = HelmReleaseSecrets.OUTPUT.resolve(
          source.getFileName().toString().replaceFirst("\\.json$", ".yaml"));
      JsonNode secret = YAML.readTree(secretFile.toFile());
      JsonNode release = JSON.readTree(source.toFile());

      assertThat(HelmReleaseSecrets.decodeSecretData(secret.path("data").path("release").asText()))
          .as("%s decodes to %s", secretFile.getFileName(), source.getFileName())
          .isEqualTo(release);
      // What Helm's secret driver writes besides the data, and what makes a Secret a release.
      assertThat(secret.path("type").asText()).isEqualTo("helm.sh/release.v1");
      assertThat(secret.path("metadata").path("name").asText())
          .isEqualTo("sh.helm.release.v1." + release.path("name").asText() + ".v"
              + release.path("version").asInt());
      assertThat(secret.path("metadata").path("labels").path("owner").asText()).isEqualTo("helm");
      assertThat(secret.path("metadata").path("labels").path("status").asText())
          .isEqualTo(release.path("info").path("status").asText());
      assertThat(secret.path("metadata").path("labels").path("version").asText())
          .isEqualTo(release.path("version").asText());
    }
  }

  @Test
  void committedSecretsAreWhatTheGeneratorWritesApartFromCompressionBytes() throws IOException {
    for (Path source : HelmReleaseSecrets.sources()) {
      Path secretFile = HelmReleaseSecrets.OUTPUT.resolve(
          source.getFileName().toString().replaceFirst("\\.json$", ".yaml"));
      JsonNode committed = YAML.readTree(secretFile.toFile());
      JsonNode generated = YAML.readTree(HelmReleaseSecrets.secretManifest(source));
      // gzip bytes may differ between zlib builds; the decoded content is compared above.
      ((com.fasterxml.jackson.databind.node.ObjectNode) committed).remove("data");
      ((com.fasterxml.jackson.databind.node.ObjectNode) generated).remove("data");
      assertThat(committed).as("%s", secretFile.getFileName()).isEqualTo(generated);
    }
  }

  @Test
  void storageEncodingIsBase64OfGzipThatHelmCanReadBack() throws IOException {
    String json = "{\"name\":\"r\",\"version\":1}";
    String stored = HelmReleaseSecrets.helmStorageValue(json);
    byte[] gzipped = java.util.Base64.getDecoder().decode(stored);
    // gzip magic number: what Helm's decodeRelease checks before gunzipping.
    assertThat(gzipped[0]).isEqualTo((byte) 0x1f);
    assertThat(gzipped[1]).isEqualTo((byte) 0x8b);
    String manifestValue = java.util.Base64.getEncoder().encodeToString(stored.getBytes());
    assertThat(HelmReleaseSecrets.decodeSecretData(manifestValue)).isEqualTo(JSON.readTree(json));
    assertThat(Files.exists(HelmReleaseSecrets.SOURCES)).isTrue();
  }
}

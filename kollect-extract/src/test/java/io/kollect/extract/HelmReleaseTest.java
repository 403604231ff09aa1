package io.kollect.extract;

import static io.kollect.extract.TestObjects.CTX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class HelmReleaseTest {

  static final String SUMMARY = """
      resources:
      - version: v1
        kind: Secret
        helmRelease: true
        labels: [owner, status]
        fields:
        - {name: release, path: .release.name}
        - {name: namespace, path: .release.namespace}
        - {name: revision, path: .release.revision}
        - {name: status, path: .release.info.status}
        - {name: chart, path: .release.chart.metadata.name}
        - {name: chartVersion, path: .release.chart.metadata.version}
        - {name: appVersion, path: .release.chart.metadata.appVersion}
        - {name: firstDeployed, path: .release.info.first_deployed}
        - {name: lastDeployed, path: .release.info.last_deployed}
        - {name: values, path: .release.values}
      """;

  private static final List<String> SECRETS_IN_FIXTURE = List.of(
      "helm-user-pass-77", "helm-admin-pass-99", "helm-env-pass-55",
      "aGVsbS1hZG1pbi1wYXNzLTk5", "aGVsbS11c2VyLXBhc3MtNzc=");

  @Test
  void decodesTheCommittedReleaseSecretFixtureIntoASummaryWithScrubbedValues() {
    JsonNode secret = TestObjects.resource("helm-release-secret.yaml");
    Record r = TestObjects.profile(SUMMARY).extract(secret, CTX).orElseThrow();
    assertThat(r.name()).isEqualTo("sh.helm.release.v1.shop-db.v3");
    assertThat(r.fields().get("release").textValue()).isEqualTo("shop-db");
    assertThat(r.fields().get("namespace").textValue()).isEqualTo("shop");
    assertThat(r.fields().get("revision").intValue()).isEqualTo(3);
    assertThat(r.fields().get("status").textValue()).isEqualTo("deployed");
    assertThat(r.fields().get("chart").textValue()).isEqualTo("postgresql");
    assertThat(r.fields().get("chartVersion").textValue()).isEqualTo("12.5.6");
    assertThat(r.fields().get("appVersion").textValue()).isEqualTo("15.3.0");
    assertThat(r.fields().get("firstDeployed").textValue()).isEqualTo("2024-04-02T08:15:31.482913641Z");
    assertThat(r.fields().get("lastDeployed").textValue()).isEqualTo("2024-05-01T10:00:04.117208355Z");
    JsonNode values = r.fields().get("values");
    // "auth" itself is a sensitive key: the whole section is masked, not just its passwords.
    assertThat(values.path("auth").textValue()).isEqualTo("********");
    assertThat(values.path("metrics").path("enabled").booleanValue()).isTrue();
    assertThat(values.path("primary").path("extraEnvVars").get(1).path("value").textValue()).isEqualTo("********");
    assertThat(values.path("primary").path("persistence").path("size").textValue()).isEqualTo("20Gi");
    assertThat(r.labels()).containsEntry("owner", "helm").containsEntry("status", "deployed");
    String json = Records.toJsonLine(r);
    assertThat(json).doesNotContain(SECRETS_IN_FIXTURE);
    assertThat(json).doesNotContain(secret.path("data").path("release").textValue().substring(0, 40));
  }

  @Test
  void theRawBlobManifestAndTemplatesAreNeverReachable() {
    JsonNode secret = TestObjects.resource("helm-release-secret.yaml");
    Record r = TestObjects.profile("""
        resources:
        - version: v1
          kind: Secret
          helmRelease: true
          fields:
          - {name: everything, path: '..*'}
          - {name: manifest, path: .release.manifest}
          - {name: templates, path: .release.chart.templates}
        """).extract(secret, CTX).orElseThrow();
    assertThat(r.fields()).containsOnlyKeys("everything");
    assertThat(Records.toJsonLine(r)).doesNotContain(SECRETS_IN_FIXTURE).doesNotContain("StatefulSet");
  }

  @Test
  void theConfigMapDriverDecodesToo() {
    JsonNode cm = TestObjects.yaml(HelmReleaseFixtures.configMapYaml(HelmReleaseFixtures.releaseJson("shop-db.v3.release.json")));
    Record r = TestObjects.profile("""
        resources:
        - version: v1
          kind: ConfigMap
          helmRelease: true
          fields: [{name: chart, path: .release.chart.metadata.name}, {name: revision, path: .release.version}]
        """).extract(cm, CTX).orElseThrow();
    assertThat(r.fields().get("chart").textValue()).isEqualTo("postgresql");
    assertThat(r.fields().get("revision").intValue()).isEqualTo(3);
  }

  @Test
  void objectsThatAreNotHelmReleasesAreSkipped() {
    CompiledProfile p = TestObjects.profile(SUMMARY);
    assertThat(p.extract(TestObjects.yaml(
        "{apiVersion: v1, kind: Secret, type: Opaque, metadata: {name: x}, data: {password: aGk=}}"), CTX)).isEmpty();
    CompiledProfile cm = TestObjects.profile("resources: [{version: v1, kind: ConfigMap, helmRelease: true}]");
    assertThat(cm.extract(TestObjects.yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {release: abc}}"), CTX)).isEmpty();
  }

  private static JsonNode secretWithRelease(String dataRelease) {
    return TestObjects.yaml(HelmReleaseFixtures.secretYaml("bad", "shop", 1, "deployed", dataRelease));
  }

  private static String k8s(byte[] helmLayer) {
    return Base64.getEncoder().encodeToString(helmLayer);
  }

  @Test
  void corruptDataGivesAClearErrorThatNamesTheObjectButNoContent() {
    CompiledProfile p = TestObjects.profile(SUMMARY);
    assertThatThrownBy(() -> p.extract(secretWithRelease("%%%not-base64-hunter2"), CTX))
        .isInstanceOf(ExtractionException.class)
        .hasMessage("/Secret/shop/sh.helm.release.v1.bad.v1: cannot decode Helm release: data.release is not valid base64");
    String notGzip = k8s(Base64.getEncoder().encode(new byte[] {0x1f, (byte) 0x8b, 1, 2, 3, 4}));
    assertThatThrownBy(() -> p.extract(secretWithRelease(notGzip), CTX))
        .hasMessageEndingWith("data.release is not valid gzip");
    String notJson = k8s(HelmReleaseFixtures.helmEncode("{\"password\": \"hunter2\", oops".getBytes(StandardCharsets.UTF_8)).getBytes());
    assertThatThrownBy(() -> p.extract(secretWithRelease(notJson), CTX))
        .hasMessageContaining("the decoded release is not valid JSON (line 1, column")
        .hasMessageNotContaining("hunter2");
    ObjectNode missing = (ObjectNode) secretWithRelease("x");
    ((ObjectNode) missing.get("data")).remove("release");
    assertThatThrownBy(() -> p.extract(missing, CTX)).hasMessageEndingWith("data.release is missing");
  }

  @Test
  void aDecompressionBombIsRejectedAtTheCap() {
    // 20 MiB of spaces inside a JSON string compresses to ~20 KiB.
    byte[] big = new byte[20 * 1024 * 1024];
    java.util.Arrays.fill(big, (byte) ' ');
    big[0] = '{';
    big[big.length - 1] = '}';
    String bomb = k8s(HelmReleaseFixtures.helmEncode(big).getBytes());
    assertThat(bomb.length()).isLessThan(200_000);
    assertThatThrownBy(() -> TestObjects.profile(SUMMARY).extract(secretWithRelease(bomb), CTX))
        .isInstanceOf(ExtractionException.class)
        .hasMessageEndingWith("the release decompresses to more than 16777216 bytes");
  }

  @Test
  void keepPathsOfAHelmRuleKeepTheWholeDataAndTypeButNeverAFakeReleaseKey() {
    CompiledProfile p = TestObjects.profile(SUMMARY);
    List<List<String>> keep = p.keepPaths(new GroupVersionKind("", "v1", "Secret"));
    assertThat(keep).contains(List.of("data"), List.of("type"), List.of("metadata", "labels"));
    assertThat(keep).noneMatch(k -> !k.isEmpty() && k.get(0).equals("release"));
  }
}

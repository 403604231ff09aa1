package io.kollect.extract;

import static io.kollect.extract.TestObjects.CTX;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** Secret values never leave: what a profile sees of a Secret's values is metadata only. */
class SecretMetadataTest {

  static final byte[] KEY = "kollect-test-digest-key".getBytes(StandardCharsets.UTF_8);

  static String pem(String name) {
    try (InputStream in = SecretMetadataTest.class.getResourceAsStream("/certs/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static JsonNode tlsSecret() {
    return TestObjects.yaml("""
        apiVersion: v1
        kind: Secret
        metadata: {name: shop-tls, namespace: shop}
        type: kubernetes.io/tls
        data:
          tls.crt: %s
          ca.crt: %s
          tls.key: %s
          password: %s
        stringData: {extra: plain-text-value}
        """.formatted(b64(pem("tls.crt")), b64(pem("ca.crt")), b64("not-a-real-key-hunter2"), b64("hunter2")));
  }

  static String hmac(String value) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
    return "hmac-sha256:" + HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)));
  }

  static CompiledProfile profile(String yaml, ExtractOptions options) {
    return ProfileCompiler.compile("test", ProfileLoader.parse(yaml, "test.yaml"), options);
  }

  @Test
  void dataIsSeenAsKeyToLengthDigestAndCertificateMetadata() throws Exception {
    Record r = profile("resources: [{version: v1, kind: Secret, fields: [{name: data, path: .data}, {name: s, path: .stringData}]}]",
        new ExtractOptions(KEY)).extract(tlsSecret(), CTX).orElseThrow();
    JsonNode data = r.fields().get("data");
    assertThat(data.fieldNames()).toIterable().containsExactly("tls.crt", "ca.crt", "tls.key", "password");
    assertThat(data.path("password").toString())
        .isEqualTo("{\"length\":7,\"digest\":\"" + hmac("hunter2") + "\"}");
    assertThat(data.path("tls.key").path("length").intValue()).isEqualTo("not-a-real-key-hunter2".length());
    assertThat(data.path("tls.key").has("certificate")).isFalse();
    JsonNode cert = data.path("tls.crt").path("certificate");
    assertThat(cert.path("subject").textValue()).isEqualTo("O=Shop,CN=shop.example.com");
    assertThat(cert.path("issuer").textValue()).isEqualTo("O=Kollect,CN=Kollect Test CA");
    assertThat(cert.path("sans").toString()).isEqualTo("[\"shop.example.com\",\"www.shop.example.com\",\"127.0.0.1\"]");
    assertThat(cert.path("notBefore").textValue()).isEqualTo("2026-11-24T03:23:30Z");
    assertThat(cert.path("notAfter").textValue()).isEqualTo("2029-02-26T03:23:30Z");
    assertThat(data.path("ca.crt").path("certificate").path("subject").textValue()).isEqualTo("O=Kollect,CN=Kollect Test CA");
    assertThat(r.fields().get("s").toString())
        .isEqualTo("{\"extra\":{\"length\":16,\"digest\":\"" + hmac("plain-text-value") + "\"}}");
    String json = Records.toJsonLine(r);
    assertThat(json).doesNotContain("hunter2", b64("hunter2"), "plain-text-value", "BEGIN CERTIFICATE",
        pem("tls.crt").substring(40, 80), b64(pem("tls.crt")).substring(40, 80));
  }

  @Test
  void withoutADigestKeyOnlyNamesAndLengthsAreSeen() {
    Record r = profile("resources: [{version: v1, kind: Secret, fields: [{name: data, path: .data}]}]", ExtractOptions.none())
        .extract(tlsSecret(), CTX).orElseThrow();
    assertThat(r.fields().get("data").path("password").toString()).isEqualTo("{\"length\":7}");
    assertThat(r.fields().get("data").path("tls.crt").has("digest")).isFalse();
    assertThat(r.fields().get("data").path("tls.crt").path("certificate").has("notAfter")).isTrue();
  }

  @Test
  void theDigestChangesWhenTheValueRotatesAndIsStableForTheSameKey() {
    CompiledProfile p = profile("resources: [{version: v1, kind: Secret, fields: [{name: d, path: '.data.password.digest'}]}]",
        new ExtractOptions(KEY));
    JsonNode before = TestObjects.yaml("{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {password: " + b64("one") + "}}");
    JsonNode after = TestObjects.yaml("{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {password: " + b64("two") + "}}");
    String d1 = p.extract(before, CTX).orElseThrow().fields().get("d").textValue();
    assertThat(d1).startsWith("hmac-sha256:").hasSize("hmac-sha256:".length() + 64);
    assertThat(p.extract(after, CTX).orElseThrow().fields().get("d").textValue()).isNotEqualTo(d1);
    CompiledProfile again = profile("resources: [{version: v1, kind: Secret, fields: [{name: d, path: '.data.password.digest'}]}]",
        new ExtractOptions(KEY.clone()));
    assertThat(again.extract(before, CTX).orElseThrow().fields().get("d").textValue()).isEqualTo(d1);
    CompiledProfile otherKey = profile("resources: [{version: v1, kind: Secret, fields: [{name: d, path: '.data.password.digest'}]}]",
        new ExtractOptions("another".getBytes(StandardCharsets.UTF_8)));
    assertThat(otherKey.extract(before, CTX).orElseThrow().fields().get("d").textValue()).isNotEqualTo(d1);
  }

  @Test
  void aPathReachesIntoCertificateMetadataAndTheProjectionKeepsOnlyTheValue() {
    CompiledProfile p = profile("""
        resources:
        - version: v1
          kind: Secret
          fields:
          - {name: expires, path: "{.data['tls.crt'].certificate.notAfter}"}
          - {name: sans, path: ".data.tls\\\\.crt.certificate.sans[*]"}
          - {name: keys, path: ".data", reduce: count}
        """, ExtractOptions.none());
    Record r = p.extract(tlsSecret(), CTX).orElseThrow();
    assertThat(r.fields().get("expires").textValue()).isEqualTo("2029-02-26T03:23:30Z");
    assertThat(r.fields().get("sans").toString()).isEqualTo("[\"shop.example.com\",\"www.shop.example.com\",\"127.0.0.1\"]");
    assertThat(r.fields().get("keys").intValue()).isEqualTo(4);
    CompiledProfile narrow = profile(
        "resources: [{version: v1, kind: Secret, fields: [{name: e, path: \".data['tls.crt'].certificate.notAfter\"}]}]",
        ExtractOptions.none());
    assertThat(narrow.keepPaths(new GroupVersionKind("", "v1", "Secret"))).contains(List.of("data", "tls.crt"))
        .noneMatch(k -> k.size() > 2 && k.get(0).equals("data"));
    assertThat(narrow.extract(tlsSecret(), CTX).orElseThrow().fields().get("e").textValue()).isEqualTo("2029-02-26T03:23:30Z");
  }

  @Test
  void includeSecretDataStillLoadsButIsIgnoredWithAWarningNamingTheField() {
    CompiledProfile p = profile("""
        resources:
        - {group: apps, version: v1, kind: Deployment}
        - {version: v1, kind: Secret, includeSecretData: true, fields: [{name: data, path: .data}, {name: all, path: '..*'}]}
        """, ExtractOptions.none());
    assertThat(p.warnings()).singleElement().asString()
        .startsWith("resources[1].includeSecretData is ignored: Secret values are never exported")
        .contains("length", "digest", "notAfter");
    String json = Records.toJsonLine(p.extract(tlsSecret(), CTX).orElseThrow());
    assertThat(json).doesNotContain("hunter2", b64("hunter2"), "plain-text-value", b64(pem("tls.crt")).substring(0, 60));
    assertThat(TestObjects.profile("resources: [{version: v1, kind: Secret}]").warnings()).isEmpty();
  }

  @Test
  void aHelmReleaseSecretIsOnlyMetadataToAPlainSecretRule() {
    JsonNode release = TestObjects.resource("helm-release-secret.yaml");
    Record r = profile("resources: [{version: v1, kind: Secret, fields: [{name: all, path: '..*'}, {name: r, path: .data.release}]}]",
        new ExtractOptions(KEY)).extract(release, CTX).orElseThrow();
    String blob = release.path("data").path("release").textValue();
    assertThat(r.fields().get("r").path("length").intValue()).isEqualTo(Base64.getDecoder().decode(blob).length);
    assertThat(Records.toJsonLine(r)).doesNotContain(blob.substring(0, 40), blob.substring(blob.length() - 40), "H4sI");
  }

  @Test
  void aHelmReleaseInAConfigMapIsOnlyMetadataToAPlainConfigMapRule() {
    JsonNode cm = TestObjects.yaml(HelmReleaseFixtures.configMapYaml(HelmReleaseFixtures.releaseJson("shop-db.v3.release.json")));
    String blob = cm.path("data").path("release").textValue();
    Record r = profile("resources: [{version: v1, kind: ConfigMap, fields: [{name: all, path: '..*'}, {name: r, path: .data.release}]}]",
        ExtractOptions.none()).extract(cm, CTX).orElseThrow();
    assertThat(r.fields().get("r").toString()).isEqualTo("{\"length\":" + blob.length() + "}");
    assertThat(Records.toJsonLine(r)).doesNotContain(blob.substring(0, 40), blob.substring(blob.length() - 40));
    CompiledProfile lengthOnly = profile("resources: [{version: v1, kind: ConfigMap, fields: [{name: n, path: .data.release.length}]}]",
        ExtractOptions.none());
    assertThat(lengthOnly.keepPaths(new GroupVersionKind("", "v1", "ConfigMap")))
        .as("a projection store keeps what recognises and describes a Helm ConfigMap")
        .contains(List.of("data", "release"), List.of("metadata", "labels", "owner"));
    JsonNode plain = TestObjects.yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {release: v1.2.3}}");
    assertThat(profile("resources: [{version: v1, kind: ConfigMap, fields: [{name: r, path: .data.release}]}]", ExtractOptions.none())
        .extract(plain, CTX).orElseThrow().fields().get("r").textValue()).as("not a Helm ConfigMap").isEqualTo("v1.2.3");
  }

  @Test
  void extractOptionsNeverPrintTheKeyAndOwnACopy() {
    byte[] key = "s3cr3t-key".getBytes(StandardCharsets.UTF_8);
    ExtractOptions o = new ExtractOptions(key);
    key[0] = 'X';
    assertThat(o.secretDigestKey()[0]).isEqualTo((byte) 's');
    assertThat(o.toString()).doesNotContain("s3cr3t").contains("10 bytes");
    assertThat(ExtractOptions.none().secretDigestKey()).isNull();
    assertThat(new ExtractOptions(new byte[0])).isEqualTo(ExtractOptions.none());
  }
}

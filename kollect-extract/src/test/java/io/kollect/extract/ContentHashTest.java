package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContentHashTest {

  private static final String SHA256_OF_ABC =
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

  /**
   * The hash as it was first defined: SHA-256 of the canonical JSON of a tree built from the
   * values (a checkpoint's hashes stay valid across the change to writing it straight).
   */
  private static String treeHash(GroupVersionKind resource, String namespace, String name,
      Map<String, JsonNode> fields, Map<String, String> labels, Map<String, String> annotations)
      throws Exception {
    ObjectMapper mapper = Records.mapper();
    ObjectNode content = mapper.createObjectNode();
    content.set("resource", mapper.valueToTree(resource));
    content.put("namespace", namespace);
    content.put("name", name);
    ObjectNode f = content.putObject("fields");
    fields.forEach(f::set);
    ObjectNode l = content.putObject("labels");
    labels.forEach(l::put);
    ObjectNode a = content.putObject("annotations");
    annotations.forEach(a::put);
    ByteArrayOutputStream canonical = new ByteArrayOutputStream();
    try (JsonGenerator gen = mapper.getFactory().createGenerator(canonical)) {
      Records.writeCanonical(gen, content);
    }
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
        .digest(canonical.toByteArray()));
  }

  @Test
  void theHashIsTheOneOfTheSortedTreeForEveryKindOfValue() throws Exception {
    ObjectMapper mapper = Records.mapper();
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    fields.put("z", mapper.readTree("{\"b\":[3,{\"y\":1,\"x\":null}],\"a\":\"\u00e9\\\"\"}"));
    fields.put("replicas", mapper.readTree("3"));
    fields.put("ratio", mapper.readTree("0.25"));
    fields.put("big", mapper.readTree("123456789012345678901234567890"));
    fields.put("on", mapper.readTree("true"));
    fields.put("absent", null);
    fields.put("text", mapper.readTree("\"line\\nbreak \u2028\""));
    fields.put("A", mapper.readTree("[]"));
    Map<String, String> labels = new HashMap<>();
    labels.put("app", "web");
    labels.put("App", "upper");
    labels.put("empty", "");
    labels.put("none", null);
    Map<String, String> annotations = Map.of("note", "x/y=z");
    GroupVersionKind apps = new GroupVersionKind("apps", "v1", "Deployment");
    GroupVersionKind core = new GroupVersionKind("", "v1", "ConfigMap");

    assertThat(Records.contentHash(apps, "ns", "web", fields, labels, annotations))
        .isEqualTo(treeHash(apps, "ns", "web", fields, labels, annotations));
    assertThat(Records.contentHash(core, null, "cluster-wide", Map.of(), Map.of(), Map.of()))
        .isEqualTo(treeHash(core, null, "cluster-wide", Map.of(), Map.of(), Map.of()));
    assertThat(Records.contentHash(core, "n", "m", Map.of("k", mapper.readTree("\"v\"")),
        Map.of(), Map.of("a", "b")))
        .isEqualTo(treeHash(core, "n", "m", Map.of("k", mapper.readTree("\"v\"")), Map.of(),
            Map.of("a", "b")));
  }

  @Test
  void aSha256GivesBackTheSameHexText() throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256")
        .digest("abc".getBytes(StandardCharsets.US_ASCII));

    assertThat(ContentHash.ofSha256(digest).toString()).isEqualTo(SHA256_OF_ABC);
    assertThat(ContentHash.of(SHA256_OF_ABC).toString()).isEqualTo(SHA256_OF_ABC);
    assertThat(ContentHash.of(SHA256_OF_ABC)).isEqualTo(ContentHash.ofSha256(digest))
        .hasSameHashCodeAs(ContentHash.ofSha256(digest));
  }

  @Test
  void leadingZerosAndEveryHexDigitSurvive() {
    String text = "000000000000000f0123456789abcdef00000000000000000fedcba987654321";
    assertThat(ContentHash.of(text).toString()).isEqualTo(text);
    assertThat(HexFormat.of().parseHex(text)).hasSize(32);
  }

  @Test
  void otherTextIsKeptAsItIs() {
    for (String text : new String[] {"h1", "", SHA256_OF_ABC.toUpperCase(),
        SHA256_OF_ABC.substring(1), SHA256_OF_ABC + "0", "g" + SHA256_OF_ABC.substring(1)}) {
      assertThat(ContentHash.of(text).toString()).isEqualTo(text);
      assertThat(ContentHash.of(text)).isEqualTo(ContentHash.of(new String(text)));
    }
    assertThat(ContentHash.of(null)).isNull();
  }

  @Test
  void hashesAreEqualExactlyWhenTheirTextsAre() {
    String other = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ae";
    assertThat(ContentHash.of(SHA256_OF_ABC)).isNotEqualTo(ContentHash.of(other));
    assertThat(ContentHash.of(SHA256_OF_ABC))
        .isNotEqualTo(ContentHash.of(SHA256_OF_ABC.toUpperCase()));
    assertThat(ContentHash.of("h1")).isNotEqualTo(ContentHash.of("h2"));
  }

  @Test
  void aHashWritesTheSameJsonStringAsItsText() throws Exception {
    for (String text : new String[] {SHA256_OF_ABC,
        "000000000000000f0123456789abcdef00000000000000000fedcba987654321", "h1", ""}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (JsonGenerator gen = Records.mapper().getFactory().createGenerator(out)) {
        ContentHash.of(text).writeTo(gen);
      }
      assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("\"" + text + "\"");
    }
  }

  @Test
  void aHashThatFailsHalfWayLeavesNothingInTheNextOne() throws Exception {
    ObjectMapper mapper = Records.mapper();
    GroupVersionKind core = new GroupVersionKind("", "v1", "ConfigMap");
    Map<String, JsonNode> fields = Map.of("k", mapper.readTree("{\"a\":[1,2]}"));
    String expected = treeHash(core, "n", "m", fields, Map.of(), Map.of());
    // a value whose serialisation fails after the hash has been fed the keys before it
    Map<String, JsonNode> failing = new LinkedHashMap<>();
    failing.put("a", mapper.readTree("\"first\""));
    failing.put("b", mapper.getNodeFactory().pojoNode(new Object() {
      @SuppressWarnings("unused")
      public String getValue() {
        throw new IllegalStateException("unserialisable");
      }
    }));

    assertThatThrownBy(
        () -> Records.contentHash(core, "n", "m", failing, Map.of(), Map.of()))
        .hasStackTraceContaining("unserialisable");
    assertThat(Records.contentHash(core, "n", "m", fields, Map.of(), Map.of()))
        .isEqualTo(expected);
  }

  @Test
  void aRecordKeepsItsHashTextOnTheWire() {
    Record r = TestObjects.profile(CompiledProfileTest.DEPLOYMENTS)
        .extract(TestObjects.resource("deployment.yaml"), TestObjects.CTX).orElseThrow();

    assertThat(r.contentHash()).matches("[0-9a-f]{64}").isEqualTo(r.hash().toString());
    assertThat(Records.toJsonLine(r)).contains("\"contentHash\":\"" + r.contentHash() + "\"");
    assertThat(r.withSequence(3).hash()).isSameAs(r.hash());
    assertThat(Records.fromJson(Records.toJsonLine(r)).hash()).isEqualTo(r.hash());
  }
}

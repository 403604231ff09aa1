package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random nested documents with secrets planted under sensitive keys, as values of name/value pairs
 * named like secrets, after sensitive flags in argument lists and inside flag strings. Every
 * secret is a unique marker ({@code XQ<n>QX}, never produced by the neutral generator); none may
 * appear anywhere in the record, however the profile's paths reach for them, nor in any error.
 */
class ScrubbingPropertyTest {

  static final List<String> SENSITIVE = List.of(
      "password", "DB_PASSWORD", "PGPASSWORD", "apiKey", "x-api-key", "client_secret", "authToken",
      "Authorization", "credentials", "privateKey", "cookie", "aws_access_key_id", "passwd", "pwd",
      "ssh-passphrase", "GITHUB_TOKEN", "connectionString", "auth",
      // segment scrubbing: segment forms and one-run keys matched by their ending
      "dbPassword", "api-key", "AWS_SECRET_ACCESS_KEY", "client.secret", "GITHUBTOKEN", "MYSQL_ROOTPASSWORD");
  static final List<String> NEUTRAL = List.of(
      "spec", "items", "config", "nested", "a", "b", "replicas", "image", "env", "mode", "x.y/z", "value", "name");

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  /** A document generator driven by a seed, so jqwik can shrink and replay by seed. */
  static final class Doc {
    final Random random;
    final List<String> markers = new ArrayList<>();

    Doc(long seed) {
      random = new Random(seed);
    }

    String marker() {
      String m = "XQ" + markers.size() + "Q" + random.nextInt(1_000_000) + "QX";
      markers.add(m);
      return m;
    }

    String neutralText() {
      StringBuilder sb = new StringBuilder();
      int n = 1 + random.nextInt(8);
      for (int i = 0; i < n; i++) {
        sb.append((char) ('a' + random.nextInt(26)));
      }
      return sb.toString();
    }

    String pick(List<String> l) {
      return l.get(random.nextInt(l.size()));
    }

    /** Anything below a sensitive key: a marker, or a structure full of markers. */
    JsonNode secretValue(int depth) {
      int k = depth > 2 ? 0 : random.nextInt(4);
      switch (k) {
        case 1: {
          ObjectNode o = F.objectNode();
          o.put(pick(NEUTRAL), marker());
          o.set(pick(NEUTRAL), secretValue(depth + 1));
          return o;
        }
        case 2: {
          ArrayNode a = F.arrayNode();
          a.add(marker());
          a.add(secretValue(depth + 1));
          return a;
        }
        case 3: {
          // a number: its digits are the marker (long enough never to occur by chance)
          long n = 1_000_000_007L + random.nextInt(1_000_000_000) * 7919L;
          markers.add(Long.toString(n));
          return F.numberNode(n);
        }
        default:
          return F.textNode(marker());
      }
    }

    /** A well-known secret shape around a marker, placed under any key. */
    String secretShape() {
      String m = marker();
      switch (random.nextInt(3)) {
        case 0:
          return "postgres://" + (random.nextBoolean() ? "user" : "") + ":" + m + "@db:5432/x";
        case 1:
          return "-----BEGIN " + (random.nextBoolean() ? "RSA " : "") + "PRIVATE KEY-----\nMIIE" + m
              + "\n-----END " + "PRIVATE KEY-----";
        default:
          return "Bearer eyJhbGciOiJIUzI1NiJ9.eyJ" + m + "x." + m;
      }
    }

    JsonNode node(int depth) {
      int k = depth >= 4 ? random.nextInt(2) : random.nextInt(10);
      switch (k) {
        case 0:
          return F.textNode(neutralText());
        case 1:
          return F.numberNode(random.nextInt(100));
        case 2:
        case 3: {
          ObjectNode o = F.objectNode();
          if (random.nextInt(3) == 0) {
            // the object itself is a name/value pair naming a secret
            o.put(random.nextBoolean() ? "name" : "key", pick(SENSITIVE)).put("value", marker());
            return o;
          }
          int n = 1 + random.nextInt(4);
          for (int i = 0; i < n; i++) {
            if (random.nextInt(3) == 0) {
              o.set(pick(SENSITIVE), secretValue(depth));
            } else {
              o.set(pick(NEUTRAL), node(depth + 1));
            }
          }
          return o;
        }
        case 4: {
          ArrayNode a = F.arrayNode();
          int n = 1 + random.nextInt(3);
          for (int i = 0; i < n; i++) {
            a.add(node(depth + 1));
          }
          return a;
        }
        case 5: {
          ArrayNode env = F.arrayNode();
          env.addObject().put("name", neutralText().toUpperCase()).put("value", neutralText());
          env.addObject().put(random.nextBoolean() ? "name" : "key", pick(SENSITIVE)).put("value", marker());
          return env;
        }
        case 6: {
          ArrayNode args = F.arrayNode();
          args.add("--" + neutralText()).add("--" + pick(SENSITIVE)).add(marker());
          args.add("--" + pick(SENSITIVE) + "=" + marker());
          return args;
        }
        case 7:
          return F.textNode("run --" + pick(SENSITIVE) + "=" + marker() + " --" + pick(SENSITIVE) + " " + marker());
        case 8:
          return F.textNode(secretShape());
        default:
          return F.textNode(pick(SENSITIVE) + "=" + marker());
      }
    }

    JsonNode object() {
      ObjectNode o = F.objectNode();
      o.put("apiVersion", "example.com/v1").put("kind", "Thing");
      ObjectNode meta = o.putObject("metadata");
      meta.put("name", "thing").put("namespace", "ns");
      ObjectNode labels = meta.putObject("labels");
      labels.put("app", neutralText()).put(pick(SENSITIVE), "l" + marker().toLowerCase());
      ObjectNode annotations = meta.putObject("annotations");
      annotations.put("note", "--token=" + marker()).put(pick(SENSITIVE), marker()).put("shape", secretShape());
      o.set("spec", node(0));
      o.set("status", node(1));
      o.set(pick(SENSITIVE), secretValue(0));
      return o;
    }
  }

  private static final CompiledProfile PROFILE = TestObjects.profile("""
      resources:
      - group: example.com
        version: v1
        kind: Thing
        labels: ["*"]
        annotations: ["*"]
        fields:
        - {name: all, path: '..*'}
        - {name: spec, path: .spec}
        - {name: status, path: '{.status}'}
        - {name: values, path: '..value'}
        - {name: pairs, path: '..[?(@.value)]'}
        - {name: firstValue, path: '..value', reduce: first}
        - {name: joined, path: '..*', reduce: join}
        - {name: direct, path: '.spec.password'}
        - {name: byName, path: '..[?(@.name=="DB_PASSWORD")].value'}
        - {name: second, path: '..[1]'}
      """);

  /** Only static prefixes: exercises the projected (not whole-object) view. */
  private static final CompiledProfile PROJECTED = TestObjects.profile("""
      resources:
      - group: example.com
        version: v1
        kind: Thing
        fields:
        - {name: v1, path: .spec.value}
        - {name: v2, path: .spec.nested.value}
        - {name: v3, path: .spec.a.b.value}
        - {name: v4, path: '.spec.nested[*]'}
        - {name: v5, path: '.spec.env[?(@.name)].value'}
        - {name: v6, path: '.spec.items[1]'}
        - {name: v7, path: '.status.config'}
        - {name: v8, path: '.spec.config.nested.value'}
        - {name: v9, path: '.spec.password'}
        - {name: v10, path: '.spec.a.value'}
      """);

  @Property(tries = 300)
  void noPlantedSecretAppearsInAProjectedRecord(@ForAll("seeds") long seed) {
    Doc doc = new Doc(seed);
    String json = Records.toJsonLine(PROJECTED.extract(doc.object(), TestObjects.CTX).orElseThrow());
    for (String m : doc.markers) {
      assertThat(json).doesNotContain(m).doesNotContain(m.toLowerCase());
    }
  }

  @Provide
  Arbitrary<Long> seeds() {
    return Arbitraries.longs();
  }

  @Property(tries = 300)
  void noPlantedSecretAppearsInTheRecord(@ForAll("seeds") long seed) {
    Doc doc = new Doc(seed);
    JsonNode object = doc.object();
    String json = Records.toJsonLine(PROFILE.extract(object, TestObjects.CTX).orElseThrow());
    for (String m : doc.markers) {
      assertThat(json).doesNotContain(m).doesNotContain(m.toLowerCase());
    }
  }

  /** Random Secrets: no value, in clear or base64, reaches a record through any path. */
  @Property(tries = 200)
  void noSecretValueAppearsInARecordInClearOrEncoded(@ForAll("seeds") long seed) {
    Doc doc = new Doc(seed);
    ObjectNode secret = F.objectNode();
    secret.put("apiVersion", "v1").put("kind", "Secret");
    secret.putObject("metadata").put("name", "s").put("namespace", "ns");
    secret.put("type", doc.random.nextBoolean() ? "Opaque" : "helm.sh/release.v1");
    ObjectNode data = secret.putObject("data");
    ObjectNode stringData = secret.putObject("stringData");
    List<String> encoded = new ArrayList<>();
    int n = 1 + doc.random.nextInt(5);
    for (int i = 0; i < n; i++) {
      String key = doc.random.nextBoolean() ? doc.pick(SENSITIVE) : doc.pick(NEUTRAL) + i;
      String b64 = java.util.Base64.getEncoder().encodeToString(doc.marker().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      encoded.add(b64);
      data.put(key, b64);
      stringData.put(key, doc.marker());
    }
    CompiledProfile p = ProfileCompiler.compile("p", ProfileLoader.parse("""
        resources:
        - version: v1
          kind: Secret
          includeSecretData: true
          fields:
          - {name: all, path: '..*'}
          - {name: data, path: .data}
          - {name: strings, path: .stringData}
          - {name: release, path: .data.release}
          - {name: joined, path: '.data.*', reduce: join}
        """, "p.yaml"), new ExtractOptions("k".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    String json = Records.toJsonLine(p.extract(secret, TestObjects.CTX).orElseThrow());
    for (String m : doc.markers) {
      assertThat(json).doesNotContain(m);
    }
    for (String b64 : encoded) {
      assertThat(json).doesNotContain(b64);
    }
  }

  @Property(tries = 100)
  void noPlantedSecretAppearsInProfileErrors(@ForAll("seeds") long seed) {
    Doc doc = new Doc(seed);
    String m = doc.marker();
    List<String> broken = List.of(
        "resources: [{version: v1, kind: Pod, fields: [{name: a, path: '.spec[', default: " + m + "}]}]",
        "resources: [{version: v1, kind: Pod, fields: [{name: a, path: .x, default: " + m + ", colour: " + m + "}]}]",
        "resources: [{version: v1, kind: Pod, includeSecretData: " + m + "}]",
        "resources: [{version: v1, kind: Pod, fields: [{name: a, path: .x, reduce: " + m.substring(0, 5) + "}]}]",
        "resources:\n- version: v1\n  kind: Pod\n  fields: [{name: a, default: " + m + ": x: y}]\n",
        "{\"resources\": [" + m + "]}",
        "resources: [{version: v1, kind: Pod, fields: [{name: a, path: .x, default: " + m + "}]}]\n\t" + m);
    for (String yaml : broken) {
      try {
        TestObjects.profile(yaml);
        throw new AssertionError("accepted: " + yaml);
      } catch (ProfileValidationException e) {
        assertThat(e.getMessage()).doesNotContain(m);
      }
    }
  }

  @Property(tries = 50)
  void noPlantedSecretAppearsInExtractionErrors(@ForAll("seeds") long seed) {
    Doc doc = new Doc(seed);
    String m = doc.marker();
    CompiledProfile helm = TestObjects.profile("resources: [{version: v1, kind: Secret, helmRelease: true}]");
    String payload = java.util.Base64.getEncoder().encodeToString(
        HelmReleaseFixtures.helmEncode(("{\"config\": {\"password\": \"" + m + "\"} oops").getBytes()).getBytes());
    for (String release : List.of(m, payload)) {
      try {
        helm.extract(TestObjects.yaml(HelmReleaseFixtures.secretYaml("r", "ns", 1, "deployed", release)), TestObjects.CTX);
        throw new AssertionError("accepted corrupt release");
      } catch (ExtractionException e) {
        assertThat(e.getMessage()).doesNotContain(m);
      }
    }
  }
}

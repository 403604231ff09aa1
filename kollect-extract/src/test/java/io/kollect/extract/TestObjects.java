package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;

final class TestObjects {
  static final ObjectMapper YAML = new YAMLMapper();
  static final RecordContext CTX = new RecordContext("c1", "ns/t1", Instant.parse("2024-05-01T12:00:00Z"));

  private TestObjects() {}

  static JsonNode resource(String name) {
    try (InputStream in = TestObjects.class.getResourceAsStream("/objects/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + name);
      }
      return YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode yaml(String text) {
    try {
      return YAML.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static CompiledProfile profile(String yaml) {
    return ProfileCompiler.compile("test", ProfileLoader.parse(yaml, "test.yaml"));
  }
}

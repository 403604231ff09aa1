package io.kollect.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One sample of the catalog as files: a whole KollectProfile, a KollectTarget, fixture CRDs, fixture
 * objects and the golden records ({@code expected.jsonl}).
 */
record Sample(
    String name,
    Path dir,
    JsonNode profile,
    JsonNode target,
    List<JsonNode> crds,
    List<JsonNode> inputs,
    List<JsonNode> expected) {

  static final String NAMESPACE = "kollect-demo";
  static final YAMLMapper YAML = new YAMLMapper();
  static final ObjectMapper JSON = new ObjectMapper();

  static Sample load(String name) {
    Path dir = SamplePaths.sample(name);
    return new Sample(
        name,
        dir,
        readOne(dir.resolve("profile.yaml")),
        readOne(dir.resolve("target.yaml")),
        readAll(SamplePaths.yamlFiles(name, "crds")),
        readAll(SamplePaths.yamlFiles(name, "input")),
        readGolden(dir.resolve("expected.jsonl")));
  }

  static List<Sample> all() {
    return SamplePaths.SAMPLES.stream().map(Sample::load).toList();
  }

  /** The profile's name, as the target's {@code profileRef} names it. */
  String profileName() {
    return profile.path("metadata").path("name").asText();
  }

  /** The target's id as records carry it: {@code namespace/name}. */
  String targetId() {
    return target.path("metadata").path("namespace").asText() + "/"
        + target.path("metadata").path("name").asText();
  }

  static JsonNode readOne(Path file) {
    List<JsonNode> docs = readAll(List.of(file));
    if (docs.size() != 1) {
      throw new IllegalStateException(file + ": expected one YAML document, found " + docs.size());
    }
    return docs.get(0);
  }

  /** Every non-empty YAML document of the files, in order. */
  static List<JsonNode> readAll(List<Path> files) {
    List<JsonNode> docs = new ArrayList<>();
    for (Path file : files) {
      try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
        while (it.hasNext()) {
          JsonNode doc = it.next();
          if (doc != null && !doc.isNull() && !doc.isEmpty()) {
            docs.add(doc);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(file.toString(), e);
      }
    }
    return docs;
  }

  static List<JsonNode> readGolden(Path file) {
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      List<JsonNode> records = new ArrayList<>();
      for (String line : Files.readAllLines(file)) {
        if (!line.isBlank()) {
          records.add(JSON.readTree(line));
        }
      }
      return records;
    } catch (IOException e) {
      throw new UncheckedIOException(file.toString(), e);
    }
  }

  /** {@code Record.key()} of a record in its JSON form: group/kind/namespace/name. */
  static String key(JsonNode record) {
    return io.kollect.testing.SequencedRecordReceiver.key(record);
  }

  @Override
  public String toString() {
    return name;
  }
}

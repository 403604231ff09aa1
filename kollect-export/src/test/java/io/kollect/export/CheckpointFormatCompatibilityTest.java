package io.kollect.export;

import static io.kollect.export.FileCheckpointLogTest.entries;
import static io.kollect.export.FileCheckpointLogTest.entry;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file checkpoint's format did not change when compaction started writing the caller's state
 * (still version 3), so an upgrade and a rollback both keep their checkpoints. The previous release
 * is represented by what it wrote: a snapshot and a log of three deltas under {@code
 * checkpoint-format-3/} in the test resources, written once by that release's store for target
 * {@code t}, sink {@code s}. This release must read them and compact them to the same state, and
 * what it writes must have the JSON shape of those files: the fields the previous release binds,
 * with the same JSON types, version 3, log lines under a valid CRC-32C of the snapshot's
 * generation.
 */
class CheckpointFormatCompatibilityTest {

  private static final String FIXTURES = "/checkpoint-format-3/";
  private static final String SNAPSHOT = "t.s.checkpoint.json";
  private static final String LOG = "t.s.checkpoint.log";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /**
   * The state the fixtures hold: five entries saved, then one delta changing obj-1 and adding
   * "added", one removing obj-2, one changing obj-3 and removing obj-4.
   */
  private static Map<String, ExportedEntry> stateOfTheFixtures() {
    Map<String, ExportedEntry> state = new HashMap<>(entries(5, 1));
    for (ExportedEntry e : List.of(entry("obj-1", 2), entry("added", 1), entry("obj-3", 3))) {
      state.put(e.key(), e);
    }
    state.remove(entry("obj-2", 1).key());
    state.remove(entry("obj-4", 1).key());
    return state;
  }

  @Test
  void thisReleaseLoadsWhatThePreviousOneWroteAndCompactsItToTheSameState() throws IOException {
    Files.write(dir.resolve(SNAPSHOT), fixture(SNAPSHOT));
    Files.write(dir.resolve(LOG), fixture(LOG));

    FileCheckpointStore store = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> model = new HashMap<>(store.load("t", "s"));
    assertThat(model).isEqualTo(stateOfTheFixtures());

    FileCheckpointLogTest.applyUntilCompacted(store, model, 5);
    assertThat(JSON.readTree(store.file("t", "s").toFile()).get("generation").asLong())
        .isEqualTo(2);
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }

  @Test
  void aSnapshotAndLogLinesThisReleaseWritesHaveTheVersion3ShapeThePreviousReleaseReads()
      throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    Map<String, ExportedEntry> model = new HashMap<>(store.load("t", "s"));
    model.putAll(entries(50, 1));
    store.apply("t", "s", Map.copyOf(model), Set.of(), () -> Map.copyOf(model));
    FileCheckpointLogTest.applyUntilCompacted(store, model, 50);
    ExportedEntry after = entry("after", 1);
    String removed = entry("obj-3", 1).key();
    model.put(after.key(), after);
    model.remove(removed);
    store.apply("t", "s", Map.of(after.key(), after), Set.of(removed), () -> Map.copyOf(model));

    JsonNode previousSnapshot = JSON.readTree(fixture(SNAPSHOT));
    JsonNode previousDelta = logLines(fixture(LOG)).get(0);
    Object entryShape = shape(previousSnapshot.get("entries").elements().next());

    JsonNode snapshot = JSON.readTree(store.file("t", "s").toFile());
    assertThat(shapeWithout(snapshot, "entries")).isEqualTo(shapeWithout(previousSnapshot,
        "entries"));
    assertThat(snapshot.get("version").asInt()).isEqualTo(3);
    assertThat(snapshot.get("target").asText()).isEqualTo("t");
    assertThat(snapshot.get("sink").asText()).isEqualTo("s");
    assertEntries(snapshot.get("entries"), entryShape);

    List<JsonNode> lines =
        logLines(Files.readAllBytes(CheckpointDirectory.logFile(store.file("t", "s"))));
    assertThat(lines).hasSize(1);
    JsonNode delta = lines.get(0);
    assertThat(shapeWithout(delta, "upserts")).isEqualTo(shapeWithout(previousDelta, "upserts"));
    assertThat(delta.get("version").asInt()).isEqualTo(3);
    assertThat(delta.get("generation")).isEqualTo(snapshot.get("generation"));
    assertThat(delta.get("removed").get(0).asText()).isEqualTo(removed);
    assertEntries(delta.get("upserts"), entryShape);

    // and what those bytes bind to is the state this release was given
    Map<String, ExportedEntry> bound = new HashMap<>();
    snapshot.get("entries").fields().forEachRemaining(f -> bound.put(f.getKey(), bind(f.getValue())));
    delta.get("removed").forEach(k -> bound.remove(k.asText()));
    delta.get("upserts").fields().forEachRemaining(f -> bound.put(f.getKey(), bind(f.getValue())));
    assertThat(bound).isEqualTo(model);
  }

  /** Every entry of a snapshot's or delta's map has the previous release's entry shape. */
  private static void assertEntries(JsonNode map, Object entryShape) {
    assertThat(map.isObject()).isTrue();
    assertThat(map.size()).isPositive();
    map.fields().forEachRemaining(f -> {
      assertThat(shape(f.getValue())).as(f.getKey()).isEqualTo(entryShape);
      assertThat(Instant.parse(f.getValue().get("lastSentAt").asText())).isNotNull();
    });
  }

  private static ExportedEntry bind(JsonNode entry) {
    try {
      return JSON.treeToValue(entry, ExportedEntry.class);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Field names and JSON types of an object, nested objects included: what a reader binds. */
  private static Map<String, Object> shape(JsonNode node) {
    Map<String, Object> out = new TreeMap<>();
    node.fields().forEachRemaining(f -> out.put(f.getKey(),
        f.getValue().isObject() ? shape(f.getValue()) : f.getValue().getNodeType()));
    return out;
  }

  /** The shape of a document whose {@code map} field is keyed by record keys, that field typed. */
  private static Map<String, Object> shapeWithout(JsonNode node, String map) {
    Map<String, Object> out = shape(node);
    out.put(map, node.get(map).getNodeType());
    return out;
  }

  /** The JSON of each log line, after checking its CRC-32C prefix as the previous release does. */
  private static List<JsonNode> logLines(byte[] log) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : new String(log, StandardCharsets.UTF_8).split("\n")) {
      assertThat(line).matches("[0-9a-f]{8} \\{.*\\}");
      byte[] json = line.substring(9).getBytes(StandardCharsets.UTF_8);
      CRC32C crc = new CRC32C();
      crc.update(json);
      assertThat(HexFormat.fromHexDigitsToLong(line.substring(0, 8))).isEqualTo(crc.getValue());
      out.add(JSON.readTree(json));
    }
    return out;
  }

  private static byte[] fixture(String name) throws IOException {
    try (InputStream in = CheckpointFormatCompatibilityTest.class.getResourceAsStream(
        FIXTURES + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }
}

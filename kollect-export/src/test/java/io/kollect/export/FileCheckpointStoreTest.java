package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kollect.extract.GroupVersionKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileCheckpointStoreTest {

  @TempDir Path dir;

  static final ExportedEntry A = new ExportedEntry(new GroupVersionKind("apps", "v1", "Deployment"),
      "ns", "a", "uid-a", "p1", "h1", "c1");
  static final ExportedEntry CLUSTER_SCOPED = new ExportedEntry(
      new GroupVersionKind("", "v1", "Namespace"), null, "kube-system", "uid-ks", "p1", "h2", null);

  @Test
  void savedEntriesLoadBackEqual() {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("ns/target", "http", Map.of(A.key(), A, CLUSTER_SCOPED.key(), CLUSTER_SCOPED));
    Map<String, ExportedEntry> loaded = new FileCheckpointStore(dir).load("ns/target", "http");
    assertThat(loaded).containsExactlyInAnyOrderEntriesOf(
        Map.of(A.key(), A, CLUSTER_SCOPED.key(), CLUSTER_SCOPED));
  }

  @Test
  void missingCheckpointIsEmpty() {
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEmpty();
  }

  @Test
  void corruptFileIsTreatedAsEmptyAndOverwrittenByTheNextSave() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", Map.of(A.key(), A));
    Path file = store.file("t", "s");
    Files.writeString(file, "{\"version\":1,\"target\":\"t\",\"sink\":\"s\",\"entries\":{\"k\":");
    assertThat(store.load("t", "s")).isEmpty();
    store.save("t", "s", Map.of(A.key(), A));
    assertThat(store.load("t", "s")).containsOnlyKeys(A.key());
  }

  @Test
  void fileOfAnotherTargetIsNotTrusted() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("other", "s", Map.of(A.key(), A));
    Files.copy(store.file("other", "s"), store.file("t", "s"));
    assertThat(store.load("t", "s")).isEmpty();
  }

  @Test
  void writesLeaveNoTemporaryFilesAndOneFilePerTargetAndSink() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    for (int i = 0; i < 5; i++) {
      store.save("ns/t", "s", Map.of(A.key(), A));
    }
    store.save("ns/t", "s2", Map.of());
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("ns%2Ft.s.checkpoint.json", "ns%2Ft.s2.checkpoint.json");
    }
  }

  @Test
  void namesThatLookAlikeAfterEscapingStillGetDistinctFiles() {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    assertThat(store.file("a.b", "c")).isNotEqualTo(store.file("a", "b.c"));
    assertThat(store.file("../x", "s").getParent()).isEqualTo(dir);
    String longName = "n".repeat(300);
    Path f = store.file(longName, "s");
    assertThat(f.getFileName().toString().length()).isLessThan(255);
    assertThat(f).isNotEqualTo(store.file(longName + "x", "s"));
  }

  @Test
  void deleteRemovesTheCheckpoint() {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", Map.of(A.key(), A));
    store.delete("t", "s");
    assertThat(store.load("t", "s")).isEmpty();
    store.delete("t", "s");
  }

  @Test
  void leftoverTemporaryFilesAreRemovedOnStart() throws IOException {
    Files.writeString(dir.resolve("t.s.checkpoint.json.1.tmp"), "{");
    new FileCheckpointStore(dir);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void fileHasTheDocumentedFormat() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    ExportedEntry sent = A.withSequence(1767225600000001L)
        .withLastSentAt(Instant.parse("2026-01-01T00:00:01Z"));
    store.save("t", "s", Map.of(A.key(), sent));
    assertThat(Files.readString(store.file("t", "s"))).isEqualTo(
        "{\"version\":3,\"target\":\"t\",\"sink\":\"s\",\"generation\":1,"
            + "\"entries\":{\"apps/Deployment/ns/a\":"
            + "{\"resource\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},"
            + "\"namespace\":\"ns\",\"name\":\"a\",\"uid\":\"uid-a\",\"profile\":\"p1\","
            + "\"contentHash\":\"h1\",\"cluster\":\"c1\",\"sequence\":1767225600000001,"
            + "\"lastSentAt\":\"2026-01-01T00:00:01Z\"}}}");
    assertThat(store.load("t", "s")).containsExactly(Map.entry(A.key(), sent));
  }

  @Test
  void aVersionOneCheckpointWrittenBeforeSequencesExistedIsReadOnUpgrade() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    // byte for byte what the previous release wrote
    Files.writeString(store.file("t", "s"),
        "{\"version\":1,\"target\":\"t\",\"sink\":\"s\",\"entries\":{\"apps/Deployment/ns/a\":"
            + "{\"resource\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},"
            + "\"namespace\":\"ns\",\"name\":\"a\",\"uid\":\"uid-a\",\"profile\":\"p1\","
            + "\"contentHash\":\"h1\",\"cluster\":\"c1\"}}}");
    Map<String, ExportedEntry> loaded = store.load("t", "s");
    assertThat(loaded).containsExactly(Map.entry(A.key(), A));
    assertThat(loaded.get(A.key()).sequence()).isNull();
    assertThat(loaded.get(A.key()).lastSentAt()).isNull();
  }

  @Test
  void aCheckpointOfANewerFormatVersionIsNotMisreadButTreatedAsEmpty() throws IOException {
    FileCheckpointStore store = new FileCheckpointStore(dir);
    store.save("t", "s", Map.of(A.key(), A));
    Path file = store.file("t", "s");
    Files.writeString(file, Files.readString(file).replace("\"version\":3", "\"version\":4"));
    assertThat(store.load("t", "s")).isEmpty();
  }

  @Test
  void entriesRoundTripThroughAPlainObjectMapperWithoutTimeModule() throws IOException {
    // the operator's ConfigMap store serializes entries with such a mapper
    ObjectMapper plain = new ObjectMapper();
    ExportedEntry sent = A.withSequence(42L).withLastSentAt(Instant.parse("2026-01-01T00:00:01Z"));
    String json = plain.writeValueAsString(Map.of(A.key(), sent));
    assertThat(json).contains("\"lastSentAt\":\"2026-01-01T00:00:01Z\"").contains("\"sequence\":42");
    Map<String, ExportedEntry> back = plain.readValue(json,
        new TypeReference<Map<String, ExportedEntry>>() {});
    assertThat(back).containsExactly(Map.entry(A.key(), sent));
  }
}

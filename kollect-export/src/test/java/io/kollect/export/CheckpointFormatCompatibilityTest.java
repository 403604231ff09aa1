package io.kollect.export;

import static io.kollect.export.FileCheckpointLogTest.entries;
import static io.kollect.export.FileCheckpointLogTest.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file checkpoint's format did not change when compaction started writing the caller's state:
 * the previous release ({@link PreviousFileCheckpointStore}, a frozen copy) reads what this one
 * writes, snapshots of either kind of compaction and the log lines after them, and this one reads
 * what the previous one wrote, so an upgrade and a rollback both keep their checkpoints.
 */
class CheckpointFormatCompatibilityTest {

  @TempDir Path dir;

  @Test
  void thePreviousReleaseReadsASnapshotCompactedFromTheCallersStateAndTheLogAfterIt()
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

    PreviousFileCheckpointStore previous = new PreviousFileCheckpointStore(dir);
    assertThat(previous.load("t", "s")).isEqualTo(model);

    // and the previous release appends on top of it where it left off
    ExportedEntry rolledBack = entry("rolled-back", 1);
    previous.apply("t", "s", Map.of(rolledBack.key(), rolledBack), Set.of());
    model.put(rolledBack.key(), rolledBack);
    assertThat(new FileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }

  @Test
  void thisReleaseReadsWhatThePreviousOneWroteAndCompactsItFromTheCallersState()
      throws IOException {
    PreviousFileCheckpointStore previous = new PreviousFileCheckpointStore(dir);
    Map<String, ExportedEntry> model = new HashMap<>(entries(50, 1));
    previous.save("t", "s", model);
    for (int round = 2; round < 20; round++) {
      ExportedEntry e = entry("obj-" + round, round);
      previous.apply("t", "s", Map.of(e.key(), e), Set.of());
      model.put(e.key(), e);
    }

    FileCheckpointStore store = new FileCheckpointStore(dir);
    assertThat(store.load("t", "s")).isEqualTo(model);
    FileCheckpointLogTest.applyUntilCompacted(store, model, 50);
    assertThat(Files.readString(store.file("t", "s"))).contains("\"generation\":2");
    assertThat(new PreviousFileCheckpointStore(dir).load("t", "s")).isEqualTo(model);
  }
}

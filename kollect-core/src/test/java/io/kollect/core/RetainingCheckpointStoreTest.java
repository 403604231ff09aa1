package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.export.CheckpointStore;
import io.kollect.export.ExportedEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RetainingCheckpointStoreTest {

  /** A host store that records which calls reach it. */
  static final class RecordingStore implements CheckpointStore {
    final List<String> calls = new ArrayList<>();

    @Override
    public Map<String, ExportedEntry> load(String target, String sink) {
      calls.add("load " + target + " " + sink);
      return Map.of();
    }

    @Override
    public void save(String target, String sink, Map<String, ExportedEntry> entries) {
      calls.add("save " + target + " " + sink);
    }

    @Override
    public void apply(String target, String sink, Map<String, ExportedEntry> changed,
        Set<String> removed) {
      calls.add("apply " + target + " " + sink + " " + removed);
    }

    @Override
    public void delete(String target, String sink) {
      calls.add("delete " + target + " " + sink);
    }
  }

  @Test
  void deltasReachTheHostStoreAsDeltasNotAsALoadAndAWholeSave() {
    RecordingStore host = new RecordingStore();
    RetainingCheckpointStore store = new RetainingCheckpointStore(host);

    store.apply("t", "s", Map.of(), Set.of("k"));

    assertThat(host.calls).containsExactly("apply t s [k]");
  }

  @Test
  void deletesAreDroppedOnlyWhileSteppingDown() {
    RecordingStore host = new RecordingStore();
    RetainingCheckpointStore store = new RetainingCheckpointStore(host);

    store.retainingDuring(() -> store.delete("t", "s"));
    store.delete("t", "other");

    assertThat(host.calls).containsExactly("delete t other");
  }
}

package io.kollect.operator.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kollect.export.ExportedEntry;
import io.kollect.extract.GroupVersionKind;
import io.kollect.operator.checkpoint.CheckpointObjects.Delta;
import io.kollect.operator.checkpoint.CheckpointObjects.Listing;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint's objects read back, and what a new snapshot supersedes among them, without an API
 * server: what survives a compaction or a write interrupted at each point ({@code
 * ConfigMapCheckpointStoreIT} proves the same through a real one, with the store writing the
 * objects).
 */
class CheckpointObjectsTest {

  private static final GroupVersionKind CM = new GroupVersionKind("", "v1", "ConfigMap");
  private static final String ID = "kollect-checkpoint-0123456789abcdef0123";

  @Test
  void aNewestGenerationWithAPartMissingIsPassedOverForTheOlderCompleteOne() {
    List<ConfigMap> objects = new ArrayList<>(snapshot(1, 0, entries("a", "b"), 1));
    // generation 2 was being written in two parts when the writer died: only the first is there
    objects.add(snapshot(2, 0, entries("a", "b", "c"), 2).get(0));

    Listing l = CheckpointObjects.parse(ID, objects);

    assertThat(l.lost()).isFalse();
    assertThat(l.generation()).isEqualTo(1);
    assertThat(l.highest()).isEqualTo(2);
    assertThat(l.entries()).containsOnlyKeys("a", "b");
  }

  @Test
  void partsOfTwoWritesOfOneGenerationAreNotTakenForOneSnapshot() {
    List<ConfigMap> first = snapshot(1, 0, entries("a", "b"), 2);
    List<ConfigMap> second = snapshot(1, 0, entries("x", "y"), 2);

    Listing l = CheckpointObjects.parse(ID, List.of(first.get(0), second.get(1)));

    assertThat(l.lost()).isTrue();
    assertThat(l.entries()).isEmpty();
  }

  @Test
  void deltasAboveTheSnapshotApplyInSequenceOrderAndThoseItContainsAreSkipped() {
    List<ConfigMap> objects = new ArrayList<>(snapshot(1, 2, entries("a"), 1));
    objects.add(delta(4, new Delta(Map.of(), List.of("b"))));
    objects.add(delta(3, new Delta(entries("b", "c"), List.of())));
    // sequence 2 is in the snapshot: had it been applied, "stale" would be back
    objects.add(delta(2, new Delta(entries("stale"), List.of())));

    Listing l = CheckpointObjects.parse(ID, objects);

    assertThat(l.lost()).isFalse();
    assertThat(l.entries()).containsOnlyKeys("a", "c");
    assertThat(l.through()).isEqualTo(2);
    assertThat(l.maxSeq()).isEqualTo(4);
    assertThat(l.deltas()).isEqualTo(2);
  }

  @Test
  void anObjectOfANewerFormatMakesTheWholeCheckpointReadAsEmpty() {
    List<ConfigMap> objects = new ArrayList<>(snapshot(1, 0, entries("a"), 1));
    ConfigMap newer = delta(1, new Delta(entries("b"), List.of()));
    newer.getMetadata().getAnnotations().put(CheckpointObjects.FORMAT,
        Integer.toString(CheckpointObjects.FORMAT_VERSION + 1));
    objects.add(newer);

    Listing l = CheckpointObjects.parse(ID, objects);

    assertThat(l.lost()).isTrue();
    assertThat(l.entries()).isEmpty();
    assertThat(l.maxSeq()).isEqualTo(1);
  }

  @Test
  void noObjectsAreAnEmptyCheckpointNotALostOne() {
    Listing l = CheckpointObjects.parse(ID, List.of());

    assertThat(l.lost()).isFalse();
    assertThat(l.entries()).isEmpty();
    assertThat(l.generation()).isZero();
  }

  @Test
  void aNewSnapshotSupersedesOlderGenerationsWholeAndTheDeltasItContainsByBase() {
    List<ConfigMap> objects = new ArrayList<>(snapshot(1, 0, entries("a"), 2));
    objects.add(delta(1, 1, new Delta(entries("b"), List.of())));
    objects.add(delta(2, 1, new Delta(entries("c"), List.of())));
    List<ConfigMap> written = snapshot(2, 2, entries("a", "b", "c"), 1);
    objects.addAll(written);

    CheckpointObjects.Superseded s = CheckpointObjects.superseded(objects, written, 2);

    assertThat(s.generations()).containsExactly("1");
    assertThat(s.bases()).containsExactly("1");
    assertThat(s.names()).isEmpty();
  }

  @Test
  void aDeltaNewerThanTheSnapshotSurvivesAndItsBaseGoesOnlyByName() {
    List<ConfigMap> objects = new ArrayList<>(snapshot(1, 0, entries("a"), 1));
    objects.add(delta(1, 1, new Delta(entries("b"), List.of())));
    // appended while the compaction wrote generation 2 from a listing through sequence 1
    objects.add(delta(2, 1, new Delta(entries("c"), List.of())));
    List<ConfigMap> written = snapshot(2, 1, entries("a", "b"), 1);

    CheckpointObjects.Superseded s = CheckpointObjects.superseded(objects, written, 1);

    assertThat(s.bases()).isEmpty();
    assertThat(s.names()).containsExactly(ID + "-d1");
    assertThat(s.generations()).containsExactly("1");
  }

  @Test
  void aLeftoverPartOfTheGenerationJustWrittenGoesByNameAndItsOwnPartsStay() {
    // an earlier write of generation 2 left three parts; this one wrote two
    List<ConfigMap> objects = new ArrayList<>(snapshot(2, 0, entries("x", "y", "z"), 3));
    List<ConfigMap> written = snapshot(2, 0, entries("a"), 2);

    CheckpointObjects.Superseded s = CheckpointObjects.superseded(objects, written, 0);

    assertThat(s.generations()).isEmpty();
    assertThat(s.names()).containsExactly(ID + "-s2-2");
  }

  private static Map<String, ExportedEntry> entries(String... keys) {
    Map<String, ExportedEntry> out = new TreeMap<>();
    for (String key : keys) {
      out.put(key, new ExportedEntry(CM, "ns", key, "uid-" + key, "p", "hash-" + key));
    }
    return out;
  }

  /** A generation's parts as the store writes them (see {@code ConfigMapCheckpointStore}). */
  private static List<ConfigMap> snapshot(long generation, long through,
      Map<String, ExportedEntry> entries, int parts) {
    byte[] json = CheckpointObjects.json(entries);
    byte[] gz = CheckpointObjects.gzip(json);
    String digest = CheckpointObjects.digest(json);
    int size = (gz.length + parts - 1) / parts;
    List<ConfigMap> out = new ArrayList<>();
    for (int i = 0; i < parts; i++) {
      byte[] chunk = Arrays.copyOfRange(gz, Math.min(gz.length, i * size),
          Math.min(gz.length, (i + 1) * size));
      out.add(object(ID + "-s" + generation + "-" + i)
          .editMetadata()
          .addToAnnotations(CheckpointObjects.GENERATION, Long.toString(generation))
          .addToLabels(CheckpointObjects.GENERATION_LABEL, Long.toString(generation))
          .addToAnnotations(CheckpointObjects.PARTS, Integer.toString(parts))
          .addToAnnotations(CheckpointObjects.DIGEST, digest)
          .addToAnnotations(CheckpointObjects.THROUGH, Long.toString(through))
          .endMetadata()
          .addToBinaryData(CheckpointObjects.KEY, Base64.getEncoder().encodeToString(chunk))
          .build());
    }
    return out;
  }

  private static ConfigMap delta(long seq, Delta delta) {
    return delta(seq, 0, delta);
  }

  /** A delta written while {@code base} was the newest generation (see the store's compaction). */
  private static ConfigMap delta(long seq, long base, Delta delta) {
    byte[] gz = CheckpointObjects.gzip(CheckpointObjects.json(delta));
    return object(ID + "-d" + seq)
        .editMetadata().addToAnnotations(CheckpointObjects.SEQ, Long.toString(seq))
        .addToLabels(CheckpointObjects.BASE, Long.toString(base)).endMetadata()
        .addToBinaryData(CheckpointObjects.DELTA_KEY, Base64.getEncoder().encodeToString(gz))
        .build();
  }

  private static ConfigMapBuilder object(String name) {
    return new ConfigMapBuilder().withNewMetadata()
        .withName(name)
        .addToLabels(ConfigMapCheckpointStore.LABEL, ID)
        .addToAnnotations(CheckpointObjects.FORMAT,
            Integer.toString(CheckpointObjects.FORMAT_VERSION))
        .endMetadata();
  }
}

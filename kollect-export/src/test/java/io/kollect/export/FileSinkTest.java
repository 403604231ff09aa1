package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.extract.Record;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSinkTest {

  @TempDir Path dir;

  private static List<String> lines(Path f) throws IOException {
    String text = Files.readString(f, StandardCharsets.UTF_8);
    assertThat(text).as("%s ends with a complete line", f).satisfiesAnyOf(
        t -> assertThat(t).isEmpty(), t -> assertThat(t).endsWith("\n"));
    return text.lines().toList();
  }

  @Test
  void rotatesBySizeKeepingBoundedFilesOfWholeParseableLines() throws Exception {
    Path file = dir.resolve("out/records.jsonl");
    long maxBytes = 8 * 1024;
    try (FileSink sink = new FileSink("file", file, maxBytes, 3)) {
      int seq = 0;
      for (int batch = 0; batch < 40; batch++) {
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
          records.add(record("t", "obj-" + seq, seq));
          seq++;
        }
        sink.write(records);
      }
    }
    try (Stream<Path> files = Files.list(file.getParent())) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(
          "records.jsonl", "records.jsonl.1", "records.jsonl.2", "records.jsonl.3");
    }
    long previousLast = Long.MAX_VALUE;
    // newest file first: sequence numbers strictly decrease across .0 -> .1 -> .2 -> .3
    for (Path f : List.of(file, file.resolveSibling("records.jsonl.1"),
        file.resolveSibling("records.jsonl.2"), file.resolveSibling("records.jsonl.3"))) {
      assertThat(Files.size(f)).isLessThanOrEqualTo(maxBytes);
      List<String> lines = lines(f);
      assertThat(lines).isNotEmpty();
      List<Long> seqs = lines.stream().map(RecordJson::parse).map(TestRecords::seq).toList();
      assertThat(seqs).isSorted();
      assertThat(seqs.get(seqs.size() - 1)).isLessThan(previousLast);
      previousLast = seqs.get(0);
    }
    assertThat(lines(file).stream().map(RecordJson::parse).map(TestRecords::seq).toList())
        .endsWith(679L);
  }

  @Test
  void appendsAcrossRestartsAndCutsATornTailLeftByACrash() throws Exception {
    Path file = dir.resolve("records.jsonl");
    try (FileSink sink = new FileSink("file", file)) {
      sink.write(List.of(record("t", "a", 1), record("t", "b", 1)));
    }
    Files.writeString(file, "{\"op\":\"UPSERT\",\"clus", StandardOpenOption.APPEND);
    try (FileSink sink = new FileSink("file", file)) {
      sink.write(List.of(record("t", "c", 1)));
    }
    assertThat(lines(file).stream().map(RecordJson::parse).map(Record::name))
        .containsExactly("a", "b", "c");
  }

  @Test
  void aLineLongerThanTheLimitIsWrittenWhole() throws Exception {
    Path file = dir.resolve("records.jsonl");
    try (FileSink sink = new FileSink("file", file, 100, 2)) {
      sink.write(List.of(record("t", "a", 1), record("t", "b", 2), record("t", "c", 3)));
    }
    assertThat(lines(file)).hasSize(1);
    assertThat(lines(file.resolveSibling("records.jsonl.1"))).hasSize(1);
    assertThat(lines(file.resolveSibling("records.jsonl.2"))).hasSize(1);
    assertThat(RecordJson.parse(lines(file).get(0)).name()).isEqualTo("c");
  }

  @Test
  void unwritableLocationIsARetryableFailure() throws Exception {
    Path blocker = dir.resolve("not-a-dir");
    Files.writeString(blocker, "x");
    FileSink sink = new FileSink("file", blocker.resolve("records.jsonl"));
    assertThatThrownBy(() -> sink.write(List.of(record("t", "a", 1))))
        .isInstanceOfSatisfying(SinkException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageContaining("records.jsonl");
  }

  @Test
  void badSettingsAreRejectedNamingTheField() {
    assertThatThrownBy(() -> new FileSink("f", dir.resolve("x"), -1, 1))
        .hasMessageStartingWith("maxBytes:");
    assertThatThrownBy(() -> new FileSink("f", dir.resolve("x"), 10, -1))
        .hasMessageStartingWith("keptFiles:");
  }
}

package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.kollect.extract.GroupVersionKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The file checkpoint's entry writer writes exactly the bean form, and it reads back equal. */
class CheckpointEntryJsonTest {

  /** The entry's bean form under the file store's inclusion rule. */
  static final ObjectMapper BEAN = new ObjectMapper()
      .setSerializationInclusion(JsonInclude.Include.ALWAYS);
  static final ObjectMapper WRITER = new ObjectMapper()
      .setSerializationInclusion(JsonInclude.Include.ALWAYS)
      .registerModule(new SimpleModule().addSerializer(ExportedEntry.class,
          new CheckpointEntryJson()));

  /** Every field present and absent in turn, plus text that needs escaping. */
  static List<ExportedEntry> entries() {
    GroupVersionKind core = new GroupVersionKind("", "v1", "ConfigMap");
    GroupVersionKind apps = new GroupVersionKind("apps", "v1", "Deployment");
    Instant t1 = Instant.parse("2026-11-29T03:00:00Z");
    Instant t2 = Instant.parse("2026-11-29T03:00:00.123456Z");
    String hash = "a".repeat(64);
    List<ExportedEntry> out = new ArrayList<>();
    out.add(new ExportedEntry(apps, "ns", "web", "uid-1", "p", hash, "c1", 1_767_225_600_000_001L, t1));
    out.add(new ExportedEntry(core, null, "cluster-scoped", "uid-2", "p", hash, "c1", 7L, t2));
    out.add(new ExportedEntry(core, "ns", "n", null, null, null, null, null, null));
    out.add(new ExportedEntry(core, "ns", "no-time", "u", "p", hash, "c", 3L, null));
    out.add(new ExportedEntry(core, "ns", "no-sequence", "u", "p", hash, "c", null, t1));
    out.add(new ExportedEntry(apps, "ns", "quote\"back\\slash\u00e9\u2028", "u", "p\n", hash,
        "c\t", 9L, t1));
    return out;
  }

  @Test
  void writesTheBeanFormFieldForField() throws Exception {
    for (ExportedEntry e : entries()) {
      assertThat(WRITER.writeValueAsString(e)).as(e.toString())
          .isEqualTo(BEAN.writeValueAsString(e));
    }
  }

  @Test
  void whatItWritesReadsBackAsTheSameEntry() throws Exception {
    for (ExportedEntry e : entries()) {
      assertThat(BEAN.readValue(WRITER.writeValueAsBytes(e), ExportedEntry.class)).isEqualTo(e);
    }
  }

  @Test
  void entriesOfOnePassSharingASendTimeAndThenANewOneEachWriteTheirOwn() throws Exception {
    GroupVersionKind core = new GroupVersionKind("", "v1", "ConfigMap");
    Instant t1 = Instant.parse("2026-11-29T03:00:00Z");
    Instant t2 = t1.plusMillis(1);
    for (Instant t : List.of(t1, t1, t2, t1)) {
      ExportedEntry e = new ExportedEntry(core, "ns", "n", "u", "p", null, "c", 1L, t);
      assertThat(BEAN.readValue(WRITER.writeValueAsBytes(e), ExportedEntry.class).lastSentAt())
          .isEqualTo(t);
    }
  }
}

package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The record writer behind {@link Records#mapper()} writes exactly the record's bean form. */
class RecordWriterTest {

  /** {@link Records#mapper()} as it was configured before it had the writer. */
  static final ObjectMapper BEAN = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  static List<Record> records() throws Exception {
    ObjectMapper m = Records.mapper();
    Record extracted = TestObjects.profile(CompiledProfileTest.DEPLOYMENTS)
        .extract(TestObjects.resource("deployment.yaml"), TestObjects.CTX).orElseThrow();
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    fields.put("z", m.readTree("{\"b\":[3,{\"y\":1.5,\"x\":null}],\"a\":\"\u00e9\\\"\"}"));
    fields.put("text", m.readTree("\"line\\nbreak \u2028\""));
    fields.put("big", m.readTree("123456789012345678901234567890"));
    fields.put("on", m.readTree("false"));
    fields.put("absent", null);
    Map<String, String> labels = new HashMap<>();
    labels.put("app", "web");
    labels.put("none", null);
    GroupVersionKind core = new GroupVersionKind("", "v1", "ConfigMap");
    List<Record> out = new ArrayList<>();
    out.add(extracted);
    out.add(extracted.withSequence(1_767_225_600_000_001L));
    out.add(extracted.tombstone(Instant.parse("2024-05-02T00:00:00.123456789Z")));
    out.add(new Record(Op.UPSERT, "c", "ns/t", "p", core, null, "cluster-wide", "u", "1",
        Instant.parse("2026-11-29T04:00:00.5Z"), "h", fields, labels, Map.of("a", "b")));
    out.add(new Record(Op.DELETE, null, null, null, core, "ns", "n", null, null, null, null,
        Map.of(), Map.of(), Map.of()));
    return out;
  }

  @Test
  void writesTheBeanFormKeyForKey() throws Exception {
    for (Record r : records()) {
      assertThat(Records.toJsonLine(r)).as(r.toString()).isEqualTo(BEAN.writeValueAsString(r));
      assertThat(Records.mapper().writeValueAsString(List.of(r, r)))
          .isEqualTo(BEAN.writeValueAsString(List.of(r, r)));
    }
  }

  @Test
  void eachRecordIsWrittenWithItsOwnObservedAtWhenInstantsRepeatAndAlternate() throws Exception {
    Record r = records().get(0);
    Instant a = Instant.parse("2026-11-29T04:00:00.5Z");
    List<Instant> times = List.of(a, Instant.parse("2026-11-29T04:00:00.500Z"), a.plusNanos(1),
        a, Instant.EPOCH, a.plusSeconds(3600));
    List<Record> written = new ArrayList<>();
    for (Instant t : times) {
      written.add(r.tombstone(t));
      written.add(r.tombstone(t));
    }
    written.add(r.tombstone(null));
    for (Record w : written) {
      assertThat(Records.toJsonLine(w)).as(w.toString()).isEqualTo(BEAN.writeValueAsString(w));
    }
    assertThat(Records.mapper().writeValueAsString(written))
        .isEqualTo(BEAN.writeValueAsString(written));
  }

  @Test
  void whatItWritesReadsBackAsTheBeanFormDid() throws Exception {
    for (Record r : records()) {
      assertThat(Records.fromJson(Records.toJsonLine(r)))
          .isEqualTo(BEAN.readValue(BEAN.writeValueAsString(r), Record.class));
      assertThat(Records.toTree(r)).isEqualTo(BEAN.valueToTree(r));
    }
  }
}

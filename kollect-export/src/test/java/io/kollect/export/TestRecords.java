package io.kollect.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds records whose content is a per-key sequence number, so receivers can check ordering. */
final class TestRecords {

  static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private TestRecords() {}

  static Record record(String target, String name, long seq) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    fields.put("seq", new IntNode((int) seq));
    fields.put("image", new TextNode("app:" + seq));
    return new Record(Op.UPSERT, "c1", target, "p1", DEPLOYMENT, "ns", name, "uid-" + name,
        String.valueOf(seq), T0.plusSeconds(seq), "hash-" + name + "-" + seq, fields,
        Map.of("app", name), Map.of());
  }

  /** Records {@code obj-0..obj-(n-1)}, all at sequence {@code seq}. */
  static List<Record> records(String target, int n, long seq) {
    List<Record> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(record(target, "obj-" + i, seq));
    }
    return out;
  }

  static String key(String name) {
    return "apps/Deployment/ns/" + name;
  }

  /** {@link #key} as the exporter holds it. */
  static ExportKey exportKey(String name) {
    return ExportKey.parse(key(name));
  }

  /** A copy of a (target, sink) state's enqueued view: key to the entry last handed over. */
  static Map<ExportKey, ExportedEntry> enqueued(SinkState st) {
    Map<ExportKey, ExportedEntry> view = new HashMap<>();
    st.forEachEnqueued(view::put);
    return view;
  }

  static long seq(Record r) {
    return r.fields().get("seq").asLong();
  }
}

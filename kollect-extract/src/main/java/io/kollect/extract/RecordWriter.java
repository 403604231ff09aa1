package io.kollect.extract;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;

/**
 * Writes a {@link Record} in the record format: the same JSON, key for key and in the same order,
 * as the record's bean form under {@link Records#mapper()} ({@code null}s kept, {@code sequence}
 * left out until the exporter assigns one, {@code observedAt} as ISO-8601 text), field by field.
 *
 * <p>Why not the bean form: every record is serialised once per sink, 50,000 of them in a first
 * inventory of 50,000 objects, and Jackson's bean serializer reads each of fifteen properties
 * through an accessor found at run time, which under the shipped JVM options (only the JIT's first
 * tier) is a visible part of a first inventory's CPU (docs/benchmarks.md). Reading goes through the
 * bean form as before.
 */
final class RecordWriter extends StdSerializer<Record> {

  private record ObservedText(Instant at, String text) {}

  /**
   * The last {@code observedAt} written and its text: the records of one pass share one instant,
   * and formatting an {@link Instant} is a dozen allocations, once per record and sink otherwise.
   */
  private volatile ObservedText lastObserved =
      new ObservedText(Instant.EPOCH, Instant.EPOCH.toString());

  RecordWriter() {
    super(Record.class);
  }

  @Override
  public void serialize(Record r, JsonGenerator gen, SerializerProvider provider)
      throws IOException {
    gen.writeStartObject();
    gen.writeStringField("op", r.op() == null ? null : r.op().name());
    gen.writeStringField("cluster", r.cluster());
    gen.writeStringField("target", r.target());
    gen.writeStringField("profile", r.profile());
    gen.writeFieldName("resource");
    Records.writeResource(gen, r.resource());
    gen.writeStringField("namespace", r.namespace());
    gen.writeStringField("name", r.name());
    gen.writeStringField("uid", r.uid());
    gen.writeStringField("resourceVersion", r.resourceVersion());
    gen.writeStringField("observedAt", observedAtText(r.observedAt()));
    Long sequence = r.sequence();
    if (sequence != null) {
      gen.writeNumberField("sequence", sequence.longValue());
    }
    gen.writeFieldName("contentHash");
    Records.writeContentHash(gen, r.hash());
    gen.writeFieldName("fields");
    writeNodes(gen, r.fields(), provider);
    gen.writeFieldName("labels");
    writeTexts(gen, r.labels());
    gen.writeFieldName("annotations");
    writeTexts(gen, r.annotations());
    gen.writeEndObject();
  }

  private String observedAtText(Instant at) {
    if (at == null) {
      return null;
    }
    ObservedText last = lastObserved;
    if (!last.at().equals(at)) {
      last = new ObservedText(at, at.toString());
      lastObserved = last;
    }
    return last.text();
  }

  private static void writeNodes(JsonGenerator gen, Map<String, JsonNode> map,
      SerializerProvider provider) throws IOException {
    if (map == null) {
      gen.writeNull();
      return;
    }
    gen.writeStartObject();
    for (Map.Entry<String, JsonNode> e : map.entrySet()) {
      gen.writeFieldName(e.getKey());
      JsonNode value = e.getValue();
      if (value == null) {
        gen.writeNull();
      } else if (value.isTextual()) {
        gen.writeString(value.textValue());
      } else {
        value.serialize(gen, provider);
      }
    }
    gen.writeEndObject();
  }

  private static void writeTexts(JsonGenerator gen, Map<String, String> map) throws IOException {
    if (map == null) {
      gen.writeNull();
      return;
    }
    gen.writeStartObject();
    for (Map.Entry<String, String> e : map.entrySet()) {
      gen.writeStringField(e.getKey(), e.getValue());
    }
    gen.writeEndObject();
  }
}

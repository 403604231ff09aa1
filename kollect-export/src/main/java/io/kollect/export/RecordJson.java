package io.kollect.export;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/** The documented record JSON, through the shared {@link Records} mapper. */
final class RecordJson {

  static final ObjectMapper MAPPER = Records.mapper();
  private static final ObjectWriter WRITER = MAPPER.writerFor(Record.class);

  private RecordJson() {}

  /** A batch as one JSON array (the HTTP sink's body); {@code out} is left open. */
  static void writeArray(List<Record> records, OutputStream out) throws IOException {
    try (JsonGenerator gen = MAPPER.getFactory().createGenerator(out)) {
      gen.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      gen.writeStartArray();
      for (Record r : records) {
        WRITER.writeValue(gen, r);
      }
      gen.writeEndArray();
    }
  }

  /**
   * A batch as JSON lines, each record followed by a newline, written as UTF-8 bytes straight into
   * {@code out} (left open): {@link Records#toJsonBytes} says what that changes from encoding text.
   */
  static void writeLines(List<Record> records, OutputStream out) throws IOException {
    try (JsonGenerator gen = MAPPER.getFactory().createGenerator(out)) {
      gen.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      // between root values the generator would write a space; the newline is written instead
      gen.setRootValueSeparator(null);
      for (Record r : records) {
        WRITER.writeValue(gen, r);
        gen.writeRaw('\n');
      }
    }
  }

  static Record parse(String json) {
    return Records.fromJson(json);
  }
}

package io.kollect.export;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.kollect.extract.Records;
import java.io.IOException;
import java.time.Instant;

/**
 * Writes an {@link ExportedEntry} in the file checkpoint: the same JSON, field for field and in
 * the same order, as the entry's bean form under the file store's mapper (nulls kept, {@code
 * sequence} and {@code lastSentAt} left out when unknown), written field by field.
 *
 * <p>Why not the bean form: every acknowledged change is one entry in a log line, so a first
 * inventory of 50,000 objects writes 50,000 entries per sink. Jackson's bean serializer reads each
 * property through an accessor it finds at run time, and under the shipped JVM options (only the
 * JIT's first tier) that was most of the checkpoint's CPU beside the compactions
 * (docs/benchmarks.md). Reading goes through the bean form as before.
 */
final class CheckpointEntryJson extends StdSerializer<ExportedEntry> {

  /** Formats each send time once in a row: the entries of one pass share one send time. */
  private final ExportedEntry.InstantTextWriter sendTimes = new ExportedEntry.InstantTextWriter();

  CheckpointEntryJson() {
    super(ExportedEntry.class);
  }

  @Override
  public void serialize(ExportedEntry e, JsonGenerator gen, SerializerProvider provider)
      throws IOException {
    gen.writeStartObject();
    gen.writeFieldName("resource");
    Records.writeResource(gen, e.resource());
    gen.writeStringField("namespace", e.namespace());
    gen.writeStringField("name", e.name());
    gen.writeStringField("uid", e.uid());
    gen.writeStringField("profile", e.profile());
    gen.writeFieldName("contentHash");
    Records.writeContentHash(gen, e.hash());
    gen.writeStringField("cluster", e.cluster());
    Long sequence = e.sequence();
    if (sequence != null) {
      gen.writeNumberField("sequence", sequence.longValue());
    }
    Instant sent = e.lastSentAt();
    if (sent != null) {
      gen.writeFieldName("lastSentAt");
      sendTimes.serialize(sent, gen, provider);
    }
    gen.writeEndObject();
  }
}

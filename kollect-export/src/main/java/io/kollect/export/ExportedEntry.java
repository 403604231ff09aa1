package io.kollect.export;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.kollect.extract.GroupVersionKind;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * What is remembered of one exported object: enough to recognise an unchanged record, to build
 * its DELETE tombstone without the object, to repeat its state with the same {@code sequence}, and
 * to know when it was last sent.
 *
 * <p>Entries are checkpointed as JSON by any {@link CheckpointStore}; {@code lastSentAt} is written
 * as an ISO-8601 string by any Jackson mapper (no time module needed), and entries written before
 * {@code sequence} and {@code lastSentAt} existed read back with both {@code null}.
 *
 * @param resource the object's type
 * @param namespace namespace or {@code null}
 * @param name name
 * @param uid uid
 * @param profile profile name the record was produced by
 * @param contentHash the content hash last exported
 * @param cluster cluster the record came from, so a tombstone built after a restart still names it
 *     ({@code null} when unknown)
 * @param sequence the {@link io.kollect.extract.Record#sequence() sequence} of that state, so a
 *     heartbeat or a retry repeats it and a restart continues above it ({@code null} when unknown:
 *     a checkpoint written before sequences existed)
 * @param lastSentAt when this state of the key was last handed to the sink (a change or a
 *     heartbeat; checkpointed once the sink acknowledged it), so a restarted exporter spreads its
 *     heartbeat instead of re-sending everything at once ({@code null} when unknown)
 */
public record ExportedEntry(
    GroupVersionKind resource,
    String namespace,
    String name,
    String uid,
    String profile,
    String contentHash,
    String cluster,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long sequence,
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonSerialize(using = ToStringSerializer.class)
    @JsonDeserialize(using = ExportedEntry.InstantText.class)
    Instant lastSentAt) {

  /** An entry without sequence and send time (kept for callers written before they existed). */
  public ExportedEntry(
      GroupVersionKind resource,
      String namespace,
      String name,
      String uid,
      String profile,
      String contentHash,
      String cluster) {
    this(resource, namespace, name, uid, profile, contentHash, cluster, null, null);
  }

  /** An entry without a cluster name (kept for callers written before {@code cluster} existed). */
  public ExportedEntry(
      GroupVersionKind resource,
      String namespace,
      String name,
      String uid,
      String profile,
      String contentHash) {
    this(resource, namespace, name, uid, profile, contentHash, null, null, null);
  }

  /** The entry remembered for an exported UPSERT record (its sequence included, if it has one). */
  public static ExportedEntry of(io.kollect.extract.Record record) {
    return new ExportedEntry(record.resource(), record.namespace(), record.name(), record.uid(),
        record.profile(), record.contentHash(), record.cluster(), record.sequence(), null);
  }

  /** The entry for a record handed to a sink at {@code when} (its sequence included). */
  static ExportedEntry sent(io.kollect.extract.Record record, Instant when) {
    return new ExportedEntry(record.resource(), record.namespace(), record.name(), record.uid(),
        record.profile(), record.contentHash(), record.cluster(), record.sequence(), when);
  }

  /** This entry with {@code sequence}; everything else unchanged. */
  public ExportedEntry withSequence(Long seq) {
    return new ExportedEntry(resource, namespace, name, uid, profile, contentHash, cluster, seq,
        lastSentAt);
  }

  /** This entry with {@code lastSentAt}; everything else unchanged. */
  public ExportedEntry withLastSentAt(Instant when) {
    return new ExportedEntry(resource, namespace, name, uid, profile, contentHash, cluster,
        sequence, when);
  }

  /** The record key ({@code group/kind/namespace/name}) this entry is stored under. */
  public String key() {
    return resource.group() + "/" + resource.kind() + "/" + (namespace == null ? "" : namespace)
        + "/" + name;
  }

  /**
   * Reads {@code lastSentAt} from its ISO-8601 text with any mapper, so a store that has no Java
   * time module (the operator's ConfigMap store) still round-trips entries.
   */
  static final class InstantText extends StdScalarDeserializer<Instant> {
    InstantText() {
      super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      String text = p.getValueAsString();
      if (text == null || text.isBlank()) {
        return null;
      }
      try {
        return Instant.parse(text.strip());
      } catch (DateTimeParseException e) {
        return (Instant) ctxt.handleWeirdStringValue(Instant.class, text,
            "lastSentAt: not an ISO-8601 instant");
      }
    }
  }
}

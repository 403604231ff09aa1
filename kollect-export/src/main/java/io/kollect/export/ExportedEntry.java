package io.kollect.export;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;
import io.kollect.extract.ContentHash;
import io.kollect.extract.GroupVersionKind;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * What is remembered of one exported object: enough to recognise an unchanged record, to build
 * its DELETE tombstone without the object, to repeat its state with the same {@code sequence}, and
 * to know when it was last sent.
 *
 * <p>Entries are checkpointed as JSON by any {@link CheckpointStore}; {@code lastSentAt} is written
 * as an ISO-8601 string by any Jackson mapper (no time module needed), and entries written before
 * {@code sequence} and {@code lastSentAt} existed read back with both {@code null}.
 *
 * <p>A value class with the accessors, equality and JSON form of a {@code record}: one entry per
 * exported object stays in memory, and it holds the content hash as the {@link ContentHash} of the
 * record it was made from (shared with it) instead of a hex text of its own, and its sequence
 * as a {@code long} instead of a {@code Long} object.
 *
 * <p>Its fields:
 *
 * <ul>
 *   <li>{@code resource}: the object's type
 *   <li>{@code namespace}: namespace or {@code null}
 *   <li>{@code name}: name
 *   <li>{@code uid}: uid
 *   <li>{@code profile}: profile name the record was produced by
 *   <li>{@code contentHash}: the content hash last exported
 *   <li>{@code cluster}: cluster the record came from, so a tombstone built after a restart still
 *      names it ({@code null} when unknown)
 *   <li>{@code sequence}: the {@link io.kollect.extract.Record#sequence() sequence} of that state,
 *      so a heartbeat or a retry repeats it and a restart continues above it ({@code null} when
 *      unknown: a checkpoint written before sequences existed)
 *   <li>{@code lastSentAt}: when this state of the key was last handed to the sink (a change or a
 *      heartbeat; checkpointed once the sink acknowledged it), so a restarted exporter spreads its
 *      heartbeat instead of re-sending everything at once ({@code null} when unknown)
 * </ul>
 */
@JsonPropertyOrder({"resource", "namespace", "name", "uid", "profile", "contentHash", "cluster",
    "sequence", "lastSentAt"})
@JsonAutoDetect(getterVisibility = Visibility.NONE, isGetterVisibility = Visibility.NONE,
    fieldVisibility = Visibility.NONE, setterVisibility = Visibility.NONE,
    creatorVisibility = Visibility.NONE)
public final class ExportedEntry {

  private final GroupVersionKind resource;
  private final String namespace;
  private final String name;
  private final String uid;
  private final String profile;
  private final ContentHash hash;
  private final String cluster;
  /** {@link #NO_SEQUENCE} when unknown: a primitive saves the 24-byte {@code Long} per key. */
  private final long sequence;
  private final Instant lastSentAt;

  /** No sequence: sequences are positive (microseconds since the epoch, {@code SequenceClock}). */
  private static final long NO_SEQUENCE = Long.MIN_VALUE;

  /** An entry with every field. */
  @JsonCreator
  public ExportedEntry(
      @JsonProperty("resource") GroupVersionKind resource,
      @JsonProperty("namespace") String namespace,
      @JsonProperty("name") String name,
      @JsonProperty("uid") String uid,
      @JsonProperty("profile") String profile,
      @JsonProperty("contentHash") String contentHash,
      @JsonProperty("cluster") String cluster,
      @JsonProperty("sequence") Long sequence,
      @JsonProperty("lastSentAt") @JsonDeserialize(using = ExportedEntry.InstantText.class)
      Instant lastSentAt) {
    this(resource, namespace, name, uid, profile, ContentHash.of(contentHash), cluster, sequence,
        lastSentAt);
  }

  private ExportedEntry(
      GroupVersionKind resource,
      String namespace,
      String name,
      String uid,
      String profile,
      ContentHash hash,
      String cluster,
      Long sequence,
      Instant lastSentAt) {
    this.resource = resource;
    this.namespace = namespace;
    this.name = name;
    this.uid = uid;
    this.profile = profile;
    this.hash = hash;
    this.cluster = cluster;
    this.sequence = sequence == null ? NO_SEQUENCE : sequence;
    this.lastSentAt = lastSentAt;
  }

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
    return sent(record, null);
  }

  /** The entry for a record handed to a sink at {@code when} (its sequence included). */
  static ExportedEntry sent(io.kollect.extract.Record record, Instant when) {
    return new ExportedEntry(record.resource(), record.namespace(), record.name(), record.uid(),
        record.profile(), record.hash(), record.cluster(), record.sequence(), when);
  }

  @JsonProperty("resource")
  public GroupVersionKind resource() {
    return resource;
  }

  @JsonProperty("namespace")
  public String namespace() {
    return namespace;
  }

  @JsonProperty("name")
  public String name() {
    return name;
  }

  @JsonProperty("uid")
  public String uid() {
    return uid;
  }

  @JsonProperty("profile")
  public String profile() {
    return profile;
  }

  /** The content hash last exported, as text ({@code null} when unknown). */
  @JsonProperty("contentHash")
  public String contentHash() {
    return hash == null ? null : hash.toString();
  }

  /** The content hash as held: compare these rather than {@link #contentHash()} texts. */
  @JsonIgnore
  public ContentHash hash() {
    return hash;
  }

  @JsonProperty("cluster")
  public String cluster() {
    return cluster;
  }

  @JsonProperty("sequence")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public Long sequence() {
    return sequence == NO_SEQUENCE ? null : sequence;
  }

  /** Whether this entry and {@code other} hold the same sequence (both none counts as the same). */
  boolean sameSequence(ExportedEntry other) {
    return sequence == other.sequence;
  }

  @JsonProperty("lastSentAt")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonSerialize(using = ExportedEntry.InstantTextWriter.class)
  public Instant lastSentAt() {
    return lastSentAt;
  }

  /** This entry with {@code sequence}; everything else unchanged. */
  public ExportedEntry withSequence(Long seq) {
    return new ExportedEntry(resource, namespace, name, uid, profile, hash, cluster, seq,
        lastSentAt);
  }

  /** This entry with {@code lastSentAt}; everything else unchanged. */
  public ExportedEntry withLastSentAt(Instant when) {
    return new ExportedEntry(resource, namespace, name, uid, profile, hash, cluster, sequence(),
        when);
  }

  /** This entry with {@code sequence} and {@code lastSentAt}: a state repeated by a heartbeat. */
  ExportedEntry resent(Long seq, Instant when) {
    return new ExportedEntry(resource, namespace, name, uid, profile, hash, cluster, seq, when);
  }

  /** This entry with its content unknown, so that the next diff re-sends its key. */
  ExportedEntry withoutHash() {
    return new ExportedEntry(resource, namespace, name, uid, profile, (ContentHash) null, cluster,
        sequence(), lastSentAt);
  }

  /** The record key ({@code group/kind/namespace/name}) this entry is stored under. */
  public String key() {
    return resource.group() + "/" + resource.kind() + "/" + (namespace == null ? "" : namespace)
        + "/" + name;
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof ExportedEntry e && Objects.equals(resource, e.resource)
        && Objects.equals(namespace, e.namespace) && Objects.equals(name, e.name)
        && Objects.equals(uid, e.uid) && Objects.equals(profile, e.profile)
        && Objects.equals(hash, e.hash) && Objects.equals(cluster, e.cluster)
        && sequence == e.sequence && Objects.equals(lastSentAt, e.lastSentAt));
  }

  @Override
  public int hashCode() {
    return Objects.hash(resource, namespace, name, uid, profile, hash, cluster, sequence(),
        lastSentAt);
  }

  /** The form a {@code record} would print: {@code ExportedEntry[resource=..., ...]}. */
  @Override
  public String toString() {
    return "ExportedEntry[resource=" + resource + ", namespace=" + namespace + ", name=" + name
        + ", uid=" + uid + ", profile=" + profile + ", contentHash=" + contentHash()
        + ", cluster=" + cluster + ", sequence=" + sequence() + ", lastSentAt=" + lastSentAt + "]";
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

  /**
   * Writes {@code lastSentAt} as {@link Instant#toString()}, formatting each instant once in a
   * row: the entries of one export pass share one send time, and a checkpoint writes thousands of
   * them at a time (a snapshot of 50,000 entries holds a few hundred distinct times). One per
   * mapper; the last pair is immutable, so threads sharing the mapper only ever miss.
   */
  static final class InstantTextWriter extends StdScalarSerializer<Instant> {
    private record Formatted(Instant instant, String text) {}

    private volatile Formatted last = new Formatted(Instant.EPOCH, Instant.EPOCH.toString());

    InstantTextWriter() {
      super(Instant.class);
    }

    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      Formatted f = last;
      if (!f.instant().equals(value)) {
        f = new Formatted(value, value.toString());
        last = f;
      }
      gen.writeString(f.text());
    }
  }
}

package io.kollect.extract;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One exported record: the scrubbed, declared view of one Kubernetes object for one target, in the
 * stable JSON format documented in {@code docs/record-format.md}.
 *
 * <p>{@code fields} values keep their JSON types. Records are immutable: the maps are read-only
 * copies in the given order (shared between records derived from one another) and the {@link
 * JsonNode} values must not be mutated by anyone holding a record. A text value is held as its
 * string and read as a new {@code TextNode} each time: compare values with {@code equals}, never
 * by identity.
 *
 * <p>A value class with the accessors, equality and JSON form a {@code record} would have, and
 * not a {@code record}: every inventoried object's record stays in memory, and the content hash is
 * held as a {@link ContentHash} (48 bytes) rather than its hex text (104 bytes); {@link
 * #contentHash()} gives the same text back, so the record format does not change.
 *
 * <p>Its fields:
 *
 * <ul>
 *   <li>{@code op}: {@link Op#UPSERT} or {@link Op#DELETE}
 *   <li>{@code cluster}: cluster name
 *   <li>{@code target}: target id
 *   <li>{@code profile}: profile name
 *   <li>{@code resource}: the object's type
 *   <li>{@code namespace}: namespace, {@code null} for cluster-scoped objects
 *   <li>{@code name}: object name
 *   <li>{@code uid}: object uid
 *   <li>{@code resourceVersion}: resourceVersion of the observed state
 *   <li>{@code observedAt}: when the state was observed (volatile: not part of the content hash)
 *   <li>{@code contentHash}: hash of resource, namespace, name, fields, labels and annotations
 *   <li>{@code fields}: extracted, scrubbed fields by name (empty for DELETE)
 *   <li>{@code labels}: allow-listed labels (empty for DELETE)
 *   <li>{@code annotations}: allow-listed, scrubbed annotations (empty for DELETE)
 *   <li>{@code sequence}: per-key delivery order assigned by the exporter when the record is
 *       handed to a sink ({@code null} before that, e.g. in offline extraction): larger means
 *       newer for the same key, never reused across restarts; a receiver applies a record only
 *       when its sequence is larger than the last one it applied for that key (see {@code
 *       docs/record-format.md})
 * </ul>
 */
@JsonPropertyOrder({
  "op", "cluster", "target", "profile", "resource", "namespace", "name", "uid",
  "resourceVersion", "observedAt", "sequence", "contentHash", "fields", "labels", "annotations"
})
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonAutoDetect(getterVisibility = Visibility.NONE, isGetterVisibility = Visibility.NONE,
    fieldVisibility = Visibility.NONE, setterVisibility = Visibility.NONE,
    creatorVisibility = Visibility.NONE)
public final class Record {

  private final Op op;
  private final String cluster;
  private final String target;
  private final String profile;
  private final GroupVersionKind resource;
  private final String namespace;
  private final String name;
  private final String uid;
  private final String resourceVersion;
  private final Instant observedAt;
  private final ContentHash hash;
  private final Map<String, JsonNode> fields;
  private final Map<String, String> labels;
  private final Map<String, String> annotations;
  private final Long sequence;

  /** A record with every field, {@code sequence} included ({@code null}: not ordered yet). */
  @JsonCreator
  public Record(
      @JsonProperty("op") Op op,
      @JsonProperty("cluster") String cluster,
      @JsonProperty("target") String target,
      @JsonProperty("profile") String profile,
      @JsonProperty("resource") GroupVersionKind resource,
      @JsonProperty("namespace") String namespace,
      @JsonProperty("name") String name,
      @JsonProperty("uid") String uid,
      @JsonProperty("resourceVersion") String resourceVersion,
      @JsonProperty("observedAt") Instant observedAt,
      @JsonProperty("contentHash") String contentHash,
      @JsonProperty("fields") Map<String, JsonNode> fields,
      @JsonProperty("labels") Map<String, String> labels,
      @JsonProperty("annotations") Map<String, String> annotations,
      @JsonProperty("sequence") Long sequence) {
    this(op, cluster, target, profile, resource, namespace, name, uid, resourceVersion, observedAt,
        ContentHash.of(contentHash), fields, labels, annotations, sequence);
  }

  /** A record without a sequence: what extraction produces before the exporter orders it. */
  public Record(
      Op op,
      String cluster,
      String target,
      String profile,
      GroupVersionKind resource,
      String namespace,
      String name,
      String uid,
      String resourceVersion,
      Instant observedAt,
      String contentHash,
      Map<String, JsonNode> fields,
      Map<String, String> labels,
      Map<String, String> annotations) {
    this(op, cluster, target, profile, resource, namespace, name, uid, resourceVersion, observedAt,
        ContentHash.of(contentHash), fields, labels, annotations, null);
  }

  /** What extraction produces: the hash already in its compact form. */
  Record(
      Op op,
      String cluster,
      String target,
      String profile,
      GroupVersionKind resource,
      String namespace,
      String name,
      String uid,
      String resourceVersion,
      Instant observedAt,
      ContentHash hash,
      Map<String, JsonNode> fields,
      Map<String, String> labels,
      Map<String, String> annotations,
      Long sequence) {
    this.op = Objects.requireNonNull(op, "op");
    this.cluster = cluster;
    this.target = target;
    this.profile = profile;
    this.resource = Objects.requireNonNull(resource, "resource");
    this.namespace = namespace;
    this.name = Objects.requireNonNull(name, "name");
    this.uid = uid;
    this.resourceVersion = resourceVersion;
    this.observedAt = observedAt;
    this.hash = hash;
    // Read-only ordered copies; a record made from another (withSequence, tombstone) shares them.
    // Fields are held leaner (shared names, text as strings): every inventoried object has some.
    this.fields = FrozenMap.ofFields(fields);
    this.labels = FrozenMap.of(labels);
    this.annotations = FrozenMap.of(annotations);
    this.sequence = sequence;
  }

  @JsonProperty("op")
  public Op op() {
    return op;
  }

  @JsonProperty("cluster")
  public String cluster() {
    return cluster;
  }

  @JsonProperty("target")
  public String target() {
    return target;
  }

  @JsonProperty("profile")
  public String profile() {
    return profile;
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

  @JsonProperty("resourceVersion")
  public String resourceVersion() {
    return resourceVersion;
  }

  @JsonProperty("observedAt")
  public Instant observedAt() {
    return observedAt;
  }

  /** The content hash as text (64 lower-case hex digits of a SHA-256), {@code null} for DELETE. */
  @JsonProperty("contentHash")
  public String contentHash() {
    return hash == null ? null : hash.toString();
  }

  /**
   * The content hash as it is held ({@code null} for DELETE): compare these, rather than {@link
   * #contentHash()} texts, which are built on each call.
   */
  @JsonIgnore
  public ContentHash hash() {
    return hash;
  }

  @JsonProperty("fields")
  public Map<String, JsonNode> fields() {
    return fields;
  }

  @JsonProperty("labels")
  public Map<String, String> labels() {
    return labels;
  }

  @JsonProperty("annotations")
  public Map<String, String> annotations() {
    return annotations;
  }

  @JsonProperty("sequence")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public Long sequence() {
    return sequence;
  }

  /**
   * The object's identity within a target, independent of API version: {@code
   * group/kind/namespace/name} (namespace empty for cluster-scoped objects). Dedupe, coalescing and
   * inventories key by this.
   */
  @JsonIgnore
  public String key() {
    return resource.group() + "/" + resource.kind() + "/" + (namespace == null ? "" : namespace)
        + "/" + name;
  }

  /** This record carrying delivery sequence {@code seq}; everything else unchanged. */
  public Record withSequence(long seq) {
    return new Record(op, cluster, target, profile, resource, namespace, name, uid, resourceVersion,
        observedAt, hash, fields, labels, annotations, seq);
  }

  /** A DELETE tombstone for this record's object, observed at {@code when}. */
  public Record tombstone(Instant when) {
    return new Record(Op.DELETE, cluster, target, profile, resource, namespace, name, uid,
        resourceVersion, when, (ContentHash) null, Map.of(), Map.of(), Map.of(), null);
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof Record r && op == r.op && Objects.equals(cluster, r.cluster)
        && Objects.equals(target, r.target) && Objects.equals(profile, r.profile)
        && resource.equals(r.resource) && Objects.equals(namespace, r.namespace)
        && name.equals(r.name) && Objects.equals(uid, r.uid)
        && Objects.equals(resourceVersion, r.resourceVersion)
        && Objects.equals(observedAt, r.observedAt) && Objects.equals(hash, r.hash)
        && fields.equals(r.fields) && labels.equals(r.labels)
        && annotations.equals(r.annotations) && Objects.equals(sequence, r.sequence));
  }

  @Override
  public int hashCode() {
    return Objects.hash(op, cluster, target, profile, resource, namespace, name, uid,
        resourceVersion, observedAt, hash, fields, labels, annotations, sequence);
  }

  /** The form a {@code record} would print: {@code Record[op=UPSERT, cluster=..., ...]}. */
  @Override
  public String toString() {
    return "Record[op=" + op + ", cluster=" + cluster + ", target=" + target + ", profile="
        + profile + ", resource=" + resource + ", namespace=" + namespace + ", name=" + name
        + ", uid=" + uid + ", resourceVersion=" + resourceVersion + ", observedAt=" + observedAt
        + ", contentHash=" + contentHash() + ", fields=" + fields + ", labels=" + labels
        + ", annotations=" + annotations + ", sequence=" + sequence + "]";
  }
}

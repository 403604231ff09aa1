package io.kollect.extract;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
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
 * JsonNode} values must not be mutated by anyone holding a record.
 *
 * @param op {@link Op#UPSERT} or {@link Op#DELETE}
 * @param cluster cluster name
 * @param target target id
 * @param profile profile name
 * @param resource the object's type
 * @param namespace namespace, {@code null} for cluster-scoped objects
 * @param name object name
 * @param uid object uid
 * @param resourceVersion resourceVersion of the observed state
 * @param observedAt when the state was observed (volatile: not part of the content hash)
 * @param contentHash hash of resource, namespace, name, fields, labels and annotations
 * @param fields extracted, scrubbed fields by name (empty for DELETE)
 * @param labels allow-listed labels (empty for DELETE)
 * @param annotations allow-listed, scrubbed annotations (empty for DELETE)
 * @param sequence per-key delivery order assigned by the exporter when the record is handed to a
 *     sink ({@code null} before that, e.g. in offline extraction): larger means newer for the same
 *     key, never reused across restarts; a receiver applies a record only when its sequence is
 *     larger than the last one it applied for that key (see {@code docs/record-format.md})
 */
@JsonPropertyOrder({
  "op", "cluster", "target", "profile", "resource", "namespace", "name", "uid",
  "resourceVersion", "observedAt", "sequence", "contentHash", "fields", "labels", "annotations"
})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Record(
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
    Map<String, String> annotations,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long sequence) {

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
        contentHash, fields, labels, annotations, null);
  }

  public Record {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(name, "name");
    // Read-only ordered copies; a record made from another (withSequence, tombstone) shares them.
    fields = FrozenMap.of(fields);
    labels = FrozenMap.of(labels);
    annotations = FrozenMap.of(annotations);
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
        observedAt, contentHash, fields, labels, annotations, seq);
  }

  /** A DELETE tombstone for this record's object, observed at {@code when}. */
  public Record tombstone(Instant when) {
    return new Record(Op.DELETE, cluster, target, profile, resource, namespace, name, uid,
        resourceVersion, when, null, Map.of(), Map.of(), Map.of());
  }
}

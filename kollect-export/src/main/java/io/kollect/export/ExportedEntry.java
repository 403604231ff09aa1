package io.kollect.export;

import io.kollect.extract.GroupVersionKind;

/**
 * What is remembered of one exported object: enough to recognise an unchanged record and to build
 * its DELETE tombstone without the object.
 *
 * @param resource the object's type
 * @param namespace namespace or {@code null}
 * @param name name
 * @param uid uid
 * @param profile profile name the record was produced by
 * @param contentHash the content hash last exported
 * @param cluster cluster the record came from, so a tombstone built after a restart still names it
 *     ({@code null} when unknown)
 */
public record ExportedEntry(
    GroupVersionKind resource,
    String namespace,
    String name,
    String uid,
    String profile,
    String contentHash,
    String cluster) {

  /** An entry without a cluster name (kept for callers written before {@code cluster} existed). */
  public ExportedEntry(
      GroupVersionKind resource,
      String namespace,
      String name,
      String uid,
      String profile,
      String contentHash) {
    this(resource, namespace, name, uid, profile, contentHash, null);
  }

  /** The entry remembered for an exported UPSERT record. */
  public static ExportedEntry of(io.kollect.extract.Record record) {
    return new ExportedEntry(record.resource(), record.namespace(), record.name(), record.uid(),
        record.profile(), record.contentHash(), record.cluster());
  }

  /** The record key ({@code group/kind/namespace/name}) this entry is stored under. */
  public String key() {
    return resource.group() + "/" + resource.kind() + "/" + (namespace == null ? "" : namespace)
        + "/" + name;
  }
}

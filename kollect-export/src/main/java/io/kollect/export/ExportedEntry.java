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
 */
public record ExportedEntry(
    GroupVersionKind resource,
    String namespace,
    String name,
    String uid,
    String profile,
    String contentHash) {}

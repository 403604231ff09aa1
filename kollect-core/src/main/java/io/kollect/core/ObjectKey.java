package io.kollect.core;

import io.kollect.informers.ResourceType;

/**
 * One object of a target's scope: built once per object and held as the key of the target's
 * state, instead of a concatenated string per object (the namespace is interned, the name is the
 * informer cache's own string).
 *
 * @param type the resource type it was read as
 * @param namespace namespace, {@code null} for a cluster-scoped object
 * @param name name
 */
record ObjectKey(ResourceType type, String namespace, String name) {

  static ObjectKey of(ResourceType type, String namespace, String name) {
    return new ObjectKey(type, namespace == null ? null : namespace.intern(), name);
  }

  /** The record key the exporter and the inventory view use ({@code Record#key()}). */
  String recordKey() {
    return type.group() + "/" + type.kind() + "/" + (namespace == null ? "" : namespace) + "/"
        + name;
  }
}

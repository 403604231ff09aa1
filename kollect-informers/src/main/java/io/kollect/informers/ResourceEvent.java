package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * A change to one cached object, as one lease sees it.
 *
 * <p>Kinds are from the lease's point of view: an object whose labels change so that it leaves a
 * lease's scope is {@link Kind#DELETED} for that lease (and {@link Kind#ADDED} when it enters).
 * Events arrive while the initial list is still running (page by page), but only from a cache that
 * keeps every path the lease reads; a consumer must not conclude that an object is gone before the
 * lease {@link InformerLease#hasSynced() has synced}.
 *
 * @param kind what happened
 * @param type the object's resource type
 * @param namespace namespace, {@code null} for cluster-scoped objects
 * @param name name
 * @param object the state as the lease's cache holds it (projected to the leased paths) for
 *     {@link Kind#ADDED} and {@link Kind#UPDATED}, the last known state for {@link Kind#DELETED};
 *     {@code null} when not known. Shared with the cache: never modify it.
 */
public record ResourceEvent(Kind kind, ResourceType type, String namespace, String name,
    GenericKubernetesResource object) {

  /** An event without the object (consumers re-read state from their lease). */
  public ResourceEvent(Kind kind, ResourceType type, String namespace, String name) {
    this(kind, type, namespace, name, null);
  }

  /** What happened to the object. */
  public enum Kind {
    ADDED,
    UPDATED,
    /** Deleted or left the lease's scope, including a delete known only from a relist. */
    DELETED
  }
}

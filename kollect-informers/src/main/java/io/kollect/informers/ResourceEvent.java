package io.kollect.informers;

/**
 * A change to one cached object. Events are hints: consumers re-read state from their lease.
 *
 * @param kind what happened
 * @param type the object's resource type
 * @param namespace namespace, {@code null} for cluster-scoped objects
 * @param name name
 */
public record ResourceEvent(Kind kind, ResourceType type, String namespace, String name) {

  /** What happened to the object. */
  public enum Kind {
    ADDED,
    UPDATED,
    /** Deleted, including a delete known only from a relist (final state unknown). */
    DELETED
  }
}

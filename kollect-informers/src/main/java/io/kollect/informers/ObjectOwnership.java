package io.kollect.informers;

/**
 * Which objects this process owns when the work is split between replicas (sharding). The
 * registry drops every object of a type it does not own before the informer's cache: the object is
 * never stored, indexed or handed to a lease, so a shard's memory is proportional to the objects it
 * owns. {@code v1/Namespace} and {@code CustomResourceDefinition} are never filtered: namespace
 * selectors and discovery of late types need all of them on every shard.
 *
 * <p>Must be a pure function of its arguments: an object's owner may not change while the process
 * runs, or an object that moved would be neither deleted nor re-added in the cache.
 */
@FunctionalInterface
public interface ObjectOwnership {

  /** Owns everything: the unsharded default. */
  ObjectOwnership ALL = (cluster, group, kind, namespace, name) -> true;

  /**
   * Whether this process owns the object.
   *
   * @param cluster the registry's cluster name ({@link InformerOptions#cluster()})
   * @param group API group, empty for the core group
   * @param kind the type's kind
   * @param namespace the object's namespace, empty for a cluster-scoped object
   * @param name the object's name
   */
  boolean owns(String cluster, String group, String kind, String namespace, String name);

  /**
   * Whether this process owns every object of {@code cluster} (when the work is split by
   * cluster): its informers then keep every object without asking {@link #owns} for each.
   * Must agree with {@link #owns}: when true, {@code owns} is true for every object of it.
   *
   * @param cluster the registry's cluster name ({@link InformerOptions#cluster()})
   */
  default boolean ownsWhole(String cluster) {
    return false;
  }
}

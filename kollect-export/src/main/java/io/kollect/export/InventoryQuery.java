package io.kollect.export;

/**
 * A filter on inventory records; {@code null} matches anything.
 *
 * @param target target id
 * @param group API group ({@code ""} for core)
 * @param kind kind
 * @param namespace namespace
 * @param name name
 * @param cluster the records' {@code cluster} (one of a fleet's clusters, or the engine's own)
 */
public record InventoryQuery(String target, String group, String kind, String namespace,
    String name, String cluster) {

  /** A filter on every field but the cluster (records of every cluster match). */
  public InventoryQuery(String target, String group, String kind, String namespace, String name) {
    this(target, group, kind, namespace, name, null);
  }

  public static InventoryQuery all() {
    return new InventoryQuery(null, null, null, null, null, null);
  }
}

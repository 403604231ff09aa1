package io.kollect.export;

/**
 * A filter on inventory records; {@code null} matches anything.
 *
 * @param target target id
 * @param group API group ({@code ""} for core)
 * @param kind kind
 * @param namespace namespace
 * @param name name
 */
public record InventoryQuery(String target, String group, String kind, String namespace, String name) {
  public static InventoryQuery all() {
    return new InventoryQuery(null, null, null, null, null);
  }
}

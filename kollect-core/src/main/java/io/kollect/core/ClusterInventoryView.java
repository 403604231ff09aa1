package io.kollect.core;

import io.kollect.export.InventoryQuery;
import io.kollect.export.InventorySink;
import io.kollect.export.InventoryView;
import io.kollect.extract.Record;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's in-memory inventory over every cluster it reads: one {@link InventorySink} per
 * cluster, because an inventory sink keys records by target and object, and two clusters hold
 * the same namespace/name under one target. A query over one cluster (every target of the
 * engine's own cluster only) is answered by its sink alone, exactly as before.
 */
final class ClusterInventoryView implements InventoryView {

  private static final Comparator<Record> ORDER = Comparator
      .comparing((Record r) -> r.target() == null ? "" : r.target())
      .thenComparing(Record::key)
      .thenComparing(r -> r.cluster() == null ? "" : r.cluster());

  private final InventorySink local;
  private final String localCluster;
  private final Map<String, InventorySink> others = new ConcurrentHashMap<>();

  /**
   * @param local the view of the engine's own cluster
   * @param localCluster the engine's own cluster's name
   */
  ClusterInventoryView(InventorySink local, String localCluster) {
    this.local = local;
    this.localCluster = localCluster;
  }

  /** The view of {@code cluster}'s records; {@code null} is the engine's own cluster. */
  InventorySink sinkFor(String cluster) {
    return cluster == null || cluster.equals(localCluster) ? local
        : others.computeIfAbsent(cluster, c -> new InventorySink(local.name() + "/" + c));
  }

  @Override
  public List<Record> query(InventoryQuery query) {
    if (others.isEmpty()) {
      return local.query(query);
    }
    List<Record> out = new ArrayList<>(local.query(query));
    for (InventorySink s : others.values()) {
      out.addAll(s.query(query));
    }
    out.sort(ORDER);
    return out;
  }
}

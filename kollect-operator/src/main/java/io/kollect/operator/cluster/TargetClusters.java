package io.kollect.operator.cluster;

import io.kollect.core.TargetId;
import io.kollect.operator.crd.KollectTarget;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The clusters each target reads, as resolved when the target was last put into the engine: the
 * target feed resolves through it, and the cluster feed asks it which targets resolve differently
 * after a KollectCluster changed, to re-put only those.
 */
public final class TargetClusters {

  private final ClusterCatalog catalog;
  private final Map<TargetId, List<String>> resolved = new ConcurrentHashMap<>();

  public TargetClusters(ClusterCatalog catalog) {
    this.catalog = catalog;
  }

  /**
   * The engine's cluster names a target reads (see {@link ClusterCatalog#resolve}).
   *
   * @throws IllegalArgumentException naming the field when the target's cluster choice is invalid
   */
  public List<String> of(KollectTarget target) {
    List<String> clusters = catalog.resolve(target);
    resolved.put(id(target), clusters);
    return clusters;
  }

  /** Whether the target's clusters now resolve differently from when it was last put. */
  boolean changed(KollectTarget target) {
    try {
      return !catalog.resolve(target).equals(resolved.get(id(target)));
    } catch (IllegalArgumentException e) {
      return true;
    }
  }

  private static TargetId id(KollectTarget t) {
    return new TargetId(t.getMetadata().getNamespace(), t.getMetadata().getName());
  }
}

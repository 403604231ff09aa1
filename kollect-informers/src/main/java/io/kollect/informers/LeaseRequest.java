package io.kollect.informers;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;
import java.util.Set;

/**
 * What one consumer wants to read of one resource type.
 *
 * @param type the resource type
 * @param namespaces namespaces to read; empty means all namespaces (and cluster-scoped objects)
 * @param labelSelector objects must match it; {@code null} matches all
 * @param names object names to keep; empty keeps all
 * @param keepPaths the parts of each object the consumer reads, as key paths from the object root
 *     (e.g. {@code [spec, replicas]}); {@code null} means the whole object. Identity metadata is
 *     always kept.
 */
public record LeaseRequest(
    ResourceType type,
    Set<String> namespaces,
    LabelSelector labelSelector,
    Set<String> names,
    List<List<String>> keepPaths) {

  public LeaseRequest {
    namespaces = namespaces == null ? Set.of() : Set.copyOf(namespaces);
    names = names == null ? Set.of() : Set.copyOf(names);
    keepPaths = keepPaths == null ? null : keepPaths.stream().map(List::copyOf).toList();
  }

  /** Everything of {@code type} in all namespaces. */
  public static LeaseRequest all(ResourceType type) {
    return new LeaseRequest(type, Set.of(), null, Set.of(), null);
  }
}

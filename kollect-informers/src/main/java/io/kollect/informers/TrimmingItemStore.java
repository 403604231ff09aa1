package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The informer's item store: holds each object as {@link ObjectProjection} shapes it, so the
 * dropped parts become garbage as soon as the watch event has been handled.
 */
final class TrimmingItemStore implements ItemStore<GenericKubernetesResource> {

  private final ConcurrentHashMap<String, GenericKubernetesResource> items = new ConcurrentHashMap<>();
  private final ObjectProjection projection;

  TrimmingItemStore(ObjectProjection projection) {
    this.projection = projection;
  }

  @Override
  public String getKey(GenericKubernetesResource obj) {
    return Cache.metaNamespaceKeyFunc(obj);
  }

  @Override
  public GenericKubernetesResource put(String key, GenericKubernetesResource obj) {
    return items.put(key, projection.apply(obj));
  }

  @Override
  public GenericKubernetesResource remove(String key) {
    return items.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  @Override
  public Stream<GenericKubernetesResource> values() {
    return items.values().stream();
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public GenericKubernetesResource get(String key) {
    return items.get(key);
  }

  /**
   * Always {@code false}, even for the full projection (which still drops managedFields): fabric8
   * then hands each page's adds to the handlers as the page arrives, instead of holding them all
   * back until the whole first list is in (what it does for full-state stores). Consumers stream
   * the first inventory; nothing else in fabric8 reads this flag.
   */
  @Override
  public boolean isFullState() {
    return false;
  }
}

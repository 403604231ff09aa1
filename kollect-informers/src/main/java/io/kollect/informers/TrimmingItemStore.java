package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The informer's item store: holds each object as {@link ObjectProjection} shapes it, so the
 * dropped parts become garbage as soon as the watch event has been handled.
 *
 * <p>It holds one entry per cached object for as long as the object exists, so its shape is
 * chosen for memory:
 *
 * <ul>
 *   <li>Objects are held by namespace, then by name, both the object's own strings: no {@code
 *       namespace/name} key string per object, and the namespace index fabric8's cache would keep
 *       beside the store (a second map entry per object) is not needed: {@link #objectsIn} reads a
 *       namespace's map. The informer is started without that index.
 *   <li>A projected object whose metadata is identity only is held as a {@link CompactResource}
 *       and read back as a new, equal resource each time.
 * </ul>
 *
 * <p>fabric8's cache writes under its own lock, one write at a time; reads come from any thread.
 * Writes here also take this store's lock, so that an emptied namespace map is removed without
 * losing a concurrent put.
 */
final class TrimmingItemStore implements ItemStore<GenericKubernetesResource> {

  /** Namespace ({@code ""} for cluster-scoped objects) → name → a resource or a compact one. */
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Object>> byNamespace =
      new ConcurrentHashMap<>();
  private final ObjectProjection projection;
  /** The type of the compact objects; set by the first object stored, then fixed. */
  private volatile CompactResource.Type type;
  private volatile int size;
  /** Writes fabric8 hands to the handlers as a notification (see {@link #notifications}). */
  private long notifications; // guarded by this

  TrimmingItemStore(ObjectProjection projection) {
    this.projection = projection;
  }

  @Override
  public String getKey(GenericKubernetesResource obj) {
    return Cache.metaNamespaceKeyFunc(obj);
  }

  @Override
  public GenericKubernetesResource put(String key, GenericKubernetesResource obj) {
    GenericKubernetesResource projected = projection.apply(obj);
    Object held = held(projected);
    int slash = key.indexOf('/');
    ObjectMeta meta = projected.getMetadata();
    // the object's own strings as map keys, when they are the key's parts (they always are for
    // keys fabric8 makes); the namespace is the projection's interned instance
    String namespace = slash < 0 ? "" : key.substring(0, slash);
    if (meta != null && namespace.equals(meta.getNamespace())) {
      namespace = meta.getNamespace();
    }
    String name = key.substring(slash + 1);
    if (meta != null && name.equals(meta.getName())) {
      name = meta.getName();
    }
    Object previous;
    synchronized (this) {
      previous = byNamespace.computeIfAbsent(namespace, ns -> new ConcurrentHashMap<>())
          .put(name, held);
      if (previous == null) {
        size++;
      }
      // counted with the write, under the lock notifications() takes: a reader that saw the
      // write in the map and then reads the count has it counted
      if (previous == null || !Objects.equals(versionOfHeld(previous), versionOf(projected))) {
        notifications++;
      }
    }
    return read(previous);
  }

  @Override
  public GenericKubernetesResource remove(String key) {
    int slash = key.indexOf('/');
    String namespace = slash < 0 ? "" : key.substring(0, slash);
    Object previous;
    synchronized (this) {
      Map<String, Object> names = byNamespace.get(namespace);
      previous = names == null ? null : names.remove(key.substring(slash + 1));
      if (previous != null) {
        size--;
        notifications++;
        if (names.isEmpty()) {
          byNamespace.remove(namespace);
        }
      }
    }
    return read(previous);
  }

  @Override
  public GenericKubernetesResource get(String key) {
    int slash = key.indexOf('/');
    Map<String, Object> names = byNamespace.get(slash < 0 ? "" : key.substring(0, slash));
    return names == null ? null : read(names.get(key.substring(slash + 1)));
  }

  /** The cached objects of one namespace, read through its own map. */
  List<GenericKubernetesResource> objectsIn(String namespace) {
    Map<String, Object> names = byNamespace.get(namespace);
    return names == null ? List.of() : names.values().stream().map(this::read).toList();
  }

  @Override
  public Stream<String> keySet() {
    return byNamespace.entrySet().stream().flatMap(ns -> ns.getValue().keySet().stream()
        .map(name -> ns.getKey().isEmpty() ? name : ns.getKey() + "/" + name));
  }

  @Override
  public Stream<GenericKubernetesResource> values() {
    return byNamespace.values().stream().flatMap(names -> names.values().stream())
        .map(this::read);
  }

  /** What the store holds, one element per object, without reading it back: for measuring. */
  Collection<Object> held() {
    return Collections.unmodifiableList(byNamespace.values().stream()
        .flatMap(names -> names.values().stream()).toList());
  }

  /**
   * How many writes fabric8 turns into a notification for the handlers: a put of a new key or of
   * another resourceVersion than the held one, a removal of a held key (fabric8's {@code
   * ProcessorStore} notifies exactly these, one by one in the order of the writes). Beside the
   * count of notifications handled it tells whether the changes this store had taken by a given
   * moment have been handed out ({@link InformerHandle#handedOutThrough}). A write a reader has
   * seen in the store is counted by the time this answers.
   */
  synchronized long notifications() {
    return notifications;
  }

  @Override
  public int size() {
    return size;
  }

  private static String versionOf(GenericKubernetesResource obj) {
    return obj.getMetadata() == null ? null : obj.getMetadata().getResourceVersion();
  }

  private static String versionOfHeld(Object held) {
    return held instanceof CompactResource c ? c.resourceVersion()
        : versionOf((GenericKubernetesResource) held);
  }

  /** What to hold for a projected object: compact where its shape allows. */
  private Object held(GenericKubernetesResource projected) {
    if (projection.isFull()) {
      // the full shape keeps whatever metadata the object has
      return projected;
    }
    CompactResource.Type t = type;
    if (t == null) {
      synchronized (this) {
        if (type == null && projected.getApiVersion() != null && projected.getKind() != null) {
          type = new CompactResource.Type(projected.getApiVersion(), projected.getKind());
        }
        t = type;
      }
      if (t == null) {
        return projected;
      }
    }
    CompactResource compact = CompactResource.of(projected, t);
    return compact == null ? projected : compact;
  }

  private GenericKubernetesResource read(Object held) {
    return held instanceof CompactResource c ? c.toResource(type)
        : (GenericKubernetesResource) held;
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

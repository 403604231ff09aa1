package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;

/**
 * Drops the objects of one informer's type this process does not own ({@link ObjectOwnership}),
 * between the API server's answers and fabric8's reflector, so the informer's store, its indexes
 * and its event handlers never see them.
 *
 * <p>Why here and not in the item store: fabric8's {@code ProcessorStore} notifies the handlers of
 * an add or update whatever the store does with the object, and its indexer keeps what it was
 * given. Filtering the list pages and the watch events is the only point before all three.
 *
 * <p>A dropped watch event is passed on as a {@code BOOKMARK} carrying only its resourceVersion (a
 * bookmark updates the reflector's version and touches nothing else), so the informer's {@code
 * lastSyncResourceVersion()} follows the stream as it would unsharded. Re-opened watches do not
 * depend on it: fabric8's watch manager resumes from the last version it received, and it sits
 * before this filter, so it saw the dropped events too; a relist starts from a fresh list.
 */
final class OwnedObjects {

  private final ObjectOwnership ownership;
  private final String cluster;
  private final ResourceType type;

  private OwnedObjects(ObjectOwnership ownership, String cluster, ResourceType type) {
    this.ownership = ownership;
    this.cluster = cluster;
    this.type = type;
  }

  /**
   * The filter of {@code type}'s informers, or {@code null} when every object is kept (no sharding,
   * a cluster this process owns whole, or a type every shard needs whole).
   */
  static OwnedObjects of(InformerOptions options, ResourceType type) {
    ObjectOwnership o = options.ownership();
    if (o == null || o == ObjectOwnership.ALL || exempt(type) || o.ownsWhole(options.cluster())) {
      return null;
    }
    return new OwnedObjects(o, options.cluster(), type);
  }

  /**
   * Types never filtered: namespace selectors read every Namespace, and the registry watches CRDs
   * to notice late types (consumers that export these filter records themselves).
   */
  static boolean exempt(ResourceType type) {
    return (type.group().isEmpty() && "Namespace".equals(type.kind()))
        || InformerRegistry.CRD_TYPE.group().equals(type.group())
            && InformerRegistry.CRD_TYPE.kind().equals(type.kind());
  }

  boolean owns(GenericKubernetesResource obj) {
    ObjectMeta meta = obj.getMetadata();
    if (meta == null || meta.getName() == null) {
      return true; // nothing to hash; let the informer report it as it would
    }
    String ns = meta.getNamespace() == null ? "" : meta.getNamespace();
    return ownership.owns(cluster, type.group(), type.kind(), ns, meta.getName());
  }

  /** {@code page} with only the owned items; list metadata (continue, resourceVersion) kept. */
  GenericKubernetesResourceList filter(GenericKubernetesResourceList page) {
    List<GenericKubernetesResource> items = page.getItems();
    if (items == null || items.isEmpty()) {
      return page;
    }
    List<GenericKubernetesResource> kept = new ArrayList<>(items.size());
    for (GenericKubernetesResource item : items) {
      if (owns(item)) {
        kept.add(item);
      }
    }
    page.setItems(kept);
    return page;
  }

  /** {@code downstream} seeing only the owned objects' events (and bookmarks for the others). */
  Watcher<GenericKubernetesResource> watcher(Watcher<GenericKubernetesResource> downstream) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource resource) {
        if (resource == null || action == Action.BOOKMARK || action == Action.ERROR
            || owns(resource)) {
          downstream.eventReceived(action, resource);
          return;
        }
        downstream.eventReceived(Action.BOOKMARK, versionOnly(resource));
      }

      @Override
      public void onClose(WatcherException cause) {
        downstream.onClose(cause);
      }

      @Override
      public void onClose() {
        downstream.onClose();
      }

      @Override
      public boolean reconnecting() {
        return downstream.reconnecting();
      }
    };
  }

  /** A stand-in holding only the resourceVersion, so the dropped object can be collected now. */
  private static GenericKubernetesResource versionOnly(GenericKubernetesResource resource) {
    GenericKubernetesResource out = new GenericKubernetesResource();
    ObjectMeta meta = new ObjectMeta();
    meta.setResourceVersion(resource.getMetadata() == null ? null
        : resource.getMetadata().getResourceVersion());
    out.setMetadata(meta);
    return out;
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.List;
import java.util.Map;

/**
 * What the projection store keeps of an object whose projected metadata holds only the identity
 * fields ({@link ObjectProjection#IDENTITY_METADATA}): the same strings and maps the projection
 * made, without the three shells around them. A projected ConfigMap is otherwise held as a {@code
 * GenericKubernetesResource} (32 bytes), an {@code ObjectMeta} with sixteen fields (80 bytes) and a
 * one-entry map for its top-level keys (32 bytes) and, most often, a {@link CompactMap} of the keys
 * kept under that one key (32 bytes); this object is 56 bytes. {@link #toResource}
 * builds the shells again for each read: reads happen per event and per pass, the object is held
 * for as long as it exists.
 *
 * <p>{@code apiVersion} and {@code kind} are not held: every object of an informer has the same
 * ones, which the store keeps once ({@link Type}); an object with others stays a resource.
 */
final class CompactResource {

  /** The apiVersion and kind of a store's objects, held once per store. */
  record Type(String apiVersion, String kind) {}

  private final String name;
  private final String namespace;
  private final String uid;
  private final String resourceVersion;
  private final Long generation;
  private final Map<String, String> labels;
  private final String deletionTimestamp;
  private final List<OwnerReference> ownerReferences;
  /**
   * The single top-level key the projection kept (and {@link #properties} its value), or {@code
   * null} when {@link #properties} is the whole map of top-level keys: most projections keep one
   * (a ConfigMap's {@code data}, a Deployment's {@code spec}), and its one-entry map is 32 bytes.
   */
  private final String propertyKey;
  /**
   * With {@link #propertyKey}: its value, or when {@link #propertyKeys} is set, the values array of
   * the {@link CompactMap} that was its value (the arrays are held, the map is made per read: the
   * object layout has room for the one more field, the map costs 32 bytes). Else the whole map.
   */
  private final Object properties;
  private final String[] propertyKeys;

  private CompactResource(ObjectMeta meta, String propertyKey, Object properties) {
    this.name = meta.getName();
    this.namespace = meta.getNamespace();
    this.uid = meta.getUid();
    this.resourceVersion = meta.getResourceVersion();
    this.generation = meta.getGeneration();
    this.labels = meta.getLabels();
    this.deletionTimestamp = meta.getDeletionTimestamp();
    this.ownerReferences = meta.getOwnerReferences();
    this.propertyKey = propertyKey;
    if (propertyKey != null && properties instanceof CompactMap map) {
      this.propertyKeys = map.keyArray();
      this.properties = map.valueArray();
    } else {
      this.propertyKeys = null;
      this.properties = properties;
    }
  }

  /**
   * {@code projected} in compact form, or {@code null} when it holds more than this form keeps
   * (metadata beyond the identity fields, another type), so the store keeps the resource itself.
   * Only for what {@link ObjectProjection#apply} made with a path tree: its metadata maps are
   * immutable, so sharing them with every read is safe.
   */
  static CompactResource of(GenericKubernetesResource projected, Type type) {
    ObjectMeta meta = projected.getMetadata();
    if (meta == null || !type.apiVersion().equals(projected.getApiVersion())
        || !type.kind().equals(projected.getKind()) || !identityOnly(meta)) {
      return null;
    }
    Map<String, Object> props = projected.getAdditionalProperties();
    if (props == null) {
      return null;
    }
    if (props.size() == 1) {
      Map.Entry<String, Object> only = props.entrySet().iterator().next();
      if (only.getValue() != null) {
        return new CompactResource(meta, only.getKey(), only.getValue());
      }
    }
    return new CompactResource(meta, null, props);
  }

  /**
   * Whether the projection kept nothing of {@code meta} but the identity fields, as {@link
   * ObjectProjection} leaves them: the other collections {@code null}, the extra properties the
   * shared empty map.
   */
  private static boolean identityOnly(ObjectMeta meta) {
    return meta.getAnnotations() == null && meta.getFinalizers() == null
        && meta.getManagedFields() == null && meta.getGenerateName() == null
        && meta.getCreationTimestamp() == null && meta.getDeletionGracePeriodSeconds() == null
        && meta.getSelfLink() == null && meta.getLabels() != null
        && meta.getOwnerReferences() != null
        && (meta.getAdditionalProperties() == null || meta.getAdditionalProperties().isEmpty());
  }

  String resourceVersion() {
    return resourceVersion;
  }

  /** The resource {@link ObjectProjection#apply} made, equal to it, in new shells. */
  @SuppressWarnings("unchecked")
  GenericKubernetesResource toResource(Type type) {
    // the constructor with every field: the no-argument one allocates empty collections first
    ObjectMeta meta = new ObjectMeta(null, null, null, deletionTimestamp, null, null, generation,
        labels, null, name, namespace, ownerReferences, resourceVersion, null, uid);
    meta.setAdditionalProperties(Map.of());
    GenericKubernetesResource out = new GenericKubernetesResource();
    out.setApiVersion(type.apiVersion());
    out.setKind(type.kind());
    out.setMetadata(meta);
    if (propertyKey == null) {
      out.setAdditionalProperties((Map<String, Object>) properties);
    } else {
      Object value = propertyKeys == null ? properties
          : new CompactMap(propertyKeys, (Object[]) properties);
      out.setAdditionalProperties(Map.of(propertyKey, value));
    }
    return out;
  }
}

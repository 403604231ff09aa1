package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the cache keeps of each object. {@link #full()} keeps everything except
 * {@code metadata.managedFields} and the last-applied annotation (nobody reads them, and together
 * they are often half an object's size). A projection keeps identity metadata plus the given key
 * paths; a path keeps the whole subtree under its last key, and a list met on the way keeps the
 * remaining path of each element.
 */
final class ObjectProjection {

  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  /** Metadata fields a projection always keeps: what identifies, orders and relates an object. */
  static final Set<String> IDENTITY_METADATA = Set.of("name", "namespace", "uid", "resourceVersion",
      "generation", "labels", "deletionTimestamp", "ownerReferences");

  /** ObjectMeta's JSON properties, as fabric8's model names them. */
  private static final Set<String> OBJECT_META_FIELDS = Set.of("annotations", "creationTimestamp",
      "deletionGracePeriodSeconds", "deletionTimestamp", "finalizers", "generateName", "generation",
      "labels", "managedFields", "name", "namespace", "ownerReferences", "resourceVersion",
      "selfLink", "uid");
  private static final Set<String> MANAGED_FIELDS = Set.of("managedFields");

  private static final ObjectProjection FULL = new ObjectProjection(null);
  /** Distinct label sets of cached objects, held weakly: a set no object has any more is collected. */
  private static final WeakInterner<Map<String, String>> LABEL_SETS = new WeakInterner<>();
  /** Distinct owner reference lists of cached objects, held weakly as {@link #LABEL_SETS}. */
  private static final WeakInterner<List<OwnerReference>> OWNER_LISTS = new WeakInterner<>();

  /** Path tree; {@code null} for the full object. Leaves are empty nodes. */
  private final PathNode root;

  private ObjectProjection(PathNode root) {
    this.root = root;
  }

  static ObjectProjection full() {
    return FULL;
  }

  /** The union of {@code paths}; an empty path or a bare {@code metadata} still projects. */
  static ObjectProjection of(Collection<List<String>> paths) {
    PathNode root = new PathNode();
    for (List<String> path : paths) {
      root.add(path, 0);
    }
    return root.isLeaf() ? FULL : new ObjectProjection(root);
  }

  boolean isFull() {
    return root == null;
  }

  /**
   * What of an object's top-level fields (other than {@code apiVersion}, {@code kind} and
   * {@code metadata}) this projection keeps, for a reader that decodes only that.
   */
  KeptKeys keptKeys() {
    return root == null ? KeptKeys.ALL : root;
  }

  /** The metadata fields no object of this projection holds: a reader need not decode them. */
  Set<String> droppedMetadata() {
    PathNode wanted = root == null ? null : root.children.get("metadata");
    if (root == null || wanted != null && wanted.isLeaf()) {
      // the trimmed whole: everything but the managed fields (the last-applied annotation is
      // one entry of a map that is kept)
      return MANAGED_FIELDS;
    }
    Set<String> dropped = new TreeSet<>(OBJECT_META_FIELDS);
    dropped.removeAll(IDENTITY_METADATA);
    if (wanted != null) {
      dropped.removeAll(wanted.children.keySet());
    }
    return Collections.unmodifiableSet(dropped);
  }

  /**
   * The keys kept under one value: all of it, or only some keys (of a map, or of each map in a
   * list). A value kept in part holds, of its maps, at least the keys {@link #under} names.
   */
  interface KeptKeys {
    KeptKeys ALL = new KeptKeys() {
      @Override
      public boolean keepsAll() {
        return true;
      }

      @Override
      public KeptKeys under(String key) {
        return this;
      }
    };

    /** Whether the whole value is kept. */
    boolean keepsAll();

    /** What is kept under {@code key} of a map, or {@code null} when nothing is. */
    KeptKeys under(String key);
  }

  /**
   * Whether every object this projection keeps holds all of {@code keepPaths} ({@code null}:
   * the whole object), so a consumer that reads them gets what the API server has.
   */
  boolean covers(List<List<String>> keepPaths) {
    if (root == null) {
      return true;
    }
    if (keepPaths == null) {
      return false;
    }
    for (List<String> path : keepPaths) {
      if (!coversPath(path)) {
        return false;
      }
    }
    return true;
  }

  private boolean coversPath(List<String> path) {
    if (path.size() >= 2 && path.get(0).equals("metadata") && IDENTITY_METADATA.contains(path.get(1))) {
      // identity metadata is kept whatever the paths
      return true;
    }
    PathNode node = root;
    for (String key : path) {
      if (node.isLeaf()) {
        return true;
      }
      node = node.children.get(key);
      if (node == null) {
        return false;
      }
    }
    // the path wants the whole subtree under its last key
    return node.isLeaf();
  }

  /**
   * Returns what the cache should hold for {@code source}. The full variant trims {@code source}
   * in place (the informer hands us a freshly deserialised object that nothing else keeps).
   */
  GenericKubernetesResource apply(GenericKubernetesResource source) {
    if (root == null) {
      trim(source.getMetadata());
      return source;
    }
    GenericKubernetesResource out = new GenericKubernetesResource();
    // every object of a type repeats these: one shared instance instead of one per object
    out.setApiVersion(intern(source.getApiVersion()));
    out.setKind(intern(source.getKind()));
    out.setMetadata(projectMetadata(source.getMetadata(), root.children.get("metadata")));
    Map<String, Object> props = source.getAdditionalProperties();
    Map<String, Object> kept = props == null || props.isEmpty() ? null : root.projectChildren(props);
    // a compact map rather than a 16-slot hash table per object
    out.setAdditionalProperties(kept == null ? Map.of() : kept);
    return out;
  }

  private static void trim(ObjectMeta meta) {
    if (meta == null) {
      return;
    }
    meta.setManagedFields(null);
    Map<String, String> annotations = meta.getAnnotations();
    if (annotations != null && annotations.containsKey(LAST_APPLIED)) {
      // a copy rather than remove(): the map may be unmodifiable (e.g. built with Map.of)
      Map<String, String> kept = new LinkedHashMap<>(annotations);
      kept.remove(LAST_APPLIED);
      meta.setAnnotations(kept);
    }
  }

  private static ObjectMeta projectMetadata(ObjectMeta meta, PathNode wanted) {
    if (meta == null) {
      return null;
    }
    if (wanted != null && wanted.isLeaf()) {
      trim(meta);
      return meta;
    }
    ObjectMeta out = new ObjectMeta();
    // ObjectMeta starts with empty collections; a projection holds none it was not asked for, and
    // shares one immutable empty instance where readers expect a collection
    out.setAnnotations(null);
    out.setFinalizers(null);
    out.setManagedFields(null);
    out.setAdditionalProperties(Map.of());
    // name, uid and resourceVersion are the only strings of their own each object keeps
    out.setName(meta.getName());
    out.setNamespace(intern(meta.getNamespace()));
    out.setUid(meta.getUid());
    out.setResourceVersion(meta.getResourceVersion());
    out.setGeneration(meta.getGeneration());
    out.setLabels(internLabels(meta.getLabels()));
    out.setDeletionTimestamp(meta.getDeletionTimestamp());
    out.setOwnerReferences(internOwners(meta.getOwnerReferences()));
    if (wanted == null) {
      return out;
    }
    for (Map.Entry<String, PathNode> field : wanted.children.entrySet()) {
      PathNode node = field.getValue();
      switch (field.getKey()) {
        case "annotations" -> out.setAnnotations(projectAnnotations(meta.getAnnotations(), node));
        case "finalizers" -> out.setFinalizers(meta.getFinalizers());
        case "generateName" -> out.setGenerateName(meta.getGenerateName());
        case "creationTimestamp" -> out.setCreationTimestamp(meta.getCreationTimestamp());
        case "deletionGracePeriodSeconds" ->
            out.setDeletionGracePeriodSeconds(meta.getDeletionGracePeriodSeconds());
        case "selfLink" -> out.setSelfLink(meta.getSelfLink());
        case "managedFields" -> out.setManagedFields(meta.getManagedFields());
        default -> {
          // identity fields are already copied; anything else is not an ObjectMeta field
        }
      }
    }
    return out;
  }

  /**
   * Label keys and values repeat across objects (app=web on hundreds of them): each distinct
   * string is held once. Sorted, as the API server sends them, in a map sized for a few entries.
   */
  private static Map<String, String> internLabels(Map<String, String> labels) {
    if (labels == null || labels.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new TreeMap<>();
    labels.forEach((k, v) -> out.put(intern(k), intern(v)));
    // whole label sets repeat too (every object of a Deployment, a tenant, a benchmark): share them
    return LABEL_SETS.intern(Collections.unmodifiableSortedMap((java.util.SortedMap<String, String>) out));
  }

  /**
   * Owner references repeat across objects as label sets do (every Pod of a ReplicaSet, every Job
   * of a CronJob carries the same one), and each as decoded is five strings, two Booleans and a
   * map: a list equal to one a cached object holds is shared, made unmodifiable first. A list no
   * other object holds (a Job's Pod, a ReplicaSet's only Pod) still shares what every reference of
   * its kind repeats: the apiVersion and kind strings, and one empty map of unknown fields instead
   * of a map of its own.
   */
  private static List<OwnerReference> internOwners(List<OwnerReference> owners) {
    if (owners == null || owners.isEmpty()) {
      return List.of();
    }
    OwnerReference[] slim = new OwnerReference[owners.size()];
    for (int i = 0; i < slim.length; i++) {
      slim[i] = slim(owners.get(i));
    }
    return OWNER_LISTS.intern(List.of(slim));
  }

  private static OwnerReference slim(OwnerReference owner) {
    OwnerReference out = new OwnerReference(intern(owner.getApiVersion()),
        owner.getBlockOwnerDeletion(), owner.getController(), intern(owner.getKind()),
        owner.getName(), owner.getUid());
    Map<String, Object> unknown = owner.getAdditionalProperties();
    out.setAdditionalProperties(unknown == null || unknown.isEmpty() ? Map.of() : unknown);
    return out;
  }

  /**
   * The JVM's string table: its entries are collected once no object refers to them, so a value
   * that stops repeating costs nothing after its objects are gone.
   */
  private static String intern(String s) {
    return s == null ? null : s.intern();
  }

  private static Map<String, String> projectAnnotations(Map<String, String> annotations,
      PathNode node) {
    if (annotations == null || annotations.isEmpty()) {
      return annotations;
    }
    Map<String, String> out = new LinkedHashMap<>();
    if (node.isLeaf()) {
      annotations.forEach((k, v) -> {
        if (!k.equals(LAST_APPLIED)) {
          out.put(k, v);
        }
      });
    } else {
      for (String key : node.children.keySet()) {
        String value = annotations.get(key);
        if (value != null) {
          out.put(key, value);
        }
      }
    }
    return out;
  }

  /** Returns the kept part of {@code value}, or {@code null} when nothing of it is kept. */
  private static Object project(Object value, PathNode node) {
    if (node.isLeaf() || value == null) {
      return value;
    }
    if (value instanceof Map<?, ?> map) {
      return node.projectChildren(map);
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (Object element : list) {
        Object kept = project(element, node);
        if (kept != null) {
          out.add(kept);
        }
      }
      return out;
    }
    // a scalar where the path expects more keys: the path does not exist in this object
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ObjectProjection other && Objects.equals(root, other.root);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(root);
  }

  @Override
  public String toString() {
    return root == null ? "full" : "projection" + root;
  }

  /** A key-path trie; a leaf means "keep the whole subtree". */
  private static final class PathNode implements KeptKeys {
    private final Map<String, PathNode> children = new TreeMap<>();
    private boolean leaf;

    /** The children's keys, in order: one array shared by every map that keeps all of them. */
    private volatile String[] allKeys;

    /**
     * What {@code map} keeps under this node's children, or {@code null} when nothing: a compact
     * map whose keys are the path tree's own instances.
     */
    Map<String, Object> projectChildren(Map<?, ?> map) {
      String[] keys = allKeys;
      if (keys == null) {
        keys = children.keySet().toArray(new String[0]);
        allKeys = keys;
      }
      Object[] values = new Object[keys.length];
      int found = 0;
      for (int i = 0; i < keys.length; i++) {
        Object v = map.get(keys[i]);
        if (v != null) {
          v = project(v, children.get(keys[i]));
        }
        values[i] = v;
        if (v != null) {
          found++;
        }
      }
      if (found == 0) {
        return null;
      }
      if (found == 1) {
        for (int i = 0; i < keys.length; i++) {
          if (values[i] != null) {
            return Map.of(keys[i], values[i]);
          }
        }
      }
      if (found == keys.length) {
        return new CompactMap(keys, values);
      }
      String[] someKeys = new String[found];
      Object[] someValues = new Object[found];
      for (int i = 0, j = 0; i < keys.length; i++) {
        if (values[i] != null) {
          someKeys[j] = keys[i];
          someValues[j++] = values[i];
        }
      }
      return new CompactMap(someKeys, someValues);
    }

    void add(List<String> path, int index) {
      if (leaf) {
        return;
      }
      if (index == path.size()) {
        leaf = true;
        children.clear();
        return;
      }
      children.computeIfAbsent(path.get(index), k -> new PathNode()).add(path, index + 1);
    }

    boolean isLeaf() {
      return leaf;
    }

    @Override
    public boolean keepsAll() {
      return leaf;
    }

    @Override
    public KeptKeys under(String key) {
      return leaf ? this : children.get(key);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof PathNode other && leaf == other.leaf && children.equals(other.children);
    }

    @Override
    public int hashCode() {
      return Objects.hash(leaf, children);
    }

    @Override
    public String toString() {
      return leaf ? "*" : new HashMap<>(children).toString();
    }
  }
}

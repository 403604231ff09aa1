package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A generic resource as the tree extraction reads, built straight from its Java values where they
 * are what decoding JSON and projecting it leave: maps with string keys, lists, strings, booleans,
 * {@code null}, {@code int}/{@code long}/{@code double} and big-integer numbers, and metadata
 * without managed fields or extra keys (owner references without extra keys included). Anything
 * else goes the general way, {@link ClientJson#toTree}.
 *
 * <p>Why: the general way has the client serialise the object into a token buffer, read that into
 * the client's (Jackson 3) tree and copy the tree into extraction's (Jackson 2) one, three passes
 * and about 4 KB of garbage per object, for every object of a first inventory; this is one pass.
 * It builds what the general way builds, key for key, in the same order and with the same number
 * types, for as long as the client's serialisation writes these values as fabric8's defaults do.
 * {@link #forClient} checks that once, on a probe of every kind of value, and keeps the general
 * way for a client that writes them otherwise (an embedder's own mapper).
 */
final class ProjectedResourceTree {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ProjectedResourceTree() {}

  /**
   * The conversion for objects read through {@code serialization}: this one where it builds what
   * the client's own conversion builds for a probe of every value it handles, else the client's.
   */
  static Function<GenericKubernetesResource, JsonNode> forClient(
      KubernetesSerialization serialization) {
    Function<GenericKubernetesResource, JsonNode> general =
        obj -> ClientJson.toTree(serialization, obj);
    GenericKubernetesResource probe = probe();
    JsonNode direct = of(probe);
    if (direct == null || !sameTree(direct, general.apply(probe))) {
      return general;
    }
    return obj -> {
      JsonNode tree = of(obj);
      return tree != null ? tree : general.apply(obj);
    };
  }

  /** {@code r} as a tree, or {@code null} when it holds a value only the client can write. */
  static JsonNode of(GenericKubernetesResource r) {
    Map<String, Object> properties = r.getAdditionalProperties();
    if (properties == null || properties.containsKey("apiVersion")
        || properties.containsKey("kind") || properties.containsKey("metadata")) {
      // a property named as a field replaces the field where fabric8 writes it
      return null;
    }
    ObjectNode out = NODES.objectNode();
    if (r.getApiVersion() != null) {
      out.put("apiVersion", r.getApiVersion());
    }
    if (r.getKind() != null) {
      out.put("kind", r.getKind());
    }
    if (r.getMetadata() != null) {
      ObjectNode metadata = metadata(r.getMetadata());
      if (metadata == null) {
        return null;
      }
      out.set("metadata", metadata);
    }
    for (Map.Entry<String, Object> e : properties.entrySet()) {
      JsonNode value = value(e.getValue());
      if (value == null) {
        return null;
      }
      out.set(e.getKey(), value);
    }
    return out;
  }

  /** {@code ObjectMeta} as fabric8 writes it: its property order, nulls and empty lists left out. */
  private static ObjectNode metadata(ObjectMeta m) {
    if (notEmpty(m.getManagedFields())
        || (m.getAdditionalProperties() != null && !m.getAdditionalProperties().isEmpty())) {
      return null;
    }
    ObjectNode out = NODES.objectNode();
    if (!texts(out, "annotations", m.getAnnotations())) {
      return null;
    }
    text(out, "creationTimestamp", m.getCreationTimestamp());
    if (m.getDeletionGracePeriodSeconds() != null) {
      out.put("deletionGracePeriodSeconds", m.getDeletionGracePeriodSeconds().longValue());
    }
    text(out, "deletionTimestamp", m.getDeletionTimestamp());
    if (notEmpty(m.getFinalizers())) {
      ArrayNode finalizers = out.putArray("finalizers");
      m.getFinalizers().forEach(finalizers::add);
    }
    text(out, "generateName", m.getGenerateName());
    if (m.getGeneration() != null) {
      out.put("generation", m.getGeneration().longValue());
    }
    if (!texts(out, "labels", m.getLabels())) {
      return null;
    }
    text(out, "name", m.getName());
    text(out, "namespace", m.getNamespace());
    if (notEmpty(m.getOwnerReferences()) && !ownerReferences(out, m.getOwnerReferences())) {
      return null;
    }
    text(out, "resourceVersion", m.getResourceVersion());
    text(out, "selfLink", m.getSelfLink());
    text(out, "uid", m.getUid());
    return out;
  }

  /**
   * Owner references as fabric8 writes them: its property order, nulls left out; false when one
   * is not a plain {@code OwnerReference} (extra keys, another class), which the client writes.
   */
  private static boolean ownerReferences(ObjectNode out, List<?> owners) {
    ArrayNode array = out.putArray("ownerReferences");
    for (Object o : owners) {
      if (!(o instanceof OwnerReference ref) || ref.getClass() != OwnerReference.class
          || (ref.getAdditionalProperties() != null && !ref.getAdditionalProperties().isEmpty())) {
        return false;
      }
      ObjectNode node = array.addObject();
      text(node, "apiVersion", ref.getApiVersion());
      text(node, "kind", ref.getKind());
      if (ref.getBlockOwnerDeletion() != null) {
        node.put("blockOwnerDeletion", ref.getBlockOwnerDeletion().booleanValue());
      }
      if (ref.getController() != null) {
        node.put("controller", ref.getController().booleanValue());
      }
      text(node, "name", ref.getName());
      text(node, "uid", ref.getUid());
    }
    return true;
  }

  private static void text(ObjectNode out, String key, String value) {
    if (value != null) {
      out.put(key, value);
    }
  }

  /** A map of texts, left out when empty; false when it is not one. */
  private static boolean texts(ObjectNode out, String key, Map<String, String> map) {
    if (map == null || map.isEmpty()) {
      return true;
    }
    ObjectNode node = out.putObject(key);
    // checked, not trusted: a raw map can hold anything, and only texts are written as texts here
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getKey() instanceof String k)
          || (e.getValue() != null && !(e.getValue() instanceof String))) {
        return false;
      }
      node.put(k, (String) e.getValue());
    }
    return true;
  }

  private static boolean notEmpty(List<?> list) {
    return list != null && !list.isEmpty();
  }

  /** A decoded JSON value as a tree, or {@code null} when it is anything else. */
  private static JsonNode value(Object v) {
    if (v == null) {
      return NODES.nullNode();
    } else if (v instanceof String s) {
      return NODES.textNode(s);
    } else if (v instanceof Map<?, ?> map) {
      ObjectNode out = NODES.objectNode();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        JsonNode child = e.getKey() instanceof String k ? value(e.getValue()) : null;
        if (child == null) {
          return null;
        }
        out.set((String) e.getKey(), child);
      }
      return out;
    } else if (v instanceof List<?> list) {
      ArrayNode out = NODES.arrayNode(list.size());
      for (Object e : list) {
        JsonNode child = value(e);
        if (child == null) {
          return null;
        }
        out.add(child);
      }
      return out;
    } else if (v instanceof Boolean b) {
      return NODES.booleanNode(b);
    } else if (v instanceof Integer i) {
      return NODES.numberNode(i.intValue());
    } else if (v instanceof Long l) {
      return NODES.numberNode(l.longValue());
    } else if (v instanceof Double d) {
      return NODES.numberNode(d.doubleValue());
    } else if (v instanceof BigInteger b) {
      return NODES.numberNode(b);
    }
    // floats, big decimals, shorts, typed objects: the client's serialisers decide
    return null;
  }

  /** Equal trees with the same keys in the same order and the same number types. */
  static boolean sameTree(JsonNode a, JsonNode b) {
    if (a.getNodeType() != b.getNodeType() || a.size() != b.size()) {
      return false;
    }
    if (a.isNumber()) {
      return a.numberType() == b.numberType() && a.equals(b);
    }
    if (a.isObject()) {
      var ai = a.fieldNames();
      var bi = b.fieldNames();
      while (ai.hasNext()) {
        String k = ai.next();
        if (!k.equals(bi.next()) || !sameTree(a.get(k), b.get(k))) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray()) {
      for (int i = 0; i < a.size(); i++) {
        if (!sameTree(a.get(i), b.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  /** A resource with every kind of value {@link #of} builds itself, and its metadata fields. */
  static GenericKubernetesResource probe() {
    ObjectMeta meta = new ObjectMeta();
    meta.setName("probe");
    meta.setNamespace("ns");
    meta.setUid("0");
    meta.setResourceVersion("1");
    meta.setGeneration(2L);
    meta.setCreationTimestamp("2026-01-01T00:00:00Z");
    meta.setDeletionTimestamp("2026-01-01T00:00:01Z");
    meta.setDeletionGracePeriodSeconds(30L);
    meta.setGenerateName("p-");
    meta.setSelfLink("/x");
    meta.setLabels(new LinkedHashMap<>(Map.of("app", "p")));
    meta.setAnnotations(new LinkedHashMap<>(Map.of("note", "n")));
    meta.setFinalizers(new ArrayList<>(List.of("f")));
    List<OwnerReference> owners = new ArrayList<>();
    owners.add(new OwnerReference("apps/v1", true, true, "ReplicaSet", "rs", "1"));
    // unset flags are left out
    owners.add(new OwnerReference("v1", null, null, "Node", "n", "2"));
    meta.setOwnerReferences(owners);
    meta.setAdditionalProperties(new LinkedHashMap<>());
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("text", "t");
    nested.put("int", 1);
    nested.put("long", 1L << 40);
    nested.put("double", 0.5);
    nested.put("big", BigInteger.TEN.pow(30));
    nested.put("true", Boolean.TRUE);
    nested.put("null", null);
    nested.put("empty", new LinkedHashMap<>());
    List<Object> list = new ArrayList<>();
    list.add(1);
    list.add(null);
    list.add("x");
    list.add(new ArrayList<>());
    nested.put("list", list);
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion("v1");
    r.setKind("Probe");
    r.setMetadata(meta);
    r.setAdditionalProperty("data", nested);
    r.setAdditionalProperty("nothing", null);
    return r;
  }
}

package io.kollect.core;

import io.kollect.informers.ResourceType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which targets a change concerns. Reverse maps from (resource type, namespace) to the targets whose
 * current scope reads it, and from profile and sink names to the targets that reference them.
 *
 * <p>A target's type/namespace entries are its <em>resolved</em> scope (after namespace selectors and
 * the operator's namespace filter), kept per {@link UnitKey unit} (a target reads each of its
 * clusters as one unit) and replaced on every reconcile; its profile and sink references
 * come straight from its spec, so a profile or sink that appears later finds the targets waiting
 * for it. {@link #ALL_NAMESPACES} stands for a cluster-wide read.
 */
final class TargetIndex {

  static final String ALL_NAMESPACES = "*";

  private record TypeNamespace(ResourceType type, String namespace) {}

  private record Refs(String profile, List<String> sinks) {}

  private final Map<TypeNamespace, Set<UnitKey>> byTypeNamespace = new HashMap<>();
  private final Map<UnitKey, Set<TypeNamespace>> scopeOf = new HashMap<>();
  private final Map<String, Set<TargetId>> byProfile = new HashMap<>();
  private final Map<String, Set<TargetId>> bySink = new HashMap<>();
  private final Map<TargetId, Refs> refsOf = new HashMap<>();

  /** Records the profile and sinks a target references, replacing what it referenced before. */
  synchronized void putRefs(TargetId id, String profile, List<String> sinks) {
    removeRefs(id);
    Refs refs = new Refs(profile, List.copyOf(sinks));
    refsOf.put(id, refs);
    byProfile.computeIfAbsent(profile, k -> new HashSet<>()).add(id);
    for (String sink : refs.sinks) {
      bySink.computeIfAbsent(sink, k -> new HashSet<>()).add(id);
    }
  }

  /**
   * Replaces the resolved scope of a target's unit (one per cluster it reads): it reads {@code
   * types} in {@code namespaces} (empty for all namespaces).
   */
  synchronized void putScope(UnitKey id, Set<ResourceType> types, Set<String> namespaces) {
    removeScope(id);
    Set<TypeNamespace> keys = new HashSet<>();
    for (ResourceType type : types) {
      if (namespaces.isEmpty()) {
        keys.add(new TypeNamespace(type, ALL_NAMESPACES));
      } else {
        for (String ns : namespaces) {
          keys.add(new TypeNamespace(type, ns));
        }
      }
    }
    for (TypeNamespace key : keys) {
      byTypeNamespace.computeIfAbsent(key, k -> new HashSet<>()).add(id);
    }
    scopeOf.put(id, keys);
  }

  /** Forgets a target entirely (the scope of its local unit included). */
  synchronized void remove(TargetId id) {
    removeScope(UnitKey.local(id));
    removeRefs(id);
  }

  /** Forgets the scope of one unit of a target (it no longer reads that cluster). */
  synchronized void removeScope(UnitKey unit) {
    Set<TypeNamespace> keys = scopeOf.remove(unit);
    if (keys != null) {
      for (TypeNamespace key : keys) {
        removeFrom(byTypeNamespace, key, unit);
      }
    }
  }

  /**
   * The targets whose scope reads objects of {@code type} in {@code namespace}; a {@code null}
   * namespace (a cluster-scoped object) concerns every target reading the type.
   */
  synchronized Set<UnitKey> targetsFor(ResourceType type, String namespace) {
    Set<UnitKey> out = new HashSet<>(byTypeNamespace.getOrDefault(
        new TypeNamespace(type, ALL_NAMESPACES), Set.of()));
    if (namespace != null) {
      out.addAll(byTypeNamespace.getOrDefault(new TypeNamespace(type, namespace), Set.of()));
    } else {
      byTypeNamespace.forEach((k, v) -> {
        if (k.type.equals(type)) {
          out.addAll(v);
        }
      });
    }
    return out;
  }

  /** Whether the target's current scope reads objects of {@code type} in {@code namespace}. */
  synchronized boolean covers(UnitKey id, ResourceType type, String namespace) {
    Set<TypeNamespace> keys = scopeOf.get(id);
    if (keys == null) {
      return false;
    }
    if (keys.contains(new TypeNamespace(type, ALL_NAMESPACES))) {
      return true;
    }
    if (namespace == null) {
      return keys.stream().anyMatch(k -> k.type.equals(type));
    }
    return keys.contains(new TypeNamespace(type, namespace));
  }

  synchronized Set<TargetId> referencingProfile(String profile) {
    return Set.copyOf(byProfile.getOrDefault(profile, Set.of()));
  }

  synchronized Set<TargetId> referencingSink(String sink) {
    return Set.copyOf(bySink.getOrDefault(sink, Set.of()));
  }

  private void removeRefs(TargetId id) {
    Refs refs = refsOf.remove(id);
    if (refs != null) {
      removeFrom(byProfile, refs.profile, id);
      for (String sink : refs.sinks) {
        removeFrom(bySink, sink, id);
      }
    }
  }

  private static <T, I> void removeFrom(Map<T, Set<I>> map, T key, I id) {
    Set<I> set = map.get(key);
    if (set != null) {
      set.remove(id);
      if (set.isEmpty()) {
        map.remove(key);
      }
    }
  }
}

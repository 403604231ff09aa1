package io.kollect.core;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The projection the engine requests of each resource type, versioned: the union of the {@code
 * keepPaths} of every open lease of that type (or the whole object when any lease wants it).
 *
 * <p>Why: the informer cache keeps only those paths, so what an unchanged object looks like to a
 * profile depends on the other profiles reading its type. Extractions memoised under one union are
 * not valid under another; {@link #version} changes whenever the union does, and never returns to
 * an earlier value, so a memo entry stamped with it is invalidated by any change (paths added or
 * removed). Thread-safe.
 */
final class RequestedProjections {

  /** Stands for the whole object (a lease with {@code keepPaths == null}); no real path is empty. */
  private static final Set<List<String>> WHOLE = Set.of(List.of(""));

  private final Map<ResourceType, Map<InformerLease, List<List<String>>>> leases = new HashMap<>();
  private final Map<ResourceType, Set<List<String>>> unions = new HashMap<>();
  private final Map<ResourceType, Long> versions = new HashMap<>();
  private long lastVersion;

  /** Tracks {@code lease} until it is closed; returns the lease to hand out. */
  InformerLease track(InformerLease lease) {
    ResourceType type = lease.request().type();
    InformerLease tracked = new Tracked(lease);
    synchronized (this) {
      leases.computeIfAbsent(type, t -> new IdentityHashMap<>())
          .put(tracked, lease.request().keepPaths());
      recompute(type);
    }
    return tracked;
  }

  /** The current version of {@code type}'s requested projection ({@code 0}: never leased). */
  synchronized long version(ResourceType type) {
    return versions.getOrDefault(type, 0L);
  }

  private synchronized void untrack(InformerLease tracked) {
    ResourceType type = tracked.request().type();
    Map<InformerLease, List<List<String>>> open = leases.get(type);
    if (open != null && open.remove(tracked) != null) {
      if (open.isEmpty()) {
        leases.remove(type);
      }
      recompute(type);
    }
  }

  private void recompute(ResourceType type) {
    Set<List<String>> union = null;
    Map<InformerLease, List<List<String>>> open = leases.get(type);
    if (open != null) {
      union = new HashSet<>();
      for (List<List<String>> paths : open.values()) {
        if (paths == null) {
          union = WHOLE;
          break;
        }
        union.addAll(paths);
      }
    }
    if (!Objects.equals(union, unions.get(type))) {
      if (union == null) {
        unions.remove(type);
      } else {
        unions.put(type, union);
      }
      versions.put(type, ++lastVersion);
    }
  }

  /** A lease that stops being tracked when closed. */
  private final class Tracked implements InformerLease {
    private final InformerLease lease;

    Tracked(InformerLease lease) {
      this.lease = lease;
    }

    @Override
    public LeaseRequest request() {
      return lease.request();
    }

    @Override
    public List<GenericKubernetesResource> list() {
      return lease.list();
    }

    @Override
    public GenericKubernetesResource get(String namespace, String name) {
      return lease.get(namespace, name);
    }

    @Override
    public boolean hasSynced() {
      return lease.hasSynced();
    }

    @Override
    public LeaseStatus status() {
      return lease.status();
    }

    @Override
    public void close() {
      try {
        lease.close();
      } finally {
        untrack(this);
      }
    }
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exactly-once delivery while two informers speak for the same lease: from the moment a successor
 * starts listing until its predecessor has drained, both watches see every change of the shared
 * scope, each at its own pace. Before the switch only the predecessor delivers; after it both do,
 * until the predecessor owes nothing ({@link DrainDebt}), so a change one of them handles just
 * before the switch and the other just after is neither lost nor (thanks to this record)
 * announced twice.
 *
 * <p>The record is (lease, object key) → every resourceVersion delivered during the switch (not
 * only the last: the slower watch hands out a version after the faster one has moved on, and
 * that older version must still be recognised as told) and the newest change told. The newest
 * change is what a read must not go behind: when the draining predecessor announced a change
 * the successor's cache (which answers reads) has not received yet, a consumer reading the
 * cache on that announcement would see the old state, and the successor's own announcement is
 * suppressed as already told, so the change would never reach it ({@link #current}).
 *
 * <p>The record exists only while a switch is under way: memory is O(changes during the switch),
 * never O(objects), and it is dropped when the predecessor stops. The successor's initial list is
 * never announced to leases the predecessor serves (the predecessor already told them
 * everything), so it costs nothing here.
 */
final class Handover {

  /** What one lease was told of one object during the switch. */
  private static final class Told {
    final Set<String> versions = ConcurrentHashMap.newKeySet();
    ResourceEvent newest; // guarded by this
  }

  private final Map<LeaseHandle, Map<String, Told>> delivered = new ConcurrentHashMap<>();

  /**
   * Whether {@code lease} has not yet been told of {@code key} at the version {@code event}
   * carries, and records that it now is (atomically: of two informers racing, one wins).
   */
  boolean first(LeaseHandle lease, String key, ResourceEvent event) {
    String version = event.object().getMetadata().getResourceVersion();
    if (version == null) {
      return true;
    }
    Told told = delivered.computeIfAbsent(lease, l -> new ConcurrentHashMap<>())
        .computeIfAbsent(key, k -> new Told());
    if (!told.versions.add(version)) {
      return false;
    }
    synchronized (told) {
      if (told.newest == null || !newer(versionOf(told.newest.object()), version)) {
        told.newest = event;
      }
    }
    return true;
  }

  /**
   * What {@code lease} should read for {@code key} given the state a cache holds ({@code null}:
   * absent): that state, unless the lease was told of a newer one during the switch (then the
   * told state, or {@code null} if it was told the object is gone).
   */
  GenericKubernetesResource current(LeaseHandle lease, String key,
      GenericKubernetesResource cached) {
    Map<String, Told> byKey = delivered.get(lease);
    Told told = byKey == null ? null : byKey.get(key);
    if (told == null) {
      return cached;
    }
    ResourceEvent newest;
    synchronized (told) {
      newest = told.newest;
    }
    if (newest == null
        || (cached != null && !newer(versionOf(newest.object()), versionOf(cached)))) {
      return cached;
    }
    return newest.kind() == ResourceEvent.Kind.DELETED ? null : newest.object();
  }

  /** Keys {@code lease} was told of during the switch. */
  Set<String> toldKeys(LeaseHandle lease) {
    Map<String, Told> byKey = delivered.get(lease);
    return byKey == null ? Set.of() : byKey.keySet();
  }

  private static String versionOf(GenericKubernetesResource obj) {
    return obj.getMetadata().getResourceVersion();
  }

  /**
   * Whether {@code a} is a later version than {@code b}. Resource versions of one resource are
   * comparable positive integers of any length, without leading zeros (KEP-5504, stable in
   * Kubernetes 1.35, documents what every API server backed by etcd already did); a version that
   * is not one is never called newer, so reads then stay with the cache as before.
   */
  static boolean newer(String a, String b) {
    if (!comparable(a) || !comparable(b)) {
      return false;
    }
    return a.length() != b.length() ? a.length() > b.length() : a.compareTo(b) > 0;
  }

  private static boolean comparable(String version) {
    if (version == null || version.isEmpty() || version.charAt(0) == '0') {
      return false;
    }
    for (int i = 0; i < version.length(); i++) {
      char c = version.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}

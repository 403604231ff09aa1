package io.kollect.informers;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exactly-once delivery while two informers speak for the same lease: from the moment a successor
 * starts listing until its predecessor has drained, both watches see every change of the shared
 * scope, each at its own pace. Before the switch only the predecessor delivers; after it both do,
 * for {@link TypeState#DRAIN}, so a change one of them handles just before the switch and the
 * other just after is neither lost nor (thanks to this record) announced twice.
 *
 * <p>The record is (lease, object key) → every resourceVersion delivered during the switch (not
 * only the last: the slower watch hands out a version after the faster one has moved on, and
 * that older version must still be recognised as told), and exists only
 * while a switch is under way: memory is O(changes during the switch), never O(objects), and it is
 * dropped when the predecessor stops. The successor's initial list is never announced to leases
 * the predecessor serves (the predecessor already told them everything), so it costs nothing here.
 */
final class Handover {

  private final Map<LeaseHandle, Map<String, Set<String>>> delivered = new ConcurrentHashMap<>();

  /**
   * Whether {@code lease} has not yet been told of {@code key} at {@code resourceVersion}, and
   * records that it now is (atomically: of two informers racing, one wins).
   */
  boolean first(LeaseHandle lease, String key, String resourceVersion) {
    if (resourceVersion == null) {
      return true;
    }
    return delivered.computeIfAbsent(lease, l -> new ConcurrentHashMap<>())
        .computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet())
        .add(resourceVersion);
  }
}

package io.kollect.informers;

import java.time.Instant;
import java.util.List;

/**
 * What a registry's informers show of its cluster's connection: the signals a host turns into a
 * cluster's health. Computed on demand from every running informer's watch ({@link
 * InformerRegistry#connectionHealth()}), O(informers).
 *
 * @param problem the worst thing the informers see now
 * @param message what is wrong (an HTTP status or the transport error, never a credential or an
 *     object), or {@code null} when nothing is
 * @param watchedTypes the types with a running informer, sorted
 * @param openWatches watches whose request is answered and streaming now
 * @param lastContact when a request to the API server last succeeded or a watch last received a
 *     byte, or {@code null} before any did
 */
public record ConnectionHealth(
    Problem problem,
    String message,
    List<ResourceType> watchedTypes,
    int openWatches,
    Instant lastContact) {

  /** The informers' view of the connection, the most severe first. */
  public enum Problem {
    /** The API server rejects the credential (HTTP 401) on list, watch or planning requests. */
    UNAUTHORIZED,
    /**
     * Requests fail without an answer (refused, reset, timed out) or a watch stayed silent past
     * its liveness window and its connection was abandoned.
     */
    UNREACHABLE,
    /** Every leased type is forbidden (HTTP 403 or access reviews say no) and none is watched. */
    FORBIDDEN,
    /** Nothing wrong. */
    NONE
  }

  public ConnectionHealth {
    watchedTypes = List.copyOf(watchedTypes);
  }
}

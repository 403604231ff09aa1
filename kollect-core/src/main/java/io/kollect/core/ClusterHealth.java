package io.kollect.core;

import java.time.Instant;
import java.util.List;

/**
 * How the engine's connection to one cluster is doing, as its informers see it.
 *
 * @param cluster the cluster's name
 * @param state the connection's state
 * @param reason CamelCase reason for a {@code Ready} condition: {@code Connected}, {@code
 *     Unreachable}, {@code Unauthorized}, {@code Forbidden}, {@code InvalidKubeConfig}, {@code
 *     ClusterNotFound}
 * @param message what is wrong (never a credential), or a short summary when connected
 * @param serverVersion the API server's {@code gitVersion}, or {@code null} before it was read
 * @param watchedTypes the resource types ({@code apiVersion/Kind}) with an open informer, sorted
 * @param openWatches how many watches are open on the cluster
 * @param lastConnected when a request to the cluster last succeeded, or {@code null}
 */
public record ClusterHealth(
    String cluster,
    State state,
    String reason,
    String message,
    String serverVersion,
    List<String> watchedTypes,
    int openWatches,
    Instant lastConnected) {

  /** A connection's state. */
  public enum State {
    /** Requests and watches succeed. */
    CONNECTED,
    /** Requests fail or time out, or a watch stalled past the liveness window. */
    UNREACHABLE,
    /** The API server rejects the credential (401). */
    UNAUTHORIZED,
    /** The credential may not list or watch what targets need (403 on every type). */
    FORBIDDEN,
    /** The connection cannot be built (unknown cluster, invalid or refused kubeconfig). */
    INVALID
  }

  public ClusterHealth {
    watchedTypes = watchedTypes == null ? List.of() : List.copyOf(watchedTypes);
  }

  /** Whether the cluster is connected. */
  public boolean ready() {
    return state == State.CONNECTED;
  }
}

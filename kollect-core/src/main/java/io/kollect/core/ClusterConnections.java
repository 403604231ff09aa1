package io.kollect.core;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Objects;

/**
 * Where the engine gets a client for a cluster other than its own, by the name targets use in
 * {@link TargetSpec#clusters()}.
 *
 * <p>The engine opens a cluster when the first target needs it and releases it when the last one
 * stops needing it (or the engine closes), so a provider may build clients lazily and close them
 * on release. When a cluster's credentials or address change, the host calls {@link
 * KollectEngine#clusterChanged}: the engine releases the old client, opens a new one and
 * re-establishes its informers, sending nothing that did not change.
 *
 * <p>Called from engine threads; implementations must be thread-safe.
 */
public interface ClusterConnections {

  /**
   * A client for the cluster.
   *
   * @throws ClusterConnectionException when the cluster is unknown or its connection cannot be
   *     built (an invalid or refused kubeconfig); the reason is reported on the targets that read
   *     it
   */
  KubernetesClient open(String cluster) throws ClusterConnectionException;

  /** The engine no longer uses {@code client}, which {@link #open} returned for the cluster. */
  void release(String cluster, KubernetesClient client);

  /** No cluster other than the engine's own. */
  static ClusterConnections none() {
    return of(Map.of());
  }

  /**
   * Fixed clients by cluster name, owned by the caller: the engine never closes them, and {@link
   * KollectEngine#clusterChanged} re-reads the same map.
   */
  static ClusterConnections of(Map<String, ? extends KubernetesClient> clients) {
    Map<String, KubernetesClient> copy = Map.copyOf(clients);
    return new ClusterConnections() {
      @Override
      public KubernetesClient open(String cluster) throws ClusterConnectionException {
        KubernetesClient c = copy.get(Objects.requireNonNull(cluster, "cluster"));
        if (c == null) {
          throw new ClusterConnectionException(ClusterConnectionException.REASON_NOT_FOUND,
              "cluster " + cluster + " is not known");
        }
        return c;
      }

      @Override
      public void release(String cluster, KubernetesClient client) {
        // Owned by the caller.
      }
    };
  }
}

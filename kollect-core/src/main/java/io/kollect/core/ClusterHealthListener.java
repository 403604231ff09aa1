package io.kollect.core;

/**
 * Hears when a cluster connection's health changes, and when the engine stops using a cluster.
 * Called from engine threads; hosts that write status should hand off to their own executor.
 */
public interface ClusterHealthListener {

  void onHealth(ClusterHealth health);

  /** No target reads the cluster any more: its client is released and its watches closed. */
  default void onReleased(String cluster) {}
}

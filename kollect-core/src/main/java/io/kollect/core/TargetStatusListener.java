package io.kollect.core;

/**
 * Receives target status after reconciles that changed it, and the removal of targets. Called from
 * engine worker threads; hosts that write status to the API server should hand off to their own
 * executor.
 */
public interface TargetStatusListener {

  void onStatus(TargetStatus status);

  default void onRemoved(TargetId id) {}
}

package io.kollect.informers;

/** Receives a lease's events. Called on informer threads: keep it short and non-blocking. */
public interface LeaseListener {

  /** An object in the lease's scope was added, updated or deleted. */
  void onEvent(ResourceEvent event);

  /**
   * The lease's {@link LeaseStatus} changed (synced, type became served or not served, namespaces
   * forbidden or allowed, the cache's projection version, watches stalled or recovered).
   */
  default void onStatusChange(LeaseStatus status) {}
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;

/**
 * One consumer's claim on a shared informer. Reads are served from the shared cache, filtered by
 * the lease's namespaces, label selector and names. Closing the lease releases the claim; the
 * informer stops after a grace period when no lease needs it.
 */
public interface InformerLease extends AutoCloseable {

  LeaseRequest request();

  /** Cached objects in the lease's scope (possibly projected to the requested paths). */
  List<GenericKubernetesResource> list();

  /**
   * The cached state of one object in the lease's scope ({@code namespace} {@code null} for a
   * cluster-scoped object), projected like {@link #list()}; {@code null} when it is not cached.
   * Before the lease has synced it may answer from the informer that is still listing: the
   * object exists, but its absence proves nothing.
   */
  GenericKubernetesResource get(String namespace, String name);

  /**
   * Whether every informer behind the lease has completed its initial list under a projection
   * that keeps every path the lease reads.
   */
  boolean hasSynced();

  LeaseStatus status();

  /** Releases the claim. Idempotent. */
  @Override
  void close();
}

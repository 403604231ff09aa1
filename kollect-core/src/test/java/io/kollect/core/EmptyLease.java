package io.kollect.core;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import java.util.List;

/**
 * A lease that caches nothing, for tests where only its request, its status or its closing
 * matters.
 */
record EmptyLease(LeaseRequest request, LeaseStatus status, Runnable onClose)
    implements InformerLease {

  /** A synced lease of {@code request} that does nothing when closed. */
  EmptyLease(LeaseRequest request) {
    this(request, new LeaseStatus(request.type(), true, true, List.of()), () -> {});
  }

  /** A lease of its status's whole type that reports {@code status}. */
  static EmptyLease reporting(LeaseStatus status) {
    return new EmptyLease(LeaseRequest.all(status.type()), status, () -> {});
  }

  @Override
  public List<GenericKubernetesResource> list() {
    return List.of();
  }

  @Override
  public GenericKubernetesResource get(String namespace, String name) {
    return null;
  }

  @Override
  public boolean hasSynced() {
    return status.synced();
  }

  @Override
  public void close() {
    onClose.run();
  }
}

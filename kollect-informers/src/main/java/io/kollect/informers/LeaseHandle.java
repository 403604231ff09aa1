package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The registry's {@link InformerLease}: a filter over its type's shared informers. */
final class LeaseHandle implements InformerLease {

  private static final Logger log = LoggerFactory.getLogger(LeaseHandle.class);

  final TypeState state;
  private final LeaseRequest request;
  private final LeaseListener listener;
  private final LabelSelectorMatcher selector;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Whether a plan has taken this lease into account (before that it cannot be synced). */
  private volatile boolean planned;
  private LeaseStatus lastPublished;
  /** The last projection asked about in {@link #coveredBy} and the answer (informer threads). */
  private volatile Coverage coverage;

  private record Coverage(ObjectProjection projection, boolean covered) {}

  LeaseHandle(TypeState state, LeaseRequest request, LeaseListener listener,
      LabelSelectorMatcher selector) {
    this.state = state;
    this.request = request;
    this.listener = listener;
    this.selector = selector;
  }

  @Override
  public LeaseRequest request() {
    return request;
  }

  @Override
  public List<GenericKubernetesResource> list() {
    return closed.get() ? List.of() : state.read(this);
  }

  @Override
  public GenericKubernetesResource get(String namespace, String name) {
    return closed.get() ? null : state.get(this, namespace, name);
  }

  @Override
  public boolean hasSynced() {
    return status().synced();
  }

  @Override
  public LeaseStatus status() {
    return state.statusFor(this);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      state.release(this);
    }
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Whether objects cached under {@code projection} hold every path this lease reads. */
  boolean coveredBy(ObjectProjection projection) {
    Coverage c = coverage;
    if (c == null || c.projection() != projection) {
      c = new Coverage(projection, projection.covers(request.keepPaths()));
      coverage = c;
    }
    return c.covered();
  }

  /** Whether {@code obj} is in this lease's scope (namespaces, names, labels). */
  boolean accepts(GenericKubernetesResource obj) {
    ObjectMeta m = obj.getMetadata();
    if (m == null) {
      return false;
    }
    // cluster-scoped objects have no namespace; a namespace list cannot exclude them
    if (m.getNamespace() != null && !request.namespaces().isEmpty()
        && !request.namespaces().contains(m.getNamespace())) {
      return false;
    }
    if (!request.names().isEmpty() && !request.names().contains(m.getName())) {
      return false;
    }
    return selector.test(m.getLabels());
  }

  void deliver(ResourceEvent event) {
    if (closed.get()) {
      return;
    }
    try {
      listener.onEvent(event);
    } catch (RuntimeException e) {
      log.warn("Lease listener for {} failed on {}", request.type(), event, e);
    }
  }

  /** A plan has taken this lease into account. */
  void markPlanned() {
    planned = true;
  }

  boolean planned() {
    return planned;
  }

  /** Tells the listener {@code status} unless it was the last one told (planner thread). */
  void publish(LeaseStatus status) {
    if (status.equals(lastPublished) || closed.get()) {
      return;
    }
    lastPublished = status;
    try {
      listener.onStatusChange(status);
    } catch (RuntimeException e) {
      log.warn("Lease listener for {} failed on status {}", request.type(), status, e);
    }
  }

  @Override
  public String toString() {
    return "lease(" + request.type() + ", namespaces=" + request.namespaces() + ")";
  }
}

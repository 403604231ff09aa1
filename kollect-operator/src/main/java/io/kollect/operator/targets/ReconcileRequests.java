package io.kollect.operator.targets;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.operator.crd.KollectTarget;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@value #ANNOTATION} annotation on a KollectTarget, as Flux's {@code
 * reconcile.fluxcd.io/requestedAt}: a new value forces a full pass of the target (and gives an
 * open circuit one attempt at once); the handled value is echoed in {@code
 * status.lastHandledReconcileAt}, which also keeps a restarted operator from handling it twice.
 */
public final class ReconcileRequests {

  public static final String ANNOTATION = "kollect.io/reconcile-requested-at";

  private final KollectEngine engine;
  private final Map<TargetId, String> handled = new ConcurrentHashMap<>();

  public ReconcileRequests(KollectEngine engine) {
    this.engine = engine;
  }

  /**
   * Handles the target's annotation, if it carries a value not handled yet.
   *
   * @return whether a new value was handled: its echo then asks for a status write, as a full
   *     pass that changes nothing publishes no new status
   */
  boolean onTarget(KollectTarget target, TargetId id) {
    Map<String, String> annotations = target.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(ANNOTATION);
    if (value == null) {
      return false;
    }
    String last = handled.get(id);
    if (last == null && target.getStatus() != null) {
      last = target.getStatus().lastHandledReconcileAt();
    }
    handled.put(id, value);
    if (!value.equals(last)) {
      engine.requestFullPass(id);
      return true;
    }
    return false;
  }

  /** Whether an update changed the annotation (it bumps no generation). */
  public static boolean changed(HasMetadata before, HasMetadata after) {
    return !Objects.equals(value(before), value(after));
  }

  private static String value(HasMetadata o) {
    Map<String, String> a = o.getMetadata().getAnnotations();
    return a == null ? null : a.get(ANNOTATION);
  }

  /** The last value handled for the target, or {@code null}. */
  public String handled(TargetId id) {
    return handled.get(id);
  }

  void forget(TargetId id) {
    handled.remove(id);
  }
}

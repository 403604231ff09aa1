package io.kollect.operator.targets;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.core.TargetId;
import io.kollect.operator.crd.KindWatch;
import io.kollect.operator.crd.KollectTarget;
import java.util.List;
import java.util.Optional;

/**
 * The KollectTargets as cached by the feed's watch, for the parts that read them (inventory
 * objects, the sweep, target statuses). Empty until the feed starts watching; built before every
 * reader so that the operator wires its parts in dependency order.
 */
public final class KollectTargets {

  private volatile KindWatch<KollectTarget> watch;

  /** The feed's watch, once started. */
  void watching(KindWatch<KollectTarget> watch) {
    this.watch = watch;
  }

  Optional<KindWatch<KollectTarget>> watch() {
    return Optional.ofNullable(watch);
  }

  /** A KollectTarget as cached (readable). */
  public Optional<KollectTarget> target(TargetId id) {
    KindWatch<KollectTarget> w = watch;
    return w == null ? Optional.empty() : w.get(id.namespace() + "/" + id.name());
  }

  /** A KollectTarget as cached, readable or not: its status is written from this. */
  public Optional<GenericKubernetesResource> cachedTarget(TargetId id) {
    KindWatch<KollectTarget> w = watch;
    return w == null ? Optional.empty() : w.cached(id.namespace() + "/" + id.name());
  }

  /** Every readable KollectTarget. */
  public List<KollectTarget> list() {
    KindWatch<KollectTarget> w = watch;
    return w == null ? List.of() : w.list();
  }
}

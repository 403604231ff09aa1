package io.kollect.operator.inventory;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.core.TargetId;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.shard.ShardNames;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps KollectInventory objects only for targets that want them, at a cost that does not grow
 * with the targets that do not.
 *
 * <p>When this instance starts leading, {@link #sweep} lists every KollectInventory object once,
 * cluster-wide, deletes those whose target is gone or has {@code writeInventory} off (deleted
 * while no leader was watching), and remembers which targets have objects. From then on a target
 * that turns {@code writeInventory} off, or is deleted, costs a delete only when it is known to
 * have objects ({@link #targetWithoutInventory}); a target that never wrote any costs nothing.
 * Targets this instance writes objects for are added as they are written ({@link #written}).
 *
 * <p>Before the first sweep nothing is known and nothing is deleted here: the sweep takes care of
 * what was there.
 */
public final class InventorySweep {

  private static final Logger log = LoggerFactory.getLogger(InventorySweep.class);

  /** The cluster side: list every inventory object, delete one, delete a target's. */
  public interface Api {
    List<KollectInventory> listAll();

    void delete(KollectInventory inventory);

    /** Deletes a target's objects (waiting for a write of it in progress). */
    void deleteTarget(TargetId id);
  }

  private final Api api;
  private final Function<TargetId, Optional<KollectTarget>> targets;
  private final Consumer<Runnable> executor;
  private final Set<TargetId> withObjects = ConcurrentHashMap.newKeySet();
  private volatile boolean swept;
  /**
   * Objects of no running shard (see {@link ShardNames#foreign}), or of a cluster this shard no
   * longer reads ({@link InventoryObjectSink#ofClusterNotRead}): deleted by the sweep.
   */
  private final java.util.function.Predicate<KollectInventory> foreignShard;

  public InventorySweep(Api api, Function<TargetId, Optional<KollectTarget>> targets,
      Consumer<Runnable> executor) {
    this(api, targets, executor, inv -> false);
  }

  /**
   * @param foreignShard objects no running shard writes (left by another shard count, or by the
   *     operator before it was sharded): the sweep deletes them, as their records are written by
   *     their owners into their own objects now
   */
  public InventorySweep(Api api, Function<TargetId, Optional<KollectTarget>> targets,
      Consumer<Runnable> executor, java.util.function.Predicate<KollectInventory> foreignShard) {
    this.foreignShard = foreignShard;
    this.api = api;
    this.targets = targets;
    this.executor = executor;
  }

  /** The cluster API: inventory objects through {@code client}, target deletes through the sink. */
  public static Api clusterApi(KubernetesClient client, InventoryObjectSink sink) {
    return new Api() {
      @Override
      public List<KollectInventory> listAll() {
        return client.resources(KollectInventory.class).inAnyNamespace()
            .withLabel(InventoryObjectSink.TARGET_LABEL).list().getItems();
      }

      @Override
      public void delete(KollectInventory inventory) {
        client.resource(inventory).delete();
      }

      @Override
      public void deleteTarget(TargetId id) {
        sink.deleteTarget(id);
      }
    };
  }

  /**
   * Lists every inventory object once, deletes the orphans and remembers which targets have
   * objects. Call with the KollectTargets listed (an unknown target reads as deleted).
   */
  public void sweep() {
    try {
      Set<TargetId> found = new java.util.HashSet<>();
      for (KollectInventory inv : api.listAll()) {
        if (inv.getSpec() == null || inv.getSpec().target() == null) {
          continue;
        }
        TargetId id = new TargetId(inv.getMetadata().getNamespace(), inv.getSpec().target());
        if (wantsInventory(id) && foreignShard.test(inv)) {
          log.info("deleting inventory {} of target {}: written by a shard that no longer runs "
              + "or no longer reads its cluster (the shard count or rule changed)",
              inv.getMetadata().getName(), id);
          api.delete(inv);
        } else if (wantsInventory(id)) {
          found.add(id);
        } else {
          log.info("deleting inventory {} of target {} (deleted, or writeInventory off)",
              inv.getMetadata().getName(), id);
          api.delete(inv);
        }
      }
      withObjects.addAll(found);
      swept = true;
    } catch (KubernetesClientException e) {
      log.warn("cannot sweep orphaned inventory objects: {}", e.getMessage());
    }
  }

  private boolean wantsInventory(TargetId id) {
    Optional<KollectTarget> owner = targets.apply(id);
    return owner.isPresent() && owner.get().getSpec() != null
        && Boolean.TRUE.equals(owner.get().getSpec().writeInventory());
  }

  /** Objects of this target were written. */
  public void written(TargetId id) {
    withObjects.add(id);
  }

  /**
   * The target was deleted or has {@code writeInventory} off: its objects, if it is known to have
   * any, are deleted (on the executor).
   */
  public void targetWithoutInventory(TargetId id) {
    if (!swept || !withObjects.remove(id)) {
      return;
    }
    executor.accept(() -> {
      try {
        api.deleteTarget(id);
      } catch (KubernetesClientException e) {
        withObjects.add(id); // tried again on the next change of the target, or the next sweep
        log.warn("KollectTarget {}: cannot delete its inventory objects: {}", id, e.getMessage());
      }
    });
  }

  /** Leadership lost: what is known may change under the next leader. */
  public void forget() {
    swept = false;
    withObjects.clear();
  }
}

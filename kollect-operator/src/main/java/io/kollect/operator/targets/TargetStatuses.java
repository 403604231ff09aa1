package io.kollect.operator.targets;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.core.Condition;
import io.kollect.core.Shard;
import io.kollect.core.TargetId;
import io.kollect.core.TargetStatus;
import io.kollect.core.TargetStatusListener;
import io.kollect.export.DeliveryStatus;
import io.kollect.operator.crd.KollectTargetStatus.ShardEntry;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.inventory.InventoryHealth;
import io.kollect.operator.inventory.InventoryObjectSink;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.shard.ShardLeases;
import io.kollect.operator.shard.ShardStatuses;
import io.kollect.operator.status.CoalescedWrites;
import io.kollect.operator.status.StatusWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * From the engine's target statuses to the KollectTargets' status subresource and the {@code
 * kollect_target_*} metrics.
 *
 * <p>Writes are coalesced ({@link CoalescedWrites}): at most one per target per {@code
 * --status-write-interval}, carrying the newest status when it runs. A status that only says the
 * informers are still listing ({@code Ready=False, NotSynced}) is transient: its first write waits
 * one interval, and a settled status arriving meanwhile is written at once instead, so a target
 * that syncs quickly costs one write on start, not two.
 *
 * <p><b>Sharded</b> ({@link Shard#sharded()}), a write applies this shard's own {@code
 * status.shards[]} entry, and on the aggregator (the lowest-index shard with a leader, {@link
 * ShardStatuses#aggregates}) then writes the top level over all shards' entries ({@link
 * ShardStatuses}). The aggregator writes again when another shard's entry changes ({@link
 * #shardsChanged}) or another shard stops or starts leading ({@link #livenessChanged}, which also
 * makes a shard the aggregator, or no longer); the same coalescing applies. Unsharded, the whole
 * status is one PUT as before.
 */
public final class TargetStatuses implements TargetStatusListener {

  static final String REASON_NOT_SYNCED = "NotSynced";

  private final CoalescedWrites<TargetId> writes;
  private final StatusWriter writer;
  private final OperatorMetrics metrics;
  private final InventoryObjectSink inventory;
  private final Function<TargetId, Optional<GenericKubernetesResource>> cached;
  private final BooleanSupplier leader;
  private final Function<TargetId, String> handledReconcile;
  private final Supplier<Map<Integer, String>> downShards;
  private final Clock clock;
  private final Shard shard;
  private final Map<TargetId, TargetStatus> last = new ConcurrentHashMap<>();
  /** Targets that reported a status since this instance started leading. */
  private final Set<TargetId> reportedWhileLeading = ConcurrentHashMap.newKeySet();

  /**
   * Where a target's status takes what the engine's status does not say.
   *
   * @param cached the KollectTarget as cached, readable or not: its status is written from this
   * @param leader whether this instance leads (only the leader writes)
   * @param handledReconcile the last {@code kollect.io/reconcile-requested-at} value handled
   * @param downShards which shards have no leader ({@link ShardLeases#down}), which decides
   *     whether this shard aggregates and what the top level says
   */
  public record Sources(Function<TargetId, Optional<GenericKubernetesResource>> cached,
      BooleanSupplier leader, Function<TargetId, String> handledReconcile,
      Supplier<Map<Integer, String>> downShards) {

    /**
     * No forced reconcile handled, no shard judged down (without leader election there are no
     * Leases to judge by).
     */
    public static Sources of(Function<TargetId, Optional<GenericKubernetesResource>> cached,
        BooleanSupplier leader) {
      return new Sources(cached, leader, id -> null, Map::of);
    }
  }

  public TargetStatuses(CoalescedWrites<TargetId> writes, StatusWriter writer, OperatorMetrics metrics,
      InventoryObjectSink inventory, Function<TargetId, Optional<GenericKubernetesResource>> cached,
      BooleanSupplier leader, Clock clock) {
    this(writes, writer, metrics, inventory, Sources.of(cached, leader), clock, Shard.NONE);
  }

  public TargetStatuses(CoalescedWrites<TargetId> writes, StatusWriter writer, OperatorMetrics metrics,
      InventoryObjectSink inventory, Sources sources, Clock clock, Shard shard) {
    this.shard = shard;
    this.writes = writes;
    this.writer = writer;
    this.metrics = metrics;
    this.inventory = inventory;
    this.cached = sources.cached();
    this.leader = sources.leader();
    this.handledReconcile = sources.handledReconcile();
    this.downShards = sources.downShards();
    this.clock = clock;
  }

  @Override
  public void onStatus(TargetStatus status) {
    last.put(status.id(), status);
    if (leader.getAsBoolean()) {
      reportedWhileLeading.add(status.id());
    }
    metrics.target(status);
    requestWrite(status.id());
  }

  @Override
  public void onRemoved(TargetId id) {
    metrics.targetRemoved(id);
    forget(id);
  }

  /** The target is gone (deleted, or no longer handled). */
  public void forget(TargetId id) {
    last.remove(id);
    reportedWhileLeading.remove(id);
    writes.forget(id);
  }

  /** The engine's newest status of a target. */
  public Optional<TargetStatus> status(TargetId id) {
    return Optional.ofNullable(last.get(id));
  }

  /** Whether the target reported since this instance started leading (its checkpoints loaded). */
  public boolean reportedWhileLeading(TargetId id) {
    return reportedWhileLeading.contains(id);
  }

  /** Leadership changed: which targets reported while leading starts afresh. */
  public void leadershipChanged() {
    reportedWhileLeading.clear();
  }

  /** A new leader writes every known status (unless a target's status already says it). */
  public void requestAll() {
    for (TargetId id : Set.copyOf(last.keySet())) {
      requestWrite(id);
    }
  }

  /**
   * Some shard stopped or started leading: the aggregator, which may be this shard only now,
   * writes the top level of every target again (coalesced per target), as for a changed entry.
   */
  public void livenessChanged() {
    for (TargetId id : Set.copyOf(last.keySet())) {
      shardsChanged(id);
    }
  }

  /** Asks for a write of the target's status (after an inventory write, too), coalesced. */
  public void requestWrite(TargetId id) {
    TargetStatus status = last.get(id);
    if (status != null && isTransient(status)) {
      writes.requestDeferred(id, () -> write(id));
    } else {
      writes.request(id, () -> write(id));
    }
  }

  /** Only says the informers are still listing: worth a write only if it lasts. */
  static boolean isTransient(TargetStatus status) {
    Condition ready = status.condition(Condition.READY);
    return ready != null && !"True".equals(ready.status()) && REASON_NOT_SYNCED.equals(ready.reason());
  }

  /** Writes the newest status now (on the coalescer's thread). */
  void write(TargetId id) {
    TargetStatus status = last.get(id);
    if (!leader.getAsBoolean() || status == null) {
      return;
    }
    Optional<GenericKubernetesResource> object = cached.apply(id);
    if (object.isEmpty()) {
      return;
    }
    Map<String, DeliveryStatus> deliveries = deliveries(status);
    metrics.deliveries(id, deliveries);
    InventoryHealth health = inventory.health(id).orElse(null);
    String handled = handledReconcile.apply(id);
    Instant now = clock.instant();
    Function<GenericKubernetesResource, KollectTargetStatus> own = base -> CrTranslation.status(
        status, health, deliveries, now, previousStatus(base)).withLastHandledReconcileAt(handled);
    if (!shard.sharded()) {
      writer.writeNow(object.get(), own.apply(object.get()));
      return;
    }
    ShardEntry entry = ShardStatuses.entry(shard.index(), own.apply(object.get()));
    Optional<GenericKubernetesResource> applied = writer.applyEntryNow(object.get(),
        ShardStatuses.fieldManager(shard.index()), ShardStatuses.LIST, ShardStatuses.KEY, entry);
    Map<Integer, String> down = downShards.get();
    if (!ShardStatuses.aggregates(shard.index(), shard.total(), down.keySet())) {
      return;
    }
    // The apply's answer holds every shard's newest entry: the top level starts from it.
    writer.writeNowFrom(applied.orElse(object.get()), base -> {
      KollectTargetStatus mine = own.apply(base);
      KollectTargetStatus stored = previousStatus(base);
      return ShardStatuses.topLevel(mine,
          stored == null || stored.shards() == null ? List.of() : stored.shards(), entry,
          shard.total(), generation(base),
          stored == null || stored.conditions() == null ? List.of() : stored.conditions(), now,
          down);
    });
  }

  /**
   * Another shard's entry of a target changed: the aggregator writes the top level again
   * (coalesced); other shards and unsharded operators have nothing to do.
   */
  public void shardsChanged(TargetId id) {
    if (shard.sharded() && last.containsKey(id)
        && ShardStatuses.aggregates(shard.index(), shard.total(), downShards.get().keySet())) {
      requestWrite(id);
    }
  }

  private static long generation(GenericKubernetesResource object) {
    Long g = object.getMetadata().getGeneration();
    return g == null ? 0 : g;
  }

  /**
   * How the target's records reach each of its KollectSinks, as the engine reported them; the
   * inventory objects are reported apart ({@code status.inventory}), so that sink is left out.
   */
  static Map<String, DeliveryStatus> deliveries(TargetStatus status) {
    Map<String, DeliveryStatus> out = new TreeMap<>(status.deliveries());
    out.remove(InventoryObjectSink.NAME);
    return out;
  }

  private static KollectTargetStatus previousStatus(GenericKubernetesResource object) {
    Object status = object.getAdditionalProperties().get("status");
    if (status == null) {
      return null;
    }
    try {
      return CrTranslation.lenient().convertValue(status, KollectTargetStatus.class);
    } catch (IllegalArgumentException e) {
      return null; // written by a newer operator: start the transition times afresh
    }
  }
}

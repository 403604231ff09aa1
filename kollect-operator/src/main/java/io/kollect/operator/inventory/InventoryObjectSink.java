package io.kollect.operator.inventory;

import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kollect.core.Shard;
import io.kollect.core.TargetId;
import io.kollect.export.RecordsRejectedException;
import io.kollect.export.Rejection;
import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectInventorySpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.shard.ShardNames;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's inventory sink in a cluster: keeps each target's current records in {@code
 * KollectInventory} objects in the target's namespace.
 *
 * <p><b>One target's failure stays that target's.</b> The exporter hands this sink one target's
 * records at a time (a lane per target) and, as the sink says {@link #concurrentWrites()}, writes
 * up to {@link io.kollect.export.SinkOptions#concurrency()} targets at once: a target whose
 * writes fail is retried on its own backoff by the exporter while the other targets' writes go
 * on. {@link #write} applies the records to the target's desired inventory ({@link
 * TargetInventory}) and writes the target's objects before it returns, so an acknowledged record
 * is a written record and the exporter's checkpoint never runs ahead of the cluster (a kill -9
 * loses nothing acknowledged). Writes are level-based: a write always carries the latest records
 * of the target, so changes that pile up during a slow or failed write cost one write.
 *
 * <p><b>Sizes are computed before writing.</b> The records of a target, ordered by key, are cut
 * into parts of at most {@code maxPartBytes} bytes of record JSON named {@code <target>-<part>};
 * a record larger than {@code maxRecordBytes} can never fit in an object under the API server's
 * request limit, so it is left out (no stub) and reported in the target's status with its object
 * and size, and the rest is written. When the API server still refuses a part as too large, the
 * part is cut smaller, and a part of one record leaves that record out the same way. Nothing that
 * cannot fit is ever retried; it is written again only when its content changes (and fits).
 *
 * <p>Parts are labelled {@code kollect.io/target=<target>} and owned by the KollectTarget
 * (controller, blockOwnerDeletion), so Kubernetes' garbage collector removes them with it; the
 * operator also deletes them itself when it sees the target go ({@link #deleteTarget}). The first
 * write of a target after this instance took over reads the existing parts, so a new leader
 * continues from what the old one wrote. Parts whose content did not change are not written.
 */
public final class InventoryObjectSink implements Sink {

  private static final Logger log = LoggerFactory.getLogger(InventoryObjectSink.class);
  public static final String NAME = "kollect-inventory";
  public static final String TARGET_LABEL = "kollect.io/target";
  /** On the parts of a target's records from another cluster than the operator's own. */
  static final String CLUSTER_LABEL = "kollect.io/cluster";
  /** Record JSON per part; well under the API server's ~1.5 MiB object limit. */
  public static final int DEFAULT_MAX_PART_BYTES = 512 * 1024;
  /**
   * Largest record that gets a part of its own: 1 MiB of JSON, leaving room for the object's
   * metadata and managed fields under etcd's 1.5 MiB request limit.
   */
  public static final int DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;
  private static final int MAX_ERROR_CHARS = 400;

  private final KubernetesClient client;
  private final Function<TargetId, Optional<KollectTarget>> targets;
  private final int maxPartBytes;
  private final int maxRecordBytes;
  private final Consumer<TargetId> onHealthChange;
  private final Clock clock;
  /** The operator's own cluster; {@code null} treats every record as the operator's own. */
  private final String localCluster;
  private final Map<InventoryKey, TargetInventory> inventories = new ConcurrentHashMap<>();
  /** This replica's shard: its objects are {@code <target>[-<cluster>]-shard-I-<part>}. */
  private final Shard shard;

  /**
   * One target's records from one cluster, which have objects of their own: {@code
   * <target>-<part>} for the operator's own cluster ({@code cluster == null}), {@code
   * <target>-<cluster>-<part>} labelled {@code kollect.io/cluster} for another, so two clusters
   * holding the same namespace/name never share a record slot.
   */
  record InventoryKey(TargetId id, String cluster) {}

  public InventoryObjectSink(KubernetesClient client, Function<TargetId, Optional<KollectTarget>> targets,
      int maxPartBytes) {
    this(client, targets, maxPartBytes, DEFAULT_MAX_RECORD_BYTES, id -> { }, Clock.systemUTC());
  }

  /**
   * @param maxPartBytes record JSON per part
   * @param maxRecordBytes a larger record is left out and reported
   * @param onHealthChange told after every write attempt of a target (for its status and metrics)
   */
  public InventoryObjectSink(KubernetesClient client, Function<TargetId, Optional<KollectTarget>> targets,
      int maxPartBytes, int maxRecordBytes, Consumer<TargetId> onHealthChange, Clock clock) {
    this(client, targets, maxPartBytes, maxRecordBytes, onHealthChange, clock, null);
  }

  /** As above; records of clusters other than {@code localCluster} get objects of their own. */
  public InventoryObjectSink(KubernetesClient client, Function<TargetId, Optional<KollectTarget>> targets,
      int maxPartBytes, int maxRecordBytes, Consumer<TargetId> onHealthChange, Clock clock,
      String localCluster) {
    this(client, targets, maxPartBytes, maxRecordBytes, onHealthChange, clock, localCluster,
        Shard.NONE);
  }

  /**
   * As above, for one shard: its objects carry {@link ShardNames#suffix} in their names and the
   * {@value ShardNames#SHARD_LABEL} label, so each shard reads back and rewrites only its own; and
   * records of objects the shard does not own (any more: the shard count changed) are dropped
   * when its objects are read back, never written again.
   */
  public InventoryObjectSink(KubernetesClient client, Function<TargetId, Optional<KollectTarget>> targets,
      int maxPartBytes, int maxRecordBytes, Consumer<TargetId> onHealthChange, Clock clock,
      String localCluster, Shard shard) {
    this.shard = java.util.Objects.requireNonNull(shard, "shard");
    this.localCluster = localCluster;
    this.client = client;
    this.targets = targets;
    this.maxPartBytes = maxPartBytes;
    this.maxRecordBytes = maxRecordBytes;
    this.onHealthChange = onHealthChange;
    this.clock = clock;
  }

  private MixedOperation<KollectInventory, KubernetesResourceList<KollectInventory>,
      Resource<KollectInventory>> inventories() {
    return client.resources(KollectInventory.class);
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Applies the records to their targets' desired inventories and writes each target's objects.
   *
   * @throws SinkException retryable, naming the API server and the cause, when a target's objects
   *     cannot be written (the exporter retries that target with backoff)
   * @throws RecordsRejectedException for records of the batch that no KollectInventory object can
   *     hold (everything else was written): the exporter reports them and does not offer them
   *     again until they change
   */
  @Override
  public void write(List<Record> batch) throws SinkException {
    Map<InventoryKey, List<Record>> byTarget = new LinkedHashMap<>();
    for (Record r : batch) {
      byTarget.computeIfAbsent(new InventoryKey(TargetId.parse(r.target()), otherCluster(r)),
          k -> new ArrayList<>()).add(r);
    }
    List<Rejection> rejections = new ArrayList<>();
    for (Map.Entry<InventoryKey, List<Record>> e : byTarget.entrySet()) {
      TargetInventory inventory = inventories.computeIfAbsent(e.getKey(),
          k -> new TargetInventory(k.id(), k.cluster(), maxPartBytes, maxRecordBytes));
      inventory.apply(e.getValue());
      if (!writeNow(inventory)) {
        throw SinkException.retryable(inventory.health().lastError(), null);
      }
      Map<String, InventoryHealth.RejectedRecord> rejected = inventory.rejectedByKey();
      for (Record r : e.getValue()) {
        InventoryHealth.RejectedRecord x = rejected.get(r.key());
        if (r.op() == Op.UPSERT && x != null) {
          rejections.add(new Rejection(r.key(), x.object() + " (" + x.bytes() + " bytes): "
              + x.reason()));
        }
      }
    }
    if (!rejections.isEmpty()) {
      throw new RecordsRejectedException(rejections, true);
    }
  }

  /** Several targets are written at once; one target's writes are serialised by its lock. */
  @Override
  public boolean concurrentWrites() {
    return true;
  }

  /** One write attempt of a target under its lock; false when it failed (recorded on it). */
  private boolean writeNow(TargetInventory inventory) {
    inventory.writeLock.lock();
    try {
      return inventory.retired() || writeOnce(inventory);
    } finally {
      inventory.writeLock.unlock();
      onHealthChange.accept(inventory.id);
    }
  }

  /** The record's cluster when it is not the operator's own, else {@code null}. */
  private String otherCluster(Record r) {
    return localCluster == null || r.cluster() == null || localCluster.equals(r.cluster())
        ? null : r.cluster();
  }

  /** The write health of a target's inventory objects (of all its clusters), when it has any. */
  public Optional<InventoryHealth> health(TargetId id) {
    List<InventoryHealth> each = inventories.values().stream().filter(i -> i.id.equals(id))
        .map(TargetInventory::health).toList();
    if (each.size() <= 1) {
      return each.stream().findFirst();
    }
    int records = 0;
    int pending = 0;
    int failures = 0;
    java.time.Instant failingSince = null;
    String lastError = null;
    java.time.Instant lastWritten = null;
    List<InventoryHealth.RejectedRecord> rejected = new ArrayList<>();
    boolean unwritten = false;
    for (InventoryHealth h : each) {
      records += h.records();
      pending += h.pending();
      if (h.consecutiveFailures() > failures) {
        failures = h.consecutiveFailures();
        lastError = h.lastError();
      }
      if (h.failingSince() != null && (failingSince == null
          || h.failingSince().isBefore(failingSince))) {
        failingSince = h.failingSince();
      }
      // Written when every cluster's part is: the oldest of their last writes.
      unwritten |= h.lastWritten() == null;
      if (h.lastWritten() != null && (lastWritten == null
          || h.lastWritten().isBefore(lastWritten))) {
        lastWritten = h.lastWritten();
      }
      rejected.addAll(h.rejected());
    }
    return Optional.of(new InventoryHealth(records, pending, failures, failingSince, lastError,
        unwritten ? null : lastWritten, rejected));
  }

  /** One attempt; false when it failed (the failure is recorded on the inventory). */
  private boolean writeOnce(TargetInventory inventory) {
    TargetId id = inventory.id;
    String prefix = (inventory.cluster == null ? id.name() : id.name() + "-" + inventory.cluster)
        + ShardNames.suffix(shard);
    Optional<KollectTarget> owner = targets.apply(id);
    if (owner.isEmpty() || owner.get().getSpec() == null
        || !Boolean.TRUE.equals(owner.get().getSpec().writeInventory())) {
      // The target is gone or no longer wants inventory objects; writing would leave orphans.
      log.debug("inventory of {}: target not found or writeInventory off, not written", id);
      return true;
    }
    try {
      if (!inventory.loaded()) {
        inventory.load(list(id).stream()
            .filter(i -> java.util.Objects.equals(inventory.cluster == null ? null
                : targetLabel(inventory.cluster), clusterOf(i)))
            .filter(i -> java.util.Objects.equals(ShardNames.label(shard), shardOf(i)))
            .map(KollectInventory::getSpec).filter(s -> s != null).toList(), this::owns);
      }
      OwnerReference ref = ownerReference(owner.get());
      // Each round either succeeds, leaves one record out or halves the part size: bounded.
      while (true) {
        TargetInventory.Snapshot snapshot = inventory.snapshot();
        // Another cluster's records that are all gone (it left the target) leave no empty part.
        List<KollectInventorySpec> parts = inventory.cluster != null && snapshot.records().isEmpty()
            ? List.of()
            : TargetInventory.split(id.name(), snapshot.records(), snapshot.partLimit());
        Optional<PartTooLarge> refused = writeParts(id, inventory.cluster, prefix, ref, parts,
            inventory.written());
        if (refused.isEmpty()) {
          inventory.succeeded(snapshot, parts, clock.instant());
          return true;
        }
        PartTooLarge tooLarge = refused.get();
        List<TargetInventory.Sized> in = recordsOf(tooLarge.part(), snapshot.records());
        if (in.size() == 1) {
          TargetInventory.Sized only = in.get(0);
          log.warn("inventory of {}: the API server refused record {} ({} bytes) as too large; "
              + "it is left out: {}", id, only.key(), only.bytes(), tooLarge.cause());
          inventory.rejectedByServer(only, "the API server refused its part (" + tooLarge.bytes()
              + " bytes) as too large: " + tooLarge.cause());
        } else {
          inventory.shrinkParts(tooLarge.bytes());
        }
      }
    } catch (KubernetesClientException | IllegalArgumentException e) {
      String error = describe(id, e);
      boolean first = inventory.consecutiveFailures() == 0;
      inventory.failed(error, clock.instant());
      if (first) {
        log.warn("{} (retrying with backoff)", error);
      } else {
        log.debug("{} (attempt {})", error, inventory.consecutiveFailures());
      }
      return false;
    }
  }

  /** A part the API server refused as too large. */
  private record PartTooLarge(KollectInventorySpec part, int bytes, String cause) {}

  private static List<TargetInventory.Sized> recordsOf(KollectInventorySpec part,
      List<TargetInventory.Sized> records) {
    java.util.Set<Object> nodes = java.util.Collections.newSetFromMap(
        new java.util.IdentityHashMap<>());
    nodes.addAll(part.records());
    return records.stream().filter(r -> nodes.contains(r.json())).toList();
  }

  /** Writes the changed parts and deletes the surplus; the refused part when one is too large. */
  private Optional<PartTooLarge> writeParts(TargetId id, String cluster, String prefix,
      OwnerReference ref, List<KollectInventorySpec> parts, List<KollectInventorySpec> before) {
    for (KollectInventorySpec part : parts) {
      if (part.part() < before.size() && before.get(part.part()).equals(part)) {
        continue;
      }
      KollectInventory inv = new KollectInventory();
      inv.getMetadata().setName(partName(prefix, part.part()));
      inv.getMetadata().setNamespace(id.namespace());
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(TARGET_LABEL, targetLabel(id.name()));
      labels.put("app.kubernetes.io/managed-by", "kollect");
      if (cluster != null) {
        labels.put(CLUSTER_LABEL, targetLabel(cluster));
      }
      if (shard.sharded()) {
        labels.put(ShardNames.SHARD_LABEL, ShardNames.label(shard));
      }
      inv.getMetadata().setLabels(labels);
      inv.getMetadata().setOwnerReferences(List.of(ref));
      inv.setSpec(part);
      try {
        inventories().inNamespace(id.namespace()).resource(inv)
            .createOr(NonDeletingOperation::update);
      } catch (KubernetesClientException e) {
        if (tooLarge(e)) {
          int bytes = part.records().stream().mapToInt(TargetInventory::size).sum();
          return Optional.of(new PartTooLarge(part, bytes, firstLine(e.getMessage())));
        }
        throw e;
      }
    }
    // The parts there are known (read on the first write, written since): no list per write.
    for (KollectInventorySpec stale : before) {
      if (stale.part() >= parts.size()) {
        inventories().inNamespace(id.namespace()).withName(partName(prefix, stale.part()))
            .delete();
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the API server refused a write for its size: 413 from the API server's body limit,
   * or etcd's "request is too large" and validation's "Too long" relayed as 422/500.
   */
  static boolean tooLarge(KubernetesClientException e) {
    if (e.getCode() == 413) {
      return true;
    }
    String msg = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    return (e.getCode() == 422 || e.getCode() == 500)
        && (msg.contains("too large") || msg.contains("too long"));
  }

  /** One line naming the target, the endpoint and the cause (never "null"). */
  private String describe(TargetId id, RuntimeException e) {
    String cause = e instanceof KubernetesClientException k && k.getCode() > 0
        ? "HTTP " + k.getCode() + ": " + firstLine(k.getMessage())
        : firstLine(e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName());
    if (!cause.contains("://")) {
      cause = cause + " (API server " + client.getMasterUrl() + ")";
    }
    String line = "inventory of " + id + ": cannot write KollectInventory objects: " + cause;
    return line.length() > MAX_ERROR_CHARS ? line.substring(0, MAX_ERROR_CHARS) + "..." : line;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /**
   * The {@code kollect.io/target} label value: the target's name, or for names longer than a label
   * value may be (63), {@code sha-} and a hash of it ({@code spec.target} always has the name).
   */
  static String targetLabel(String target) {
    if (target.length() <= 63) {
      return target;
    }
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-256")
          .digest(target.getBytes(StandardCharsets.UTF_8));
      return "sha-" + java.util.HexFormat.of().formatHex(d, 0, 20);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String partName(String target, int part) {
    return target + "-" + part;
  }

  /** The shard label of a part, {@code null} for an unsharded operator's. */
  public static String shardOf(KollectInventory inv) {
    Map<String, String> labels = inv.getMetadata().getLabels();
    return labels == null ? null : labels.get(ShardNames.SHARD_LABEL);
  }

  /**
   * Whether this shard owns a record's object (always when not sharded); a record read back
   * without a resource or name is kept, as it was not written by reading objects.
   */
  public boolean owns(Record r) {
    if (!shard.sharded() || r.resource() == null || r.name() == null) {
      return true;
    }
    String cluster = r.cluster() != null ? r.cluster() : localCluster;
    // the engine's one ownership rule, told which cluster is local (split by cluster, a remote
    // cluster's records belong to the shard that owns the cluster)
    return shard.owns(localCluster == null ? "" : localCluster, cluster == null ? "" : cluster,
        r.resource().group(), r.resource().kind(), r.namespace(), r.name());
  }

  /**
   * Whether a part is this shard's own but of a remote cluster the shard no longer reads: split
   * by cluster, after the count or the rule changed, its new owner writes that cluster's parts
   * under its own index, and nothing would converge these any more. A part whose cluster label
   * is a digest (a name over 63 characters) cannot be told and is kept.
   *
   * @param localCluster the operator's own cluster
   */
  public static boolean ofClusterNotRead(KollectInventory inv, Shard shard, String localCluster) {
    String cluster = clusterOf(inv);
    if (!shard.sharded() || cluster == null || cluster.startsWith("sha-")
        || !java.util.Objects.equals(ShardNames.label(shard), shardOf(inv))) {
      return false;
    }
    return !shard.reads(localCluster, cluster);
  }

  /** The cluster label of a part, {@code null} for the operator's own cluster's. */
  private static String clusterOf(KollectInventory inv) {
    Map<String, String> labels = inv.getMetadata().getLabels();
    return labels == null ? null : labels.get(CLUSTER_LABEL);
  }

  private List<KollectInventory> list(TargetId id) {
    return inventories().inNamespace(id.namespace()).withLabel(TARGET_LABEL, targetLabel(id.name()))
        .list().getItems();
  }

  private static OwnerReference ownerReference(KollectTarget target) {
    return new OwnerReferenceBuilder()
        .withApiVersion(target.getApiVersion())
        .withKind(target.getKind())
        .withName(target.getMetadata().getName())
        .withUid(target.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /**
   * Deletes a target's inventory objects and forgets its state (the target was deleted, or turned
   * {@code writeInventory} off). Waits for a write of the target in progress, so that it cannot
   * re-create an object after the delete.
   */
  void deleteTarget(TargetId id) {
    List<TargetInventory> removed = new ArrayList<>();
    inventories.entrySet().removeIf(e -> {
      if (e.getKey().id().equals(id)) {
        removed.add(e.getValue());
        return true;
      }
      return false;
    });
    for (TargetInventory inventory : removed) {
      inventory.retire();
      inventory.writeLock.lock();
    }
    try {
      inventories().inNamespace(id.namespace()).withLabel(TARGET_LABEL, targetLabel(id.name()))
          .delete();
    } finally {
      for (TargetInventory inventory : removed) {
        inventory.writeLock.unlock();
      }
    }
  }

  /** Forgets in-memory state, so the next write re-reads what is in the cluster (new leader). */
  public void forget() {
    for (TargetInventory inventory : inventories.values()) {
      inventory.retire();
    }
    inventories.clear();
  }

  /** Nothing to release: writes run on the exporter's threads. */
  @Override
  public void close() {}
}

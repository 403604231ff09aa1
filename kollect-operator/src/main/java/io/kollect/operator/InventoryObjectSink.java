package io.kollect.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.kollect.core.TargetId;
import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectInventorySpec;
import io.kollect.operator.crd.KollectTarget;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's inventory sink in a cluster: keeps each target's current records in {@code
 * KollectInventory} objects in the target's namespace.
 *
 * <p>The records of a target, ordered by key, are cut into parts of at most {@link #maxPartBytes}
 * bytes of record JSON (well under the API server's ~1.5 MiB object limit) named {@code
 * <target>-<part>}, labelled {@code kollect.io/target=<target>} and owned by the KollectTarget
 * (controller, blockOwnerDeletion), so Kubernetes' garbage collector removes them with it. The
 * operator also deletes them itself when it sees the target go ({@link #deleteTarget}), since not
 * every cluster runs the garbage collector promptly.
 *
 * <p>The current set is kept in memory and seeded from the existing objects the first time a
 * target is written, so a new leader continues from what the old one wrote. Parts whose content
 * did not change are not written again.
 */
final class InventoryObjectSink implements Sink {

  private static final Logger log = LoggerFactory.getLogger(InventoryObjectSink.class);
  static final String NAME = "kollect-inventory";
  static final String TARGET_LABEL = "kollect.io/target";
  static final int DEFAULT_MAX_PART_BYTES = 512 * 1024;

  private final KubernetesClient client;
  private final Function<TargetId, Optional<KollectTarget>> targets;
  private final int maxPartBytes;
  private final Map<TargetId, TreeMap<String, ObjectNode>> current = new ConcurrentHashMap<>();
  private final Map<TargetId, List<KollectInventorySpec>> written = new ConcurrentHashMap<>();

  InventoryObjectSink(KubernetesClient client, Function<TargetId, Optional<KollectTarget>> targets,
      int maxPartBytes) {
    this.client = client;
    this.targets = targets;
    this.maxPartBytes = maxPartBytes;
  }

  private MixedOperation<KollectInventory, KubernetesResourceList<KollectInventory>,
      Resource<KollectInventory>> inventories() {
    return client.resources(KollectInventory.class);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public synchronized void write(List<Record> batch) throws SinkException {
    Map<TargetId, List<Record>> byTarget = new HashMap<>();
    for (Record r : batch) {
      byTarget.computeIfAbsent(TargetId.parse(r.target()), k -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<TargetId, List<Record>> e : byTarget.entrySet()) {
      try {
        write(e.getKey(), e.getValue());
      } catch (KubernetesClientException ex) {
        boolean retry = ex.getCode() == 0 || ex.getCode() == 409 || ex.getCode() == 429
            || ex.getCode() >= 500;
        String msg = "inventory of " + e.getKey() + ": " + ex.getMessage();
        throw retry ? SinkException.retryable(msg, ex) : SinkException.permanent(msg, ex);
      }
    }
  }

  private void write(TargetId id, List<Record> records) {
    Optional<KollectTarget> owner = targets.apply(id);
    if (owner.isEmpty() || owner.get().getSpec() == null
        || !Boolean.TRUE.equals(owner.get().getSpec().writeInventory())) {
      // The target is gone or no longer wants inventory objects; writing would leave orphans.
      log.debug("inventory of {}: target not found or writeInventory off, not written", id);
      return;
    }
    TreeMap<String, ObjectNode> state = current.computeIfAbsent(id, this::readExisting);
    synchronized (state) {
      for (Record r : records) {
        if (r.op() == Op.DELETE) {
          state.remove(r.key());
        } else {
          state.put(r.key(), Records.toTree(r));
        }
      }
      List<KollectInventorySpec> parts = split(id, state);
      List<KollectInventorySpec> before = written.getOrDefault(id, List.of());
      OwnerReference ref = ownerReference(owner.get());
      for (KollectInventorySpec part : parts) {
        if (part.part() < before.size() && before.get(part.part()).equals(part)) {
          continue;
        }
        KollectInventory inv = new KollectInventory();
        inv.getMetadata().setName(partName(id.name(), part.part()));
        inv.getMetadata().setNamespace(id.namespace());
        inv.getMetadata().setLabels(Map.of(TARGET_LABEL, targetLabel(id.name()),
            "app.kubernetes.io/managed-by", "kollect"));
        inv.getMetadata().setOwnerReferences(List.of(ref));
        inv.setSpec(part);
        inventories().inNamespace(id.namespace()).resource(inv)
            .createOr(NonDeletingOperation::update);
      }
      for (KollectInventory stale : list(id)) {
        if (stale.getSpec() == null || stale.getSpec().part() >= parts.size()) {
          inventories().inNamespace(id.namespace()).resource(stale).delete();
        }
      }
      written.put(id, parts);
    }
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

  private List<KollectInventory> list(TargetId id) {
    return inventories().inNamespace(id.namespace()).withLabel(TARGET_LABEL, targetLabel(id.name())).list()
        .getItems();
  }

  private TreeMap<String, ObjectNode> readExisting(TargetId id) {
    TreeMap<String, ObjectNode> state = new TreeMap<>();
    List<KollectInventorySpec> parts = new ArrayList<>();
    for (KollectInventory inv : list(id)) {
      if (inv.getSpec() == null || inv.getSpec().records() == null) {
        continue;
      }
      parts.add(inv.getSpec());
      for (JsonNode node : inv.getSpec().records()) {
        if (node instanceof ObjectNode obj) {
          try {
            state.put(Records.fromJson(obj.toString()).key(), obj);
          } catch (IllegalArgumentException e) {
            log.warn("inventory of {}: ignoring an unreadable record: {}", id, e.getMessage());
          }
        }
      }
    }
    parts.sort(java.util.Comparator.comparingInt(KollectInventorySpec::part));
    written.put(id, parts);
    return state;
  }

  /** Cuts the ordered records into parts of at most {@link #maxPartBytes} bytes of JSON. */
  List<KollectInventorySpec> split(TargetId id, TreeMap<String, ObjectNode> state) {
    List<List<JsonNode>> chunks = new ArrayList<>();
    List<JsonNode> chunk = new ArrayList<>();
    long bytes = 0;
    for (ObjectNode record : state.values()) {
      int size = record.toString().getBytes(StandardCharsets.UTF_8).length + 1;
      if (!chunk.isEmpty() && bytes + size > maxPartBytes) {
        chunks.add(chunk);
        chunk = new ArrayList<>();
        bytes = 0;
      }
      chunk.add(record);
      bytes += size;
    }
    chunks.add(chunk); // an empty target still has part 0, so readers see "0 records", not nothing
    List<KollectInventorySpec> parts = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      parts.add(new KollectInventorySpec(id.name(), i, chunks.size(), chunks.get(i).size(),
          chunks.get(i)));
    }
    return parts;
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
   * {@code writeInventory} off). Synchronised with {@link #write} so that a batch in flight cannot
   * re-create an object after it.
   */
  synchronized void deleteTarget(TargetId id) {
    current.remove(id);
    written.remove(id);
    inventories().inNamespace(id.namespace()).withLabel(TARGET_LABEL, targetLabel(id.name())).delete();
  }

  /** Forgets in-memory state, so the next write re-reads what is in the cluster (new leader). */
  void forget() {
    current.clear();
    written.clear();
  }
}

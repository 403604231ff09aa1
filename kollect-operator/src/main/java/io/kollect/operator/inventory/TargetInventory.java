package io.kollect.operator.inventory;

import io.kollect.core.ClientJson;
import io.kollect.core.TargetId;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import io.kollect.operator.inventory.InventoryHealth.RejectedRecord;
import io.kollect.operator.crd.KollectInventorySpec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The desired inventory of one target and how writing it is going: the records the exporter
 * handed over (latest state per key), the records left out because they cannot fit in an object,
 * which changes are not yet written, and the failures since the last successful write.
 *
 * <p>State is guarded by the instance monitor and changes in short critical sections, so the
 * exporter's thread never waits for the API server. The API writes of the target are serialised
 * by {@link #writeLock}, held by at most one writer thread at a time.
 */
final class TargetInventory {

  /** A record's JSON and its size in bytes, computed once. */
  public record Sized(String key, ObjectNode json, int bytes) {}

  /** What one write attempt writes: the records and how far the change counter had got. */
  record Snapshot(long upTo, List<Sized> records, int partLimit) {}

  final TargetId id;
  /** The cluster of its records, or {@code null} for the operator's own. */
  final String cluster;
  /** Serialises the API writes of this target. */
  final ReentrantLock writeLock = new ReentrantLock();
  private final int maxRecordBytes;

  // guarded by this
  private final TreeMap<String, Sized> records = new TreeMap<>();
  private final Set<String> deletedBeforeLoad = new HashSet<>();
  private final TreeMap<String, RejectedRecord> rejected = new TreeMap<>();
  private final Map<String, Long> pending = new HashMap<>();
  private long changes;
  private boolean loaded;
  private int partLimit;
  private List<KollectInventorySpec> written = List.of();
  private int consecutiveFailures;
  private Instant failingSince;
  private String lastError;
  private Instant lastWritten;
  private boolean retired;

  public TargetInventory(TargetId id, int maxPartBytes, int maxRecordBytes) {
    this(id, null, maxPartBytes, maxRecordBytes);
  }

  /** The inventory of a target's records from one cluster ({@code null}: the operator's own). */
  public TargetInventory(TargetId id, String cluster, int maxPartBytes, int maxRecordBytes) {
    this.id = id;
    this.cluster = cluster;
    this.partLimit = maxPartBytes;
    this.maxRecordBytes = maxRecordBytes;
  }

  /**
   * Applies the exporter's records: an UPSERT replaces its key, a DELETE removes it. A record
   * whose JSON is larger than the record limit is left out (its older state too: an outdated
   * record would be a lie) and listed as rejected until a later state fits or it is deleted.
   */
  synchronized void apply(List<Record> batch) {
    for (Record r : batch) {
      String key = r.key();
      if (r.op() == Op.DELETE) {
        records.remove(key);
        rejected.remove(key);
        if (!loaded) {
          deletedBeforeLoad.add(key);
        }
      } else {
        // the client's own tree: the client writes it into KollectInventory objects as it is
        ObjectNode json = (ObjectNode) ClientJson.toClient(Records.toTree(r));
        int bytes = size(json);
        if (bytes > maxRecordBytes) {
          records.remove(key);
          rejected.put(key, new RejectedRecord(key, objectName(r), bytes,
              "its record is " + bytes + " bytes of JSON; a KollectInventory object holds at most "
                  + maxRecordBytes));
        } else {
          records.put(key, new Sized(key, json, bytes));
          rejected.remove(key);
        }
        deletedBeforeLoad.remove(key);
      }
      pending.put(key, ++changes);
    }
  }

  /** {@code Kind namespace/name} (or {@code Kind name} for cluster-scoped objects). */
  static String objectName(Record r) {
    String kind = r.resource() == null ? "?" : r.resource().kind();
    return kind + " " + (r.namespace() == null || r.namespace().isEmpty()
        ? r.name() : r.namespace() + "/" + r.name());
  }

  static int size(JsonNode json) {
    return json.toString().getBytes(StandardCharsets.UTF_8).length + 1;
  }

  synchronized boolean loaded() {
    return loaded;
  }

  /**
   * Seeds the records from the objects a previous leader wrote. Records applied since this
   * instance took over are newer and win; keys deleted since stay deleted.
   */
  public synchronized void load(List<KollectInventorySpec> existing) {
    load(existing, r -> true);
  }

  /**
   * The same, keeping only the records {@code owned} accepts: when the shard count changed, a
   * shard's objects hold records of objects another shard owns now; they are dropped here, so the
   * next write leaves them out (their new owner writes them into its own objects).
   */
  public synchronized void load(List<KollectInventorySpec> existing,
      java.util.function.Predicate<Record> owned) {
    List<KollectInventorySpec> parts = new ArrayList<>(existing);
    parts.sort(java.util.Comparator.comparingInt(KollectInventorySpec::part));
    for (KollectInventorySpec part : parts) {
      if (part.records() == null) {
        continue;
      }
      for (JsonNode node : part.records()) {
        if (node instanceof ObjectNode obj) {
          Record read = Records.fromJson(obj.toString());
          String key = read.key();
          if (!owned.test(read)) {
            continue;
          }
          if (!records.containsKey(key) && !deletedBeforeLoad.contains(key)
              && !rejected.containsKey(key)) {
            records.put(key, new Sized(key, obj, size(obj)));
          }
        }
      }
    }
    written = parts;
    deletedBeforeLoad.clear();
    loaded = true;
  }

  /** The records to write now. */
  public synchronized Snapshot snapshot() {
    return new Snapshot(changes, List.copyOf(records.values()), partLimit);
  }

  /** The parts last written (or found), by part index. */
  synchronized List<KollectInventorySpec> written() {
    return written;
  }

  /** A write of {@code snapshot} succeeded: its changes are no longer pending. */
  synchronized void succeeded(Snapshot snapshot, List<KollectInventorySpec> parts, Instant now) {
    pending.values().removeIf(n -> n <= snapshot.upTo());
    written = List.copyOf(parts);
    consecutiveFailures = 0;
    failingSince = null;
    lastError = null;
    lastWritten = now;
  }

  /** A write attempt failed; the records stay pending and are written again. */
  synchronized void failed(String error, Instant now) {
    consecutiveFailures++;
    if (failingSince == null) {
      failingSince = now;
    }
    lastError = error;
  }

  /** The API server refused a part holding only this record as too large: leave it out. */
  synchronized void rejectedByServer(Sized record, String reason) {
    if (records.remove(record.key()) != null) {
      Record r = Records.fromJson(record.json().toString());
      rejected.put(record.key(), new RejectedRecord(record.key(), objectName(r), record.bytes(),
          reason));
    }
  }

  /** The API server refused a part of several records as too large: cut smaller parts. */
  synchronized void shrinkParts(int refusedPartBytes) {
    partLimit = Math.max(1, Math.min(partLimit, refusedPartBytes) / 2);
  }

  /**
   * Cuts records (ordered by key) into parts of at most {@code limit} bytes of JSON; a record
   * larger than that gets a part of its own. An empty inventory still has part 0, so readers see
   * "0 records", not nothing.
   */
  static List<KollectInventorySpec> split(String target, Collection<Sized> ordered, int limit) {
    List<List<JsonNode>> chunks = new ArrayList<>();
    List<JsonNode> chunk = new ArrayList<>();
    long bytes = 0;
    for (Sized record : ordered) {
      if (!chunk.isEmpty() && bytes + record.bytes() > limit) {
        chunks.add(chunk);
        chunk = new ArrayList<>();
        bytes = 0;
      }
      chunk.add(record.json());
      bytes += record.bytes();
    }
    chunks.add(chunk);
    List<KollectInventorySpec> parts = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      parts.add(new KollectInventorySpec(target, i, chunks.size(), chunks.get(i).size(),
          chunks.get(i)));
    }
    return parts;
  }

  /** The records left out because no KollectInventory object can hold them, by record key. */
  synchronized Map<String, InventoryHealth.RejectedRecord> rejectedByKey() {
    return Map.copyOf(rejected);
  }

  /** Stops every further write (target deleted, or leadership lost). */
  synchronized void retire() {
    retired = true;
  }

  synchronized boolean retired() {
    return retired;
  }

  synchronized InventoryHealth health() {
    return new InventoryHealth(records.size(), pending.size(), consecutiveFailures, failingSince,
        lastError, lastWritten, List.copyOf(rejected.values()));
  }

  synchronized int consecutiveFailures() {
    return consecutiveFailures;
  }
}

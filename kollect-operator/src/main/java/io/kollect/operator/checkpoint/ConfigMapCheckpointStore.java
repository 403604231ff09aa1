package io.kollect.operator.checkpoint;

import static io.kollect.operator.checkpoint.CheckpointObjects.BASE;
import static io.kollect.operator.checkpoint.CheckpointObjects.DELTA_KEY;
import static io.kollect.operator.checkpoint.CheckpointObjects.DIGEST;
import static io.kollect.operator.checkpoint.CheckpointObjects.FORMAT;
import static io.kollect.operator.checkpoint.CheckpointObjects.FORMAT_VERSION;
import static io.kollect.operator.checkpoint.CheckpointObjects.GENERATION;
import static io.kollect.operator.checkpoint.CheckpointObjects.GENERATION_LABEL;
import static io.kollect.operator.checkpoint.CheckpointObjects.KEY;
import static io.kollect.operator.checkpoint.CheckpointObjects.PARTS;
import static io.kollect.operator.checkpoint.CheckpointObjects.PEER_LABEL;
import static io.kollect.operator.checkpoint.CheckpointObjects.SEQ;
import static io.kollect.operator.checkpoint.CheckpointObjects.THROUGH;
import static io.kollect.operator.checkpoint.CheckpointObjects.digest;
import static io.kollect.operator.checkpoint.CheckpointObjects.gzip;
import static io.kollect.operator.checkpoint.CheckpointObjects.json;
import static io.kollect.operator.checkpoint.CheckpointObjects.parse;
import static io.kollect.operator.checkpoint.CheckpointObjects.sha256Hex;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.core.Shard;
import io.kollect.export.CheckpointStore;
import io.kollect.export.ExportedEntry;
import io.kollect.operator.checkpoint.CheckpointObjects.Delta;
import io.kollect.operator.checkpoint.CheckpointObjects.Listing;
import io.kollect.operator.shard.ShardNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps export checkpoints in ConfigMaps in the operator's namespace, so that a new leader (on
 * another node, with no disk of its own) continues where the old one stopped instead of re-sending
 * everything. The shipped Deployment's root filesystem is read-only: this is its store.
 *
 * <p><b>Idea: a log of small ConfigMaps.</b> {@link #apply} creates one small delta ConfigMap
 * {@code <id>-d<seq>} (the acknowledged changes, gzipped JSON) per call, and the exporter calls it
 * at most once per checkpoint interval per (target, sink), so deltas are batched per write
 * interval and a change costs its own bytes, not the whole state's (today's figure: ~700 KiB per
 * write at 50k objects). Once the deltas outgrow {@value #MAX_DELTAS} objects or the snapshot's
 * size, a background thread compacts them: it writes a new snapshot generation {@code
 * <id>-s<generation>-<part>} (split into parts below the API server's 1 MiB object limit), then
 * deletes the deltas it contains and the previous generation. Compaction writes are paced (one
 * object per {@code compactionPause}), so a compaction never takes more than a trickle of the
 * client's request budget and the exporter's own writes are never queued behind it; apply never
 * waits for a compaction.
 *
 * <p><b>Crash safety.</b> A snapshot part carries its generation, the number of parts, a digest of
 * the whole snapshot and {@code through}, the last delta sequence it contains. {@link #load} takes
 * the newest generation whose parts are all present with one digest and applies, in sequence
 * order, the deltas above its {@code through}. A leader killed while writing a snapshot leaves an
 * incomplete generation, which is ignored (the previous one and its deltas still stand); killed
 * after writing it and before the deletions, it leaves deltas the snapshot already contains, which
 * are skipped. A delta is one object, created whole or not at all.
 *
 * <p><b>Format</b> (annotation {@code kollect.io/checkpoint-format}, version 3): snapshot parts
 * hold {@code binaryData."entries.json.gz"} (a gzipped JSON map of record key to entry), deltas
 * {@code binaryData."delta.json.gz"} (gzipped {@code {"upserts":{key:entry},"removed":[key]}}).
 * Version 2 (one whole snapshot {@code <id>-<part>}, rewritten on every save) and version 1 (the
 * same without the annotation, entries without {@code sequence} and {@code lastSentAt}) are read on
 * upgrade as generation 0; the first compaction replaces them. An object of a newer version than
 * this build knows makes the checkpoint read as empty rather than be misread. A torn or unreadable
 * checkpoint reads as empty: the cost is a full re-send, never a stuck exporter.
 */
public final class ConfigMapCheckpointStore implements CheckpointStore {

  private static final Logger log = LoggerFactory.getLogger(ConfigMapCheckpointStore.class);
  /** Compressed bytes per part: base64 makes it 4/3 larger, still below the 1 MiB object limit. */
  static final int PART_BYTES = 700 * 1024;
  /** Deltas kept before a compaction, so a load lists a bounded number of objects. */
  static final int MAX_DELTAS = 64;
  public static final String LABEL = "kollect.io/checkpoint";
  /** Attempts to append a removal to a peer's log that another writer keeps beating. */
  private static final int TAKE_OVER_ATTEMPTS = 5;

  /** What this instance knows of one id's objects; guarded by its own monitor. */
  private static final class Known {
    long generation;
    /** The highest generation listed or reserved, complete or not: a new one goes above it. */
    long highestGeneration;
    /**
     * The base label of new deltas. Raised (under the lock) whenever a snapshot is about to be
     * written from a listing, so every delta with an older base is in that listing and the
     * snapshot contains it: once the snapshot is complete they go in one deletecollection per
     * base instead of one request per delta.
     */
    long deltaBase;
    long through;
    long nextSeq = 1;
    int deltas;
    long deltaBytes;
    long snapshotBytes;
    /** The stored state is unreadable (or newer): the next write replaces it whole. */
    boolean lost;
    boolean compacting;
    /** The objects were listed once: the fields above describe them. */
    boolean listed;
    /** Bumped by {@link #delete}: a compaction that started before must not resurrect it. */
    volatile long epoch;
  }

  private final KubernetesClient client;
  private final String namespace;
  private final int partBytes;
  private final Duration compactionPause;
  /** {@link ShardNames#suffix}: each shard keeps checkpoints of its own. */
  private final String suffix;
  /** The shard label of every object written, {@code null} when not sharded. */
  private final String shardLabel;
  private final Map<String, Known> known = new ConcurrentHashMap<>();
  private final ExecutorService compactor = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "kollect-checkpoint-compactor");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong bytesSent = new AtomicLong();
  private final AtomicLong writes = new AtomicLong();

  public ConfigMapCheckpointStore(KubernetesClient client, String namespace) {
    this(client, namespace, PART_BYTES, Duration.ofMillis(500));
  }

  public ConfigMapCheckpointStore(KubernetesClient client, String namespace, int partBytes) {
    this(client, namespace, partBytes, Duration.ofMillis(500));
  }

  /**
   * @param compactionPause least time between two writes of a compaction: at the default 500 ms a
   *     compaction uses at most two requests per second of the client's budget
   */
  public ConfigMapCheckpointStore(KubernetesClient client, String namespace, int partBytes,
      Duration compactionPause) {
    this(client, namespace, partBytes, compactionPause, Shard.NONE);
  }

  /** The checkpoints of one shard: ids (names and labels) end in {@code -shard-I}. */
  public ConfigMapCheckpointStore(KubernetesClient client, String namespace, Shard shard) {
    this(client, namespace, PART_BYTES, Duration.ofMillis(500), shard);
  }

  public ConfigMapCheckpointStore(KubernetesClient client, String namespace, int partBytes,
      Duration compactionPause, Shard shard) {
    this.client = client;
    this.namespace = namespace;
    this.partBytes = partBytes;
    this.compactionPause = compactionPause;
    this.suffix = ShardNames.suffix(shard);
    this.shardLabel = ShardNames.label(shard);
  }

  /**
   * A stable, name-safe id of a (target, sink); the readable names go in annotations. A shard's
   * store appends {@link ShardNames#suffix} (at most 63 characters in all: it is a label value).
   */
  static String id(String target, String sink) {
    return "kollect-checkpoint-"
        + sha256Hex((target + "\n" + sink).getBytes(StandardCharsets.UTF_8), 10);
  }

  @Override
  public Map<String, ExportedEntry> load(String target, String sink) {
    String id = id(target, sink) + suffix;
    Known k = known.computeIfAbsent(id, x -> new Known());
    synchronized (k) {
      try {
        Listing l = list(id);
        remember(k, l);
        return l.entries();
      } catch (KubernetesClientException e) {
        log.warn("checkpoint {} ({} / {}) cannot be read, starting without: {}", id, target, sink,
            e.getMessage());
        known.remove(id);
        return Map.of();
      }
    }
  }

  @Override
  public void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed) {
    if (changed.isEmpty() && removed.isEmpty()) {
      return;
    }
    String id = id(target, sink) + suffix;
    Known k = known.computeIfAbsent(id, x -> new Known());
    boolean compact;
    synchronized (k) {
      if (!k.listed) {
        remember(k, list(id)); // first write of this instance: learn where the log stands
      }
      byte[] gz = gzip(json(new Delta(new TreeMap<>(changed), List.copyOf(new TreeSet<>(removed)))));
      if (k.lost || gz.length > partBytes) {
        // Unreadable state: the caller's view started from empty, so empty plus this delta is the
        // state. A delta too large for one object is as expensive as a snapshot: write one.
        Map<String, ExportedEntry> merged = k.lost ? new TreeMap<>() : new TreeMap<>(
            list(id).entries());
        merged.keySet().removeAll(removed);
        merged.putAll(changed);
        writeSnapshotNow(id, target, sink, merged, k);
        return;
      }
      createDelta(id, target, sink, gz, k);
      compact = !k.compacting && (k.deltas >= MAX_DELTAS
          || k.deltaBytes > Math.max(partBytes / 4, k.snapshotBytes));
      if (compact) {
        k.compacting = true;
      }
    }
    if (compact) {
      long epoch = k.epoch;
      compactor.execute(() -> compact(id, target, sink, k, epoch));
    }
  }

  @Override
  public void save(String target, String sink, Map<String, ExportedEntry> entries) {
    String id = id(target, sink) + suffix;
    Known k = known.computeIfAbsent(id, x -> new Known());
    synchronized (k) {
      if (!k.listed) {
        remember(k, list(id));
      }
      writeSnapshotNow(id, target, sink, new TreeMap<>(entries), k);
    }
  }

  /**
   * Forgets what this instance knows of the stored checkpoints. Called when leadership changes
   * hands: another instance may have appended or compacted since, so the next write re-reads.
   */
  public void forgetWritten() {
    known.clear();
  }

  @Override
  public void delete(String target, String sink) {
    String id = id(target, sink) + suffix;
    Known k = known.computeIfAbsent(id, x -> new Known());
    synchronized (k) {
      k.epoch++;
      client.configMaps().inNamespace(namespace).withLabel(LABEL, id).delete();
      writes.incrementAndGet();
      known.remove(id);
    }
  }

  /**
   * The checkpoints the other shards (and the unsharded operator; for it, every shard) keep of
   * (target, sink): one or two label queries, once per (target, sink) when the exporter loads it.
   */
  @Override
  public List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
    List<Map<String, ExportedEntry>> out = new ArrayList<>();
    for (Map.Entry<String, List<ConfigMap>> peer : peerObjects(target, sink).entrySet()) {
      Listing l = parse(peer.getKey(), peer.getValue());
      if (!l.lost() && !l.entries().isEmpty()) {
        out.add(l.entries());
      }
    }
    return out;
  }

  /**
   * Appends to each peer's log a delta removing those of {@code keys} it holds. A delta is a new
   * object named by the next sequence of the peer's log, created whole or not at all: a peer's own
   * writer that raced for the same number gets a conflict and appends after it (and this one
   * after the other's), a compaction running meanwhile either lists the delta (its snapshot then
   * contains the removal) or keeps it as newer than its snapshot.
   */
  @Override
  public void takeOver(String target, String sink, Set<String> keys) {
    if (keys.isEmpty()) {
      return;
    }
    for (Map.Entry<String, List<ConfigMap>> peer : peerObjects(target, sink).entrySet()) {
      String peerId = peer.getKey();
      List<ConfigMap> objects = peer.getValue();
      for (int attempt = 1; ; attempt++) {
        Listing l = parse(peerId, objects);
        TreeSet<String> held = new TreeSet<>(keys);
        held.retainAll(l.entries().keySet());
        if (l.lost() || held.isEmpty()) {
          break;
        }
        long seq = Math.max(l.maxSeq(), l.through()) + 1;
        byte[] gz = gzip(json(new Delta(Map.of(), List.copyOf(held))));
        ConfigMap cm = object(peerId + "-d" + seq, peerId, shardOf(objects), target, sink)
            .editMetadata().addToAnnotations(SEQ, Long.toString(seq))
            .addToLabels(BASE, Long.toString(l.highest())).endMetadata()
            .addToBinaryData(DELTA_KEY, Base64.getEncoder().encodeToString(gz))
            .build();
        try {
          send(cm, false);
          break;
        } catch (KubernetesClientException e) {
          if (e.getCode() != 409 || attempt >= TAKE_OVER_ATTEMPTS) {
            throw e;
          }
          // the peer's own shard (or another taker) appended this number first: read its log
          // again and append after it
          objects = client.configMaps().inNamespace(namespace).withLabel(LABEL, peerId).list()
              .getItems();
        }
      }
    }
  }

  /**
   * The objects of every other checkpoint of (target, sink), by id. Objects written before {@link
   * CheckpointObjects#PEER_LABEL} existed are only the unsharded operator's (sharding came with
   * it): a shard finds those by their id, which is the unsuffixed one.
   */
  private Map<String, List<ConfigMap>> peerObjects(String target, String sink) {
    String base = id(target, sink);
    String own = base + suffix;
    Map<String, ConfigMap> byName = new LinkedHashMap<>();
    for (ConfigMap cm : client.configMaps().inNamespace(namespace).withLabel(PEER_LABEL, base)
        .list().getItems()) {
      byName.put(cm.getMetadata().getName(), cm);
    }
    if (!own.equals(base)) {
      for (ConfigMap cm : client.configMaps().inNamespace(namespace).withLabel(LABEL, base)
          .list().getItems()) {
        byName.putIfAbsent(cm.getMetadata().getName(), cm);
      }
    }
    Map<String, List<ConfigMap>> byId = new TreeMap<>();
    for (ConfigMap cm : byName.values()) {
      Map<String, String> labels = cm.getMetadata().getLabels();
      String id = labels == null ? null : labels.get(LABEL);
      if (id != null && !id.equals(own) && id.startsWith(base)) {
        byId.computeIfAbsent(id, x -> new ArrayList<>()).add(cm);
      }
    }
    return byId;
  }

  /** The shard label of a checkpoint's objects ({@code null}: the unsharded operator's). */
  private static String shardOf(List<ConfigMap> objects) {
    for (ConfigMap cm : objects) {
      Map<String, String> labels = cm.getMetadata().getLabels();
      if (labels != null && labels.get(ShardNames.SHARD_LABEL) != null) {
        return labels.get(ShardNames.SHARD_LABEL);
      }
    }
    return null;
  }

  /** For the benchmark: bytes of the request bodies sent (creates and updates) so far. */
  long bytesSent() {
    return bytesSent.get();
  }

  /** For the benchmark: write requests (create, update, delete) sent so far. */
  long writes() {
    return writes.get();
  }

  /** For tests: waits until background compactions submitted so far are done. */
  boolean awaitCompactions(Duration timeout) throws InterruptedException {
    try {
      compactor.submit(() -> {}).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return false;
    }
  }

  // ---- the log ----------------------------------------------------------------------------------

  private void createDelta(String id, String target, String sink, byte[] gz, Known k) {
    for (int attempt = 0; ; attempt++) {
      long seq = k.nextSeq;
      ConfigMap cm = object(id + "-d" + seq, id, target, sink)
          .editMetadata().addToAnnotations(SEQ, Long.toString(seq))
          .addToLabels(BASE, Long.toString(k.deltaBase)).endMetadata()
          .addToBinaryData(DELTA_KEY, Base64.getEncoder().encodeToString(gz))
          .build();
      try {
        send(cm, false);
        k.nextSeq = seq + 1;
        k.deltas++;
        k.deltaBytes += gz.length;
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt > 0) {
          throw e;
        }
        // Another writer (an old leader, or a create that timed out but succeeded) took the
        // number: learn the log's end and append after it.
        remember(k, list(id));
      }
    }
  }

  /**
   * Merges the deltas into a new snapshot generation, paced, without holding the lock: appends
   * continue meanwhile with sequences above the snapshot's {@code through}.
   */
  private void compact(String id, String target, String sink, Known k, long epoch) {
    try {
      Listing l;
      long generation;
      synchronized (k) {
        if (k.epoch != epoch) {
          return;
        }
        l = list(id);
        k.highestGeneration = Math.max(k.highestGeneration, l.highest());
        generation = ++k.highestGeneration;
        k.deltaBase = generation;
      }
      List<ConfigMap> written = writeParts(id, target, sink, l.entries(), generation,
          l.maxSeq(), true, k, epoch);
      if (written == null) {
        return;
      }
      synchronized (k) {
        if (k.epoch != epoch) {
          return;
        }
        if (k.generation > generation) {
          // a whole snapshot was written meanwhile and supersedes this one
          removeSuperseded(written, List.of(), Long.MIN_VALUE, false);
          return;
        }
        k.generation = generation;
        k.through = l.maxSeq();
        k.deltas = Math.max(0, k.deltas - l.deltas());
        k.deltaBytes = Math.max(0, k.deltaBytes - l.deltaBytes());
        k.snapshotBytes = written.stream().mapToLong(CheckpointObjects::payloadBytes).sum();
      }
      removeSuperseded(l.objects(), written, l.maxSeq(), true);
    } catch (RuntimeException e) {
      log.warn("compaction of checkpoint {} ({} / {}) failed; the deltas stand and the next write "
          + "tries again: {}", id, target, sink, e.toString());
    } finally {
      synchronized (k) {
        k.compacting = false;
      }
    }
  }

  /** Writes {@code entries} as the next generation now (caller holds {@code k}). */
  private void writeSnapshotNow(String id, String target, String sink,
      Map<String, ExportedEntry> entries, Known k) {
    Listing before = list(id);
    k.highestGeneration = Math.max(k.highestGeneration, before.highest());
    long generation = ++k.highestGeneration;
    k.deltaBase = generation;
    long through = Math.max(k.nextSeq - 1, before.maxSeq());
    List<ConfigMap> written = writeParts(id, target, sink, entries, generation, through, false, k,
        k.epoch);
    k.generation = generation;
    k.through = through;
    k.nextSeq = through + 1;
    k.deltas = 0;
    k.deltaBytes = 0;
    k.lost = false;
    k.snapshotBytes = written.stream().mapToLong(CheckpointObjects::payloadBytes).sum();
    removeSuperseded(before.objects(), written, through, false);
  }

  /** Writes the parts of one generation; null when the checkpoint was deleted meanwhile. */
  private List<ConfigMap> writeParts(String id, String target, String sink,
      Map<String, ExportedEntry> entries, long generation, long through, boolean paced, Known k,
      long epoch) {
    byte[] json = json(new TreeMap<>(entries));
    byte[] gz = gzip(json);
    String digest = digest(json);
    int count = Math.max(1, (gz.length + partBytes - 1) / partBytes);
    List<ConfigMap> written = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      if (paced && i > 0) {
        pause();
      }
      if (k.epoch != epoch) {
        for (ConfigMap cm : written) {
          client.configMaps().inNamespace(namespace).withName(cm.getMetadata().getName()).delete();
          writes.incrementAndGet();
        }
        return null;
      }
      byte[] chunk = Arrays.copyOfRange(gz, i * partBytes, Math.min(gz.length, (i + 1) * partBytes));
      ConfigMap cm = object(id + "-s" + generation + "-" + i, id, target, sink)
          .editMetadata()
          .addToAnnotations(GENERATION, Long.toString(generation))
          .addToLabels(GENERATION_LABEL, Long.toString(generation))
          .addToAnnotations(PARTS, Integer.toString(count))
          .addToAnnotations(DIGEST, digest)
          .addToAnnotations(THROUGH, Long.toString(through))
          .endMetadata()
          .addToBinaryData(KEY, Base64.getEncoder().encodeToString(chunk))
          .build();
      send(cm, true);
      written.add(cm);
    }
    return written;
  }

  /**
   * Deletes what a complete new snapshot ({@code written}) made redundant among the objects listed
   * before it was written ({@link CheckpointObjects#superseded}): format 3 objects by label, one
   * deletecollection per superseded generation and per delta base, so a compaction costs a few
   * requests whatever the number of deltas; the rest by name.
   */
  private void removeSuperseded(List<ConfigMap> objects, List<ConfigMap> written, long through,
      boolean paced) {
    CheckpointObjects.Superseded superseded = CheckpointObjects.superseded(objects, written,
        through);
    String id = objects.isEmpty() ? null : objects.get(0).getMetadata().getLabels().get(LABEL);
    for (String g : superseded.generations()) {
      deleteQuietly(paced, () -> client.configMaps().inNamespace(namespace).withLabel(LABEL, id)
          .withLabel(GENERATION_LABEL, g).delete(), "generation " + g);
    }
    for (String base : superseded.bases()) {
      deleteQuietly(paced, () -> client.configMaps().inNamespace(namespace).withLabel(LABEL, id)
          .withLabel(BASE, base).delete(), "deltas on base " + base);
    }
    for (String name : superseded.names()) {
      deleteQuietly(paced, () -> client.configMaps().inNamespace(namespace).withName(name)
          .delete(), name);
    }
  }

  private void deleteQuietly(boolean paced, Runnable request, String what) {
    if (paced) {
      pause();
    }
    try {
      request.run();
      writes.incrementAndGet();
    } catch (KubernetesClientException e) {
      log.debug("cannot delete superseded checkpoint objects ({}): {}", what, e.getMessage());
    }
  }

  private void pause() {
    try {
      Thread.sleep(compactionPause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private ConfigMapBuilder object(String name, String id, String target, String sink) {
    return object(name, id, shardLabel, target, sink);
  }

  /** An object of the checkpoint {@code id} of the shard labelled {@code shard} (null: none). */
  private ConfigMapBuilder object(String name, String id, String shard, String target,
      String sink) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .addToLabels(LABEL, id)
        .addToLabels(PEER_LABEL, id(target, sink))
        .addToLabels("app.kubernetes.io/managed-by", "kollect")
        .addToLabels(shard == null ? Map.of() : Map.of(ShardNames.SHARD_LABEL, shard))
        .addToAnnotations("kollect.io/target", target)
        .addToAnnotations("kollect.io/sink", sink)
        .addToAnnotations(FORMAT, Integer.toString(FORMAT_VERSION))
        .endMetadata();
  }

  /** Sends a create (or, for a snapshot part that may exist, a create-or-update) and counts it. */
  private void send(ConfigMap cm, boolean mayExist) {
    bytesSent.addAndGet(client.getKubernetesSerialization().asJson(cm)
        .getBytes(StandardCharsets.UTF_8).length);
    writes.incrementAndGet();
    if (mayExist) {
      client.configMaps().inNamespace(namespace).resource(cm).createOr(NonDeletingOperation::update);
    } else {
      client.configMaps().inNamespace(namespace).resource(cm).create();
    }
  }

  // ---- reading ----------------------------------------------------------------------------------

  private static void remember(Known k, Listing l) {
    k.generation = l.generation();
    k.highestGeneration = Math.max(k.highestGeneration, l.highest());
    k.deltaBase = Math.max(k.deltaBase, k.highestGeneration);
    k.through = l.through();
    k.nextSeq = Math.max(l.maxSeq(), l.through()) + 1;
    k.deltas = l.deltas();
    k.deltaBytes = l.deltaBytes();
    k.snapshotBytes = l.snapshotBytes();
    k.lost = l.lost();
    k.listed = true;
  }

  /** Lists and parses one id's objects: the newest complete snapshot plus the deltas above it. */
  private Listing list(String id) {
    return parse(id, client.configMaps().inNamespace(namespace).withLabel(LABEL, id).list()
        .getItems());
  }
}

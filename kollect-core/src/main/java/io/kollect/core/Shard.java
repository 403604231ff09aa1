package io.kollect.core;

import io.kollect.informers.ObjectOwnership;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One replica's part of the work when the collection is split over {@code total} replicas, and
 * the one rule that says which objects are its part ({@link #by}). Every place that asks "is this
 * mine" (the informers' filter, record extraction, the inventory sink, checkpoint hand-over)
 * asks {@link #owns(String, String, String, String, String, String)}, so they never disagree.
 *
 * <p><b>By object</b> ({@link By#OBJECT}, the default): an object belongs to the shard {@code
 * FNV-1a-64(UTF-8 of "{cluster}/{group}/{kind}/{namespace}/{name}")}, read as an unsigned 64-bit
 * number, modulo {@code total}; the group is empty for the core group and the namespace empty for
 * a cluster-scoped object. The identity holds no uid and no version: an object keeps its owner
 * for its whole life and after being re-created, and every record of an object (one per target
 * that covers it) comes from the same shard. Every shard reads every cluster.
 *
 * <p><b>By cluster</b> ({@link By#CLUSTER}): every object of a remote cluster belongs to the shard
 * {@code FNV-1a-64(UTF-8 of the cluster name)} modulo {@code total} ({@link #ownsCluster}), and
 * only that shard connects to the cluster: each remote API server then serves one watch per type
 * in all, and a shard decodes only its clusters' events. The engine's own (local) cluster keeps
 * the object rule: every shard must talk to it anyway (its custom resources, Leases and status
 * writes), and a big hub cluster stays split evenly instead of landing on one shard.
 *
 * @param total how many shards there are, at least 1
 * @param index this shard, {@code 0 <= index < total}
 * @param by the rule that splits the objects
 */
public record Shard(int total, int index, By by) {

  /** The whole: one shard of one, which owns every object. */
  public static final Shard NONE = new Shard(1, 0);

  private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  /** How the objects are split between shards (see the class comment). */
  public enum By {
    /** By a hash of each object's identity: every shard reads every cluster. */
    OBJECT,
    /** A remote cluster's objects all go to one shard; the local cluster's by object. */
    CLUSTER
  }

  public Shard {
    if (total < 1) {
      throw new IllegalArgumentException("total: must be at least 1, got " + total);
    }
    if (index < 0 || index >= total) {
      throw new IllegalArgumentException(
          "index: must be between 0 and total - 1 (" + (total - 1) + "), got " + index);
    }
    Objects.requireNonNull(by, "by");
  }

  /** Shard {@code index} of {@code total}, split by object. */
  public Shard(int total, int index) {
    this(total, index, By.OBJECT);
  }

  /** This shard with the objects split by {@code rule}. */
  public Shard by(By rule) {
    return new Shard(total, index, rule);
  }

  /** Whether the work is split at all ({@code total > 1}). */
  public boolean sharded() {
    return total > 1;
  }

  /**
   * Whether this shard owns the object: the one ownership rule (see the class comment).
   *
   * @param localCluster the name of the engine's own cluster (split by object under either rule)
   * @param cluster the name of the cluster the object lives in
   * @param group API group, empty (or {@code null}) for the core group
   * @param kind the object's kind
   * @param namespace its namespace, empty (or {@code null}) for a cluster-scoped object
   * @param name its name
   */
  public boolean owns(String localCluster, String cluster, String group, String kind,
      String namespace, String name) {
    if (total == 1) {
      return true;
    }
    if (by == By.CLUSTER && !Objects.equals(localCluster, cluster)) {
      return ownsCluster(cluster);
    }
    return Long.remainderUnsigned(hash(cluster, group, kind, namespace, name), total) == index;
  }

  /**
   * Whether this shard owns an object of the engine's own cluster {@code cluster}: {@link
   * #owns(String, String, String, String, String, String)} with {@code cluster} as the local one.
   */
  public boolean owns(String cluster, String group, String kind, String namespace, String name) {
    return owns(cluster, cluster, group, kind, namespace, name);
  }

  /**
   * Whether this shard owns the remote cluster {@code cluster} under the cluster rule: {@code
   * FNV-1a-64(UTF-8 of the name)} modulo {@code total} is this shard. The shard that owns a
   * cluster is the one that writes what is said about it (a KollectCluster's status), under
   * either rule.
   */
  public boolean ownsCluster(String cluster) {
    return total == 1 || Long.remainderUnsigned(fnv1a64(cluster), total) == index;
  }

  /**
   * Whether this shard reads {@code cluster} at all (connects to it, opens informers): always
   * under the object rule and for the local cluster; under the cluster rule a remote cluster
   * only when this shard {@linkplain #ownsCluster owns} it.
   */
  public boolean reads(String localCluster, String cluster) {
    return by == By.OBJECT || Objects.equals(localCluster, cluster) || ownsCluster(cluster);
  }

  /**
   * The rule as the informers of an engine of {@code localCluster} ask it: the same function,
   * and under the cluster rule an owned remote cluster is owned whole (its informers need no
   * per-object filter).
   */
  public ObjectOwnership ownership(String localCluster) {
    if (!sharded()) {
      return ObjectOwnership.ALL;
    }
    return new ObjectOwnership() {
      @Override
      public boolean owns(String cluster, String group, String kind, String namespace,
          String name) {
        return Shard.this.owns(localCluster, cluster, group, kind, namespace, name);
      }

      @Override
      public boolean ownsWhole(String cluster) {
        return by == By.CLUSTER && !Objects.equals(localCluster, cluster) && ownsCluster(cluster);
      }
    };
  }

  /**
   * Whether this shard owns the object of a record key ({@code group/kind/namespace/name}) of an
   * export target ({@link UnitKey#exportKey}: {@code ns/name} for the engine's own cluster,
   * {@code cluster/ns/name} for another). A key of another shape is kept: it was not written by
   * an engine's reading of objects.
   */
  boolean ownsRecord(String localCluster, String exportKey, String recordKey) {
    if (!sharded()) {
      return true;
    }
    String[] k = recordKey.split("/", 4);
    if (k.length != 4) {
      return true;
    }
    int slash = exportKey.indexOf('/');
    boolean remote = slash > 0 && exportKey.indexOf('/', slash + 1) > 0;
    String cluster = remote ? exportKey.substring(0, slash) : localCluster;
    return owns(localCluster, cluster, k[0], k[1], k[2], k[3]);
  }

  /** The object's hash: FNV-1a-64 of its identity string (see the class comment). */
  static long hash(String cluster, String group, String kind, String namespace, String name) {
    return fnv1a64(cluster + "/" + (group == null ? "" : group) + "/" + kind + "/"
        + (namespace == null ? "" : namespace) + "/" + name);
  }

  /** FNV-1a, 64-bit, over the UTF-8 bytes of {@code s}. */
  static long fnv1a64(String s) {
    long h = FNV_OFFSET_BASIS;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= FNV_PRIME;
    }
    return h;
  }

  /** {@code index/total}, e.g. {@code 1/3}, with {@code by cluster} when split by cluster. */
  @Override
  public String toString() {
    return index + "/" + total + (by == By.CLUSTER ? " by cluster" : "");
  }
}

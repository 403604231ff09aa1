package io.kollect.core;

import java.nio.charset.StandardCharsets;

/**
 * One replica's part of the work when the collection is split over {@code total} replicas: the
 * objects whose identity hashes to {@code index}.
 *
 * <p>An object belongs to the shard {@code FNV-1a-64(UTF-8 of
 * "{cluster}/{group}/{kind}/{namespace}/{name}")}, read as an unsigned 64-bit number, modulo
 * {@code total}; the group is empty for the core group and the namespace empty for a
 * cluster-scoped object. The identity holds no uid and no version: an object keeps its owner for
 * its whole life and after being re-created, and every record of an object (one per target that
 * covers it) comes from the same shard.
 *
 * @param total how many shards there are, at least 1
 * @param index this shard, {@code 0 <= index < total}
 */
public record Shard(int total, int index) {

  /** The whole: one shard of one, which owns every object. */
  public static final Shard NONE = new Shard(1, 0);

  private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  public Shard {
    if (total < 1) {
      throw new IllegalArgumentException("total: must be at least 1, got " + total);
    }
    if (index < 0 || index >= total) {
      throw new IllegalArgumentException(
          "index: must be between 0 and total - 1 (" + (total - 1) + "), got " + index);
    }
  }

  /** Whether the work is split at all ({@code total > 1}). */
  public boolean sharded() {
    return total > 1;
  }

  /**
   * Whether this shard owns the object.
   *
   * @param cluster the name of the cluster the object lives in
   * @param group API group, empty (or {@code null}) for the core group
   * @param kind the object's kind
   * @param namespace its namespace, empty (or {@code null}) for a cluster-scoped object
   * @param name its name
   */
  public boolean owns(String cluster, String group, String kind, String namespace, String name) {
    if (total == 1) {
      return true;
    }
    return Long.remainderUnsigned(hash(cluster, group, kind, namespace, name), total) == index;
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
    return owns(cluster, k[0], k[1], k[2], k[3]);
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

  /** {@code index/total}, e.g. {@code 1/3}. */
  @Override
  public String toString() {
    return index + "/" + total;
  }
}

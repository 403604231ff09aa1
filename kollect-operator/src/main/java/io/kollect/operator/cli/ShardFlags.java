package io.kollect.operator.cli;

import io.kollect.core.Shard;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sharding flags of {@code kollect run} and the {@link Shard} they make. Every problem is one
 * line naming the flag ({@link IllegalArgumentException}; the command exits 2 with it).
 *
 * <ul>
 *   <li>{@code --total-shards N --shard I}: shard {@code I} of {@code N}.
 *   <li>{@code --shard-from-pod-name}: {@code I} is the ordinal of the pod name {@code
 *       <statefulset>-<ordinal>}, from {@code $POD_NAME} (the downward API), else the host name
 *       (a StatefulSet pod's host name is its name). With more replicas than shards and {@code
 *       --leader-elect}, replica {@code r} is a standby of shard {@code r mod N}; without leader
 *       election an ordinal of {@code N} or more is refused, as two replicas would export one
 *       shard.
 *   <li>{@code --total-shards-from-statefulset NAME}: {@code N} is that StatefulSet's {@code
 *       spec.replicas} (in the operator's namespace), read once at start.
 *   <li>{@code --shard-by object|cluster}: the rule that splits the objects ({@link Shard.By});
 *       {@code object} by default. Without sharding it changes nothing (one shard owns all).
 * </ul>
 *
 * @param totalShards {@code --total-shards}, or {@code null}
 * @param shard {@code --shard}, or {@code null}
 * @param fromPodName {@code --shard-from-pod-name}
 * @param totalFromStatefulSet {@code --total-shards-from-statefulset}, or {@code null}
 * @param by {@code --shard-by}
 */
record ShardFlags(Integer totalShards, Integer shard, boolean fromPodName,
    String totalFromStatefulSet, Shard.By by) {

  private static final Pattern POD_NAME = Pattern.compile("(.+)-([0-9]{1,9})");

  /** The flags with the default rule, by object. */
  ShardFlags(Integer totalShards, Integer shard, boolean fromPodName, String totalFromStatefulSet) {
    this(totalShards, shard, fromPodName, totalFromStatefulSet, Shard.By.OBJECT);
  }

  /**
   * The rule a {@code --shard-by} value names: {@code object} or {@code cluster}, in any case;
   * {@code null} is the default, {@code object}.
   *
   * @throws IllegalArgumentException one line naming the flag
   */
  static Shard.By rule(String value) {
    if (value == null) {
      return Shard.By.OBJECT;
    }
    for (Shard.By by : Shard.By.values()) {
      if (by.name().equalsIgnoreCase(value.strip())) {
        return by;
      }
    }
    throw new IllegalArgumentException("--shard-by: must be object or cluster, got '" + value
        + "'");
  }

  /** Whether any sharding flag is given. */
  boolean given() {
    return totalShards != null || shard != null || fromPodName || totalFromStatefulSet != null;
  }

  /**
   * Checks what can be checked before connecting, once, where the flags are built: their
   * combinations and values.
   *
   * @throws IllegalArgumentException one line naming the flag
   */
  ShardFlags {
    if (shard != null && fromPodName) {
      throw new IllegalArgumentException("--shard, --shard-from-pod-name: give at most one of them");
    }
    if (totalShards != null && totalFromStatefulSet != null) {
      throw new IllegalArgumentException(
          "--total-shards, --total-shards-from-statefulset: give at most one of them");
    }
    boolean total = totalShards != null || totalFromStatefulSet != null;
    boolean index = shard != null || fromPodName;
    if (total && !index) {
      throw new IllegalArgumentException((totalShards != null ? "--total-shards"
          : "--total-shards-from-statefulset") + ": needs --shard I or --shard-from-pod-name "
          + "(which shard this replica is)");
    }
    if (index && !total) {
      throw new IllegalArgumentException((shard != null ? "--shard" : "--shard-from-pod-name")
          + ": needs --total-shards N or --total-shards-from-statefulset NAME (how many shards "
          + "there are)");
    }
    if (totalShards != null && totalShards < 1) {
      throw new IllegalArgumentException("--total-shards: must be at least 1, got " + totalShards);
    }
    if (shard != null && shard < 0) {
      throw new IllegalArgumentException("--shard: must be 0 or more, got " + shard);
    }
    if (shard != null && totalShards != null && shard >= totalShards) {
      throw new IllegalArgumentException("--shard: must be below --total-shards (" + totalShards
          + "), i.e. 0 to " + (totalShards - 1) + ", got " + shard);
    }
    if (totalFromStatefulSet != null && totalFromStatefulSet.isBlank()) {
      throw new IllegalArgumentException("--total-shards-from-statefulset: empty name");
    }
    if (by == null) {
      throw new IllegalArgumentException("--shard-by: must be object or cluster");
    }
  }

  /**
   * The shard.
   *
   * @param podName {@code $POD_NAME}, else the host name (used with {@code --shard-from-pod-name})
   * @param replicas the {@code spec.replicas} of a StatefulSet by name, empty when it does not
   *     exist (used with {@code --total-shards-from-statefulset})
   * @param leaderElect whether {@code --leader-elect} is on
   * @throws IllegalArgumentException one line naming the flag
   */
  Shard resolve(String podName, Function<String, OptionalInt> replicas, boolean leaderElect) {
    if (!given()) {
      return Shard.NONE;
    }
    int total;
    if (totalShards != null) {
      total = totalShards;
    } else {
      OptionalInt n = replicas.apply(totalFromStatefulSet);
      if (n.isEmpty()) {
        throw new IllegalArgumentException("--total-shards-from-statefulset: StatefulSet '"
            + totalFromStatefulSet + "' not found in the operator's namespace");
      }
      if (n.getAsInt() < 1) {
        throw new IllegalArgumentException("--total-shards-from-statefulset: StatefulSet '"
            + totalFromStatefulSet + "' has " + n.getAsInt() + " replicas; at least 1 needed");
      }
      total = n.getAsInt();
    }
    if (shard != null) {
      if (shard >= total) {
        throw new IllegalArgumentException("--shard: must be below the total shards (" + total
            + "), got " + shard);
      }
      return new Shard(total, shard, by);
    }
    int ordinal = ordinal(podName);
    if (ordinal >= total && !leaderElect) {
      throw new IllegalArgumentException("--shard-from-pod-name: ordinal " + ordinal + " of pod '"
          + podName + "' is not below the total shards (" + total + "); more replicas than "
          + "shards need --leader-elect (replica r is then a standby of shard r mod " + total
          + ")");
    }
    return new Shard(total, ordinal % total, by);
  }

  /** The ordinal of a StatefulSet pod's name {@code <statefulset>-<ordinal>}. */
  static int ordinal(String podName) {
    if (podName == null || podName.isBlank()) {
      throw new IllegalArgumentException("--shard-from-pod-name: no pod name (set POD_NAME from "
          + "the downward API: fieldRef metadata.name)");
    }
    Matcher m = POD_NAME.matcher(podName.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("--shard-from-pod-name: pod name '" + podName
          + "' does not end in -<ordinal> as a StatefulSet pod's does");
    }
    return Integer.parseInt(m.group(2));
  }
}

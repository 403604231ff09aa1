package io.kollect.operator.shard;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.kollect.operator.crd.KollectTargetStatus.ClusterEntry;
import io.kollect.operator.crd.KollectTargetStatus.ShardEntry;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.crd.SkippedEntry;
import io.kollect.operator.targets.CrTranslation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A sharded target's status: each shard's own entry in {@code status.shards[]}, and the
 * top level that shard 0 makes of all entries: counts summed, {@code clusters[]} and {@code
 * skipped[]} merged from every entry (never from the aggregator's own view, which split by
 * cluster holds none of the other shards' clusters), Ready as below.
 *
 * <p><b>Who writes what.</b> Shard {@code i}'s leader server-side applies only its entry, as field
 * manager {@code kollect-shard-i}; the CRD makes {@code shards} a map list keyed by {@code index},
 * so the API server merges the entries instead of one shard's apply replacing the list. The rest
 * of the status has one writer, the aggregator's leader (a PUT guarded by resourceVersion, as
 * unsharded), which reads the entries from the object it writes, so a conflict retried on a fresh
 * read aggregates the newest entries and never removes one written meanwhile. It drops the entries
 * of indexes {@code >= N} (shards removed when {@code N} shrank); nothing else ever removes an
 * entry.
 *
 * <p><b>The aggregator</b> ({@link #aggregates}) is the lowest-index shard that has a leader by
 * its Lease ({@link ShardLeases}), a shard counting itself as led: shard 0 while it runs, so that
 * the top level does not keep its last values (Ready=True for ever) when shard 0 crash-loops.
 * Without leader election no shard is judged down and shard 0 aggregates. During a hand-over two
 * shards may both write for an instant; they compute from the same stored entries and take the
 * transition times of unchanged conditions from the stored ones, so they converge instead of
 * rewriting each other's values.
 *
 * <p><b>Ready</b> at the top level is True only when every shard {@code 0..N-1} has an entry that
 * is Ready at the target's current generation; otherwise False, reason {@value
 * #REASON_SHARDS_NOT_READY}, the message naming each such shard and why (no entry yet, not Ready
 * with its reason, or an older generation). A shard that stopped keeps its last entry, whose
 * counts are still summed; with leader election its Lease tells that it stopped ({@link
 * ShardLeases}), and such a shard is not Ready whatever its entry says, named with since when it
 * has no leader. Without leader election there are no Leases, and its entry is judged until the
 * spec changes, when its old generation makes the target not Ready.
 */
public final class ShardStatuses {

  public static final String REASON_SHARDS_NOT_READY = "ShardsNotReady";
  /** The status key of the entries, and their map key. */
  public static final String LIST = "shards";
  public static final String KEY = "index";
  /** Shards named in the Ready message; the rest are counted. */
  static final int NAMED = 5;

  private ShardStatuses() {}

  /** The field manager of shard {@code index}'s entry. */
  public static String fieldManager(int index) {
    return "kollect-shard-" + index;
  }

  /**
   * Whether shard {@code index} of {@code total} writes the top level: every lower-index shard is
   * {@code down} (judged without leader, {@link ShardLeases#down}). A shard never counts itself
   * down: it runs this code.
   *
   * @throws IllegalArgumentException when {@code index} is not in {@code 0..total-1}
   */
  public static boolean aggregates(int index, int total, Set<Integer> down) {
    if (index < 0 || index >= total) {
      throw new IllegalArgumentException("shard index " + index + " is not in 0.." + (total - 1));
    }
    for (int i = 0; i < index; i++) {
      if (!down.contains(i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Shard {@code index}'s entry, from the status it would write as the only shard: its Ready,
   * counts, clusters and skipped scopes. A shard that holds no part of the target (split by
   * cluster, none of its clusters) still has an entry, Ready with zero objects, or the target
   * would never be Ready.
   */
  public static ShardEntry entry(int index, KollectTargetStatus own) {
    Condition ready = condition(own.conditions(), "Ready");
    return new ShardEntry(index, ready == null ? "Unknown" : ready.getStatus(),
        ready == null ? null : ready.getReason(), ready == null ? null : ready.getMessage(),
        own.objects() == null ? 0 : own.objects(),
        own.objectCounts() == null ? Map.of() : own.objectCounts(), own.observedGeneration(),
        own.lastExportTime(), emptyAsNull(own.clusters()), emptyAsNull(own.skipped()));
  }

  /** An empty list as absent: an entry is applied on every write, kept as small as it can be. */
  private static <T> List<T> emptyAsNull(List<T> list) {
    return list == null || list.isEmpty() ? null : list;
  }

  /**
   * The target's {@code clusters[]} over the entries, by cluster name in the order the entries
   * (by index) first name them: ready when every shard's part of the cluster is, objects summed,
   * the messages of the parts that are not ready. Split by cluster a remote cluster comes from
   * its owner's entry alone, and the engine's own cluster from every shard's; split by object
   * every shard has a part of every cluster. {@code null} when no entry names a cluster.
   */
  static List<ClusterEntry> clusters(List<ShardEntry> entries) {
    Map<String, ClusterEntry> merged = new LinkedHashMap<>();
    for (ShardEntry e : byIndex(entries)) {
      if (e.clusters() == null) {
        continue;
      }
      for (ClusterEntry c : e.clusters()) {
        if (c == null || c.name() == null) {
          continue;
        }
        merged.merge(c.name(), c, ShardStatuses::mergeCluster);
      }
    }
    return merged.isEmpty() ? null : List.copyOf(merged.values());
  }

  private static ClusterEntry mergeCluster(ClusterEntry a, ClusterEntry b) {
    boolean ready = Boolean.TRUE.equals(a.ready()) && Boolean.TRUE.equals(b.ready());
    int objects = (a.objects() == null ? 0 : a.objects()) + (b.objects() == null ? 0 : b.objects());
    List<String> messages = new ArrayList<>();
    for (ClusterEntry c : List.of(a, b)) {
      if (!Boolean.TRUE.equals(c.ready()) && c.message() != null && !c.message().isBlank()
          && !messages.contains(c.message())) {
        messages.add(c.message());
      }
    }
    return new ClusterEntry(a.name(), ready, objects,
        ready ? a.message() : messages.isEmpty() ? null : String.join("; ", messages));
  }

  /**
   * The target's {@code skipped[]} over the entries: every shard's, each once, in the order the
   * entries (by index) name them; {@code null} when no entry has any.
   */
  static List<SkippedEntry> skipped(List<ShardEntry> entries) {
    Set<SkippedEntry> all = new LinkedHashSet<>();
    for (ShardEntry e : byIndex(entries)) {
      if (e.skipped() != null) {
        all.addAll(e.skipped());
      }
    }
    return all.isEmpty() ? null : List.copyOf(all);
  }

  private static List<ShardEntry> byIndex(List<ShardEntry> entries) {
    Map<Integer, ShardEntry> byIndex = new TreeMap<>();
    for (ShardEntry e : entries) {
      if (e.index() != null) {
        byIndex.put(e.index(), e);
      }
    }
    return List.copyOf(byIndex.values());
  }

  /**
   * What the entries say about the whole target.
   *
   * @param ready every shard has an entry that is Ready at the current generation
   * @param message the shards that are not, and why; or a summary when all are
   * @param objects objects over the entries of shards {@code 0..N-1}
   * @param objectCounts per resource type over the same entries
   * @param lastExportTime the latest of their {@code lastExportTime}, or {@code null}
   * @param stalled the first not-Ready entry whose reason a retry does not fix, or {@code null}
   */
  record Aggregate(boolean ready, String message, int objects, Map<String, Integer> objectCounts,
      String lastExportTime, ShardEntry stalled) {}

  /**
   * Aggregates the entries of shards {@code 0..total-1} at {@code generation}; entries of other
   * indexes are ignored. When an index has several entries (never from the API server) the last
   * counts.
   */
  static Aggregate aggregate(List<ShardEntry> entries, int total, long generation) {
    return aggregate(entries, total, generation, Map.of());
  }

  /**
   * As {@link #aggregate(List, int, long)}, with the shards that have no leader ({@code down}:
   * index to why, from {@link ShardLeases#down}): each is not Ready, named with that why, and its
   * entry's counts are still summed (the last it reported), which the message says.
   */
  static Aggregate aggregate(List<ShardEntry> entries, int total, long generation,
      Map<Integer, String> down) {
    Map<Integer, ShardEntry> byIndex = new TreeMap<>();
    for (ShardEntry e : entries) {
      if (e.index() != null && e.index() >= 0 && e.index() < total) {
        byIndex.put(e.index(), e);
      }
    }
    int objects = 0;
    Map<String, Integer> counts = new TreeMap<>();
    Instant latest = null;
    for (ShardEntry e : byIndex.values()) {
      objects += e.objects() == null ? 0 : e.objects();
      if (e.objectCounts() != null) {
        e.objectCounts().forEach((type, n) -> counts.merge(type, n == null ? 0 : n, Integer::sum));
      }
      Instant at = instant(e.lastExportTime());
      if (at != null && (latest == null || at.isAfter(latest))) {
        latest = at;
      }
    }
    List<String> notReady = new ArrayList<>();
    ShardEntry stalled = null;
    for (int i = 0; i < total; i++) {
      ShardEntry e = byIndex.get(i);
      String why = down.containsKey(i)
          ? down.get(i) + (e == null ? "" : ", its last counts still summed")
          : whyNotReady(e, generation);
      if (why == null) {
        continue;
      }
      notReady.add("shard " + i + ": " + why);
      if (stalled == null && e != null && !down.containsKey(i) && !"True".equals(e.ready())
          && CrTranslation.STALLED_REASONS.contains(e.reason())) {
        stalled = e;
      }
    }
    String lastExport = latest == null ? null : CrTranslation.rfc3339(latest);
    if (notReady.isEmpty()) {
      return new Aggregate(true, objects + " objects in scope in " + total + " shards", objects,
          counts, lastExport, null);
    }
    StringBuilder message = new StringBuilder(notReady.size() + " of " + total
        + " shards not ready: ");
    for (int i = 0; i < Math.min(NAMED, notReady.size()); i++) {
      message.append(i == 0 ? "" : "; ").append(notReady.get(i));
    }
    if (notReady.size() > NAMED) {
      message.append("; and ").append(notReady.size() - NAMED).append(" more");
    }
    return new Aggregate(false, message.toString(), objects, counts, lastExport, stalled);
  }

  /** Why a shard's part is not Ready at {@code generation}, or {@code null} when it is. */
  private static String whyNotReady(ShardEntry e, long generation) {
    if (e == null) {
      return "no status yet";
    }
    if (!"True".equals(e.ready())) {
      String reason = e.reason() == null ? "Ready " + e.ready() : e.reason();
      return e.message() == null || e.message().isBlank() || e.message().equals(e.reason())
          ? reason : reason + ": " + e.message();
    }
    if (e.observedGeneration() == null || e.observedGeneration() != generation) {
      return "at generation " + e.observedGeneration() + ", not yet " + generation;
    }
    return null;
  }

  /**
   * The aggregator's top-level status: its own status ({@code own}, as it would write it unsharded)
   * with the totals, {@code lastExportTime} and {@code Ready} of all shards, and the stored entries
   * of shards {@code 0..total-1} (in their stored order, so an unchanged list is written
   * unchanged).
   *
   * @param stored the entries as stored in the object being written
   * @param ownEntry the aggregator's entry as it is now (may be newer than its stored one)
   * @param generation the target's current {@code metadata.generation}
   * @param previous the top-level conditions as stored (transition times are kept)
   */
  public static KollectTargetStatus topLevel(KollectTargetStatus own, List<ShardEntry> stored,
      ShardEntry ownEntry, int total, long generation, List<Condition> previous, Instant now) {
    return topLevel(own, stored, ownEntry, total, generation, previous, now, Map.of());
  }

  /**
   * As {@link #topLevel(KollectTargetStatus, List, ShardEntry, int, long, List, Instant)}, with
   * the shards that have no leader ({@code down}, see {@link #aggregate(List, int, long, Map)}).
   */
  public static KollectTargetStatus topLevel(KollectTargetStatus own, List<ShardEntry> stored,
      ShardEntry ownEntry, int total, long generation, List<Condition> previous, Instant now,
      Map<Integer, String> down) {
    List<ShardEntry> kept = stored.stream()
        .filter(e -> e.index() != null && e.index() >= 0 && e.index() < total).toList();
    List<ShardEntry> current = new ArrayList<>(kept.stream()
        .filter(e -> !Objects.equals(e.index(), ownEntry.index())).toList());
    current.add(ownEntry);
    Map<Integer, String> others = new TreeMap<>(down);
    others.remove(ownEntry.index()); // the writer leads its own shard
    Aggregate all = aggregate(current, total, generation, others);
    long observed = own.observedGeneration() == null ? generation : own.observedGeneration();
    Condition ownReady = condition(own.conditions(), "Ready");
    Condition ready = all.ready()
        ? CrTranslation.kept(previous, "Ready", "True",
            ownReady != null && "True".equals(ownReady.getStatus()) ? ownReady.getReason()
                : "Reconciled", all.message(), now, observed)
        : CrTranslation.kept(previous, "Ready", "False", REASON_SHARDS_NOT_READY, all.message(),
            now, observed);
    List<Condition> conditions = new ArrayList<>();
    boolean placed = false;
    for (Condition c : own.conditions() == null ? List.<Condition>of() : own.conditions()) {
      switch (c.getType()) {
        case "Ready" -> {
          conditions.add(ready);
          placed = true;
        }
        case "Stalled", "Reconciling" -> { }
        default -> conditions.add(storedSince(previous, c));
      }
    }
    if (!placed) {
      conditions.add(0, ready);
    }
    if (!all.ready()) {
      conditions.add(all.stalled() != null
          ? CrTranslation.kept(previous, "Stalled", "True", all.stalled().reason(), all.message(),
              now, observed)
          : CrTranslation.kept(previous, "Reconciling", "True", REASON_SHARDS_NOT_READY,
              all.message(), now, observed));
    }
    // clusters[] and skipped[] from every shard's entry, not from the aggregator's own view: split
    // by cluster, the aggregator does not even read most clusters
    List<SkippedEntry> skipped = skipped(current);
    return new KollectTargetStatus(own.observedGeneration(), conditions, all.objectCounts(),
        skipped == null ? (own.skipped() == null ? null : List.of()) : skipped,
        all.lastExportTime() != null ? all.lastExportTime() : own.lastExportTime(),
        all.objects(), own.inventory(), own.sinks(), clusters(current),
        own.lastHandledReconcileAt(), kept.isEmpty() ? null : kept);
  }

  /**
   * {@code c} with the stored transition time when its status is unchanged: each shard's engine
   * has its own instants, and two shards writing during a hand-over must compute the same value.
   */
  private static Condition storedSince(List<Condition> previous, Condition c) {
    for (Condition p : previous) {
      if (Objects.equals(c.getType(), p.getType()) && Objects.equals(c.getStatus(), p.getStatus())
          && p.getLastTransitionTime() != null) {
        return new ConditionBuilder(c).withLastTransitionTime(p.getLastTransitionTime()).build();
      }
    }
    return c;
  }

  private static Condition condition(List<Condition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  private static Instant instant(String rfc3339) {
    if (rfc3339 == null) {
      return null;
    }
    try {
      return Instant.parse(rfc3339);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }
}

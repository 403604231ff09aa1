package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ProfileValidationException;
import io.kollect.extract.Record;
import io.kollect.extract.RecordContext;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shadow evaluation of candidate profiles (safe profile change): for every target of a profile
 * that has a candidate, what the candidate would deliver compared with what the target delivers,
 * over the same cached objects, with nothing of it delivered.
 *
 * <p><b>What is compared.</b> The baseline side is the target's own records ({@link
 * TargetRecords}, what its sinks were handed). The candidate side is read from leases this class
 * holds in the target's resolved scope (namespaces, label selector, names) for each type of the
 * candidate, with the candidate's projection: one more consumer of the shared informers, so a
 * type both profiles read costs no second watch, and a type only the candidate reads is watched
 * while the candidate is set. Objects are matched by record key ({@code group/kind/ns/name}).
 * Namespace filter and tenant boundary apply as in a full pass (fresh {@link
 * TenantBoundary.TypeAccess} answers, cached by {@link AccessDecisions}).
 *
 * <p><b>Cost rule.</b> Never O(inventory) per informer event: an event (of a candidate lease) or a
 * reconcile of a target of the profile only marks the profile dirty. One background thread
 * re-evaluates a dirty profile at most once per {@code interval} (and at once when the candidate
 * is set): O(objects of its targets) map lookups, plus an extraction only for objects whose
 * {@code resourceVersion} changed since the last evaluation (a per-target memo, O(objects)
 * memory while the candidate is set). So a busy cluster costs one pass per interval, a quiet one
 * nothing.
 *
 * <p>Thread-safety: the public-to-the-engine methods may be called from any thread; evaluation
 * runs on the single {@code kollect-shadow} thread, taking a target's monitor only to copy its
 * records and pass context.
 */
final class ShadowEvaluation implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ShadowEvaluation.class);

  /** Default least time between two evaluations of a profile's candidate. */
  static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
  /** Retry delay while a candidate's leases are not synced yet. */
  private static final Duration UNSYNCED_RETRY = Duration.ofMillis(500);

  /** The engine's targets of a profile. */
  interface Targets {
    Collection<TargetRuntime> using(String profile);
  }

  private final String cluster;
  private final BiFunction<LeaseRequest, LeaseListener, InformerLease> leases;
  private final RecordExtractor extractor;
  private final Predicate<String> namespaceFilter;
  private final TenantBoundary boundary;
  private final ExtractOptions extractOptions;
  private final Targets targets;
  private final Clock clock;
  private final long intervalNanos;
  private final ConcurrentHashMap<String, Shadow> shadows = new ConcurrentHashMap<>();
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
      r -> {
        Thread t = new Thread(r, "kollect-shadow");
        t.setDaemon(true);
        return t;
      });

  /**
   * What a shadow evaluation reads with: the same as the engine's full passes.
   *
   * @param cluster the engine's own cluster's name
   * @param leases where candidate leases of the engine's own cluster come from
   * @param toJson how a cached object becomes the JSON extraction reads
   * @param namespaceFilter namespaces the engine may read at all
   * @param boundary what targets may read
   * @param extractOptions how candidates are compiled (the digest key)
   * @param clock stamps candidate records
   * @param shard the objects this engine owns: a candidate profile sees only those
   */
  record Reading(String cluster, BiFunction<LeaseRequest, LeaseListener, InformerLease> leases,
      Function<GenericKubernetesResource, JsonNode> toJson, Predicate<String> namespaceFilter,
      TenantBoundary boundary, ExtractOptions extractOptions, Clock clock, Shard shard) {}

  /**
   * @param targets finds a profile's targets (their units when they fan out)
   * @param interval least time between two evaluations of a profile's candidate after events
   */
  ShadowEvaluation(Reading reading, Targets targets, Duration interval) {
    this.cluster = reading.cluster();
    this.leases = reading.leases();
    this.extractor = new RecordExtractor(reading.toJson(),
        reading.shard().ownership(reading.cluster()));
    this.namespaceFilter = reading.namespaceFilter();
    this.boundary = reading.boundary();
    this.extractOptions = reading.extractOptions();
    this.targets = targets;
    this.clock = reading.clock();
    this.intervalNanos = interval.toNanos();
  }

  /** One profile's candidate and its per-target evaluations. */
  private static final class Shadow {
    final String profile;
    final ProfileSpec spec;
    final CompiledProfile compiled;
    final String error;
    /** Touched by the shadow thread only. */
    final Map<String, TargetShadow> byTarget = new HashMap<>();
    /** Per-target results, read by any thread. */
    final ConcurrentHashMap<String, ProfileDiff> diffs = new ConcurrentHashMap<>();
    /** The targets the last evaluation covered (published after it). */
    volatile Set<String> covered;
    final AtomicBoolean scheduled = new AtomicBoolean();
    volatile long lastRunNanos;
    volatile boolean removed;

    Shadow(String profile, ProfileSpec spec, CompiledProfile compiled, String error) {
      this.profile = profile;
      this.spec = spec;
      this.compiled = compiled;
      this.error = error;
    }
  }

  /** What the candidate holds for one target. */
  private static final class TargetShadow {
    final Map<ResourceType, InformerLease> leases = new HashMap<>();
    /** Candidate outcome per object key, reused while its resourceVersion is unchanged. */
    Map<ObjectKey, Memo> memo = new HashMap<>();
    /** JSON sizes of the records last compared, by instance (unchanged records keep theirs). */
    IdentityHashMap<Record, Long> sizes = new IdentityHashMap<>();

    void close() {
      leases.values().forEach(InformerLease::close);
      leases.clear();
      memo = new HashMap<>();
      sizes = new IdentityHashMap<>();
    }
  }

  private record Memo(String resourceVersion, String recordKey, Object outcome) {}

  /**
   * Sets (or replaces) the profile's candidate and evaluates it at once. An invalid candidate is
   * kept with its message ({@link #error}) and evaluates nothing.
   */
  void put(String profile, ProfileSpec spec) {
    CompiledProfile compiled = null;
    String error = null;
    try {
      compiled = ProfileCompiler.compile(profile, spec, extractOptions);
    } catch (ProfileValidationException e) {
      error = e.getMessage();
    } catch (RuntimeException e) {
      LOG.warn("compiling the candidate of profile {} failed unexpectedly", profile, e);
      error = "candidate of profile " + profile + " cannot be compiled: " + e;
    }
    Shadow next = new Shadow(profile, spec, compiled, error);
    Shadow old = shadows.put(profile, next);
    if (old != null) {
      retire(old);
    }
    if (compiled != null) {
      schedule(next, 0);
    }
  }

  /** The spec of the profile's candidate, if one is set. */
  Optional<ProfileSpec> candidate(String profile) {
    Shadow s = shadows.get(profile);
    return s == null ? Optional.empty() : Optional.of(s.spec);
  }

  /** Stops evaluating the profile's candidate and releases its leases. */
  void remove(String profile) {
    Shadow old = shadows.remove(profile);
    if (old != null) {
      retire(old);
    }
  }

  /** Why the profile's candidate cannot be evaluated, when it is invalid. */
  Optional<String> error(String profile) {
    Shadow s = shadows.get(profile);
    return s == null ? Optional.empty() : Optional.ofNullable(s.error);
  }

  /**
   * The candidate's difference summed over the targets the last evaluation covered; empty when
   * no candidate is set, it is invalid, or it was not evaluated for every such target yet.
   */
  Optional<ProfileDiff> diff(String profile) {
    Shadow s = shadows.get(profile);
    if (s == null || s.compiled == null || s.covered == null) {
      return Optional.empty();
    }
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(ProfileDiff.DEFAULT_SAMPLES);
    for (String unit : s.covered) {
      ProfileDiff d = s.diffs.get(unit);
      if (d == null) {
        return Optional.empty();
      }
      acc.merge(d);
    }
    return Optional.of(acc.result());
  }

  /** A target of {@code profile} was reconciled (or changed): its candidate view may be stale. */
  void touched(String profile) {
    Shadow s = shadows.get(profile);
    if (s != null && s.compiled != null) {
      schedule(s, -1);
    }
  }

  /** A target was removed or left the profile: the next evaluation drops it. */
  void targetGone(String profile) {
    touched(profile);
  }

  /** Stops evaluating and releases every lease. */
  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Shadow s : shadows.values()) {
      s.removed = true;
      s.byTarget.values().forEach(TargetShadow::close);
    }
    shadows.clear();
  }

  // ---------------------------------------------------------------------------------------------

  private void retire(Shadow s) {
    s.removed = true;
    try {
      executor.execute(() -> {
        s.byTarget.values().forEach(TargetShadow::close);
        s.byTarget.clear();
      });
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // close() releases what is left
    }
  }

  /**
   * Schedules one evaluation of {@code s}: after {@code delayNanos} when given (&ge; 0), else when
   * the interval since the last one is over. At most one is pending per profile.
   */
  private void schedule(Shadow s, long delayNanos) {
    if (s.removed || !s.scheduled.compareAndSet(false, true)) {
      return;
    }
    long delay = delayNanos >= 0 ? delayNanos
        : Math.max(0, s.lastRunNanos + intervalNanos - System.nanoTime());
    try {
      executor.schedule(() -> run(s), delay, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      s.scheduled.set(false);
    }
  }

  private void run(Shadow s) {
    s.scheduled.set(false);
    if (s.removed) {
      return;
    }
    s.lastRunNanos = System.nanoTime();
    boolean complete;
    try {
      complete = evaluate(s);
    } catch (RuntimeException e) {
      LOG.warn("shadow evaluation of profile {} failed; retrying", s.profile, e);
      complete = false;
    }
    if (!complete) {
      schedule(s, UNSYNCED_RETRY.toNanos());
    }
  }

  /** Evaluates the candidate for every target of the profile; false when some were not ready. */
  private boolean evaluate(Shadow s) {
    Map<ResourceType, GroupVersionKind> types = LeasePlan.types(s.compiled);
    Set<String> covered = new HashSet<>();
    boolean complete = true;
    for (TargetRuntime rt : targets.using(s.profile)) {
      if (s.removed) {
        return true;
      }
      Snapshot snap = snapshot(rt);
      TargetShadow ts = s.byTarget.computeIfAbsent(rt.exportKey, k -> new TargetShadow());
      if (snap == null) {
        // Suspended or removed: it delivers nothing, so there is nothing to compare.
        ts.close();
        s.diffs.remove(rt.exportKey);
        continue;
      }
      covered.add(rt.exportKey);
      if (snap == NOT_READY) {
        continue; // no full pass read the caches yet; its next reconcile touches this again
      }
      lease(s, ts, rt, snap, types);
      ProfileDiff d = compare(s, ts, rt, snap, types);
      if (d == null) {
        complete = false;
      } else {
        s.diffs.put(rt.exportKey, d);
      }
    }
    for (Iterator<Map.Entry<String, TargetShadow>> it = s.byTarget.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, TargetShadow> e = it.next();
      if (!covered.contains(e.getKey())) {
        e.getValue().close();
        s.diffs.remove(e.getKey());
        it.remove();
      }
    }
    s.covered = Set.copyOf(covered);
    return complete;
  }

  /** What a target decided in its last full pass, and its records, copied under its monitor. */
  private record Snapshot(TargetSpec spec, NamespaceScope.NamespaceSet namespaces,
      Map<String, Record> baseline, Set<String> baselineKeys) {}

  private static final Snapshot NOT_READY = new Snapshot(null, null, Map.of(), Set.of());

  /** The target's snapshot; {@code null} when it reads nothing, {@link #NOT_READY} before. */
  private static Snapshot snapshot(TargetRuntime rt) {
    synchronized (rt) {
      PassContext ctx = rt.context;
      TargetSpec spec = rt.definition.spec();
      if (rt.removed || spec.suspend()) {
        return null;
      }
      if (ctx == null || !ctx.readable() || !ctx.complete()) {
        return NOT_READY;
      }
      Map<String, Record> baseline = new HashMap<>(rt.records.entryCount() * 4 / 3 + 1);
      Set<String> keys = new HashSet<>();
      rt.records.forEachEntry((k, e) -> {
        String key = k.recordKey();
        keys.add(key);
        Record r = e.record();
        if (r != null && rt.cap == null) {
          baseline.put(key, r);
        }
      });
      if (rt.cap != null) {
        // A capped target delivers its kept set only: compare with what it delivers.
        for (Record r : rt.cap.kept()) {
          baseline.put(r.key(), r);
        }
      }
      return new Snapshot(spec, ctx.namespaces(), baseline, keys);
    }
  }

  /** Holds one lease per candidate type in the target's scope, with the candidate's projection. */
  private void lease(Shadow s, TargetShadow ts, TargetRuntime rt, Snapshot snap,
      Map<ResourceType, GroupVersionKind> types) {
    for (Iterator<Map.Entry<ResourceType, InformerLease>> it = ts.leases.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<ResourceType, InformerLease> e = it.next();
      if (snap.namespaces().none() || !types.containsKey(e.getKey())) {
        e.getValue().close();
        it.remove();
      }
    }
    if (snap.namespaces().none()) {
      return;
    }
    LeaseListener listener = new LeaseListener() {
      @Override
      public void onEvent(ResourceEvent event) {
        schedule(s, -1);
      }

      @Override
      public void onStatusChange(LeaseStatus status) {
        schedule(s, -1);
      }
    };
    for (Map.Entry<ResourceType, GroupVersionKind> e : types.entrySet()) {
      LeaseRequest request = new LeaseRequest(e.getKey(), snap.namespaces().names(),
          snap.spec().scope().labelSelector(), Set.copyOf(snap.spec().scope().names()),
          s.compiled.keepPaths(e.getValue()));
      InformerLease existing = ts.leases.get(e.getKey());
      if (existing == null || !existing.request().equals(request)) {
        ts.leases.put(e.getKey(), rt.leaseSource(leases).apply(request, listener));
        if (existing != null) {
          existing.close();
        }
      }
    }
  }

  /** The target's diff, or {@code null} while a candidate lease has not synced. */
  private ProfileDiff compare(Shadow s, TargetShadow ts, TargetRuntime rt, Snapshot snap,
      Map<ResourceType, GroupVersionKind> types) {
    for (InformerLease lease : ts.leases.values()) {
      if (!lease.hasSynced()) {
        return null;
      }
    }
    Map<String, Object> candidate = readCandidate(s, ts, rt, snap);
    Integer max = snap.spec().maxObjects();
    if (max != null) {
      capCandidate(candidate, max);
    }
    return diff(ts, snap, candidate);
  }

  /**
   * The candidate's outcome per record key (a record, or an extraction error's message) over the
   * candidate leases, in the target's scope and boundary; extracts only objects whose {@code
   * resourceVersion} changed since the last evaluation.
   */
  private Map<String, Object> readCandidate(Shadow s, TargetShadow ts, TargetRuntime rt,
      Snapshot snap) {
    // On another cluster the credential is the boundary (as in the unit's own full pass).
    TenantBoundary unitBoundary = rt.connection == null ? boundary : TenantBoundary.off();
    TenantBoundary.ServiceAccountRef subject = unitBoundary.subjectOf(snap.spec());
    RecordContext ctx = new RecordContext(rt.recordCluster(cluster), rt.id.toString(),
        clock.instant());
    Map<ObjectKey, Memo> memo = new HashMap<>(Math.max(16, ts.memo.size() * 4 / 3 + 1));
    // Candidate outcomes by record key (the accumulator's samples do not depend on the order).
    Map<String, Object> candidate = new HashMap<>(Math.max(16, ts.memo.size() * 4 / 3 + 1));
    for (Map.Entry<ResourceType, InformerLease> e : ts.leases.entrySet()) {
      ResourceType type = e.getKey();
      TenantBoundary.TypeAccess access = unitBoundary.access(subject, type,
          snap.namespaces().all());
      if (!access.resolved()) {
        continue;
      }
      for (GenericKubernetesResource obj : e.getValue().list()) {
        String ns = obj.getMetadata() == null ? null : obj.getMetadata().getNamespace();
        if ((ns != null && snap.namespaces().all() && !namespaceFilter.test(ns))
            || !access.allows(ns)) {
          continue;
        }
        ObjectKey key = ObjectKey.of(type, ns, obj.getMetadata().getName());
        String rv = obj.getMetadata().getResourceVersion();
        Memo m = ts.memo.get(key);
        if (m == null || rv == null || !rv.equals(m.resourceVersion())) {
          m = new Memo(rv, key.recordKey(), extractor.extract(s.compiled, type, obj, ctx));
        }
        memo.put(key, m);
        candidate.put(m.recordKey(), m.outcome());
      }
    }
    ts.memo = memo;
    return candidate;
  }

  /** The candidate would deliver the first {@code max} records in key order, as the target does. */
  private static void capCandidate(Map<String, Object> candidate, int max) {
    int kept = 0;
    for (Map.Entry<String, Object> e : new TreeMap<>(candidate).entrySet()) {
      if (e.getValue() instanceof Record) {
        if (kept >= max) {
          candidate.put(e.getKey(), null);
        } else {
          kept++;
        }
      }
    }
  }

  /** The difference between the target's records and the candidate's, key by key. */
  private static ProfileDiff diff(TargetShadow ts, Snapshot snap, Map<String, Object> candidate) {
    ProfileDiff.Accumulator acc = ProfileDiff.accumulator(ProfileDiff.DEFAULT_SAMPLES);
    List<String> all = new ArrayList<>(snap.baselineKeys());
    for (String key : candidate.keySet()) {
      if (!snap.baselineKeys().contains(key)) {
        all.add(key);
      }
    }
    IdentityHashMap<Record, Long> sizes = new IdentityHashMap<>(ts.sizes.size() + 16);
    for (String key : all) {
      Object outcome = candidate.get(key);
      Record before = snap.baseline().get(key);
      Record after = outcome instanceof Record r ? r : null;
      acc.add(before, size(before, ts.sizes, sizes), after, size(after, ts.sizes, sizes),
          outcome instanceof String);
    }
    ts.sizes = sizes;
    return acc.result();
  }

  private static long size(Record r, IdentityHashMap<Record, Long> last,
      IdentityHashMap<Record, Long> next) {
    if (r == null) {
      return 0;
    }
    Long n = last.get(r);
    if (n == null) {
      n = ProfileDiff.jsonSize(r);
    }
    next.put(r, n);
    return n;
  }

  /** For the benchmark: one evaluation of the profile's candidate now, on the shadow thread. */
  void evaluateNow(String profile) {
    Shadow s = shadows.get(profile);
    if (s == null || s.compiled == null) {
      return;
    }
    try {
      executor.submit(() -> evaluate(s)).get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** For tests: the candidate leases held for a target of the profile. */
  int leaseCount(String profile) {
    Shadow s = shadows.get(profile);
    if (s == null) {
      return 0;
    }
    int[] n = new int[1];
    try {
      executor.submit(() -> s.byTarget.values().forEach(t -> n[0] += t.leases.size())).get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return n[0];
  }

}

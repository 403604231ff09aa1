package io.kollect.informers;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The informers of one type and their make-before-break switch: informers for new scopes or a new
 * projection start <em>pending</em>; reads and events stay with the <em>active</em> ones until
 * every pending informer has listed, then the active set switches in one step; the replaced
 * informers keep delivering (draining) until {@link #drained}, so no change falls between the two.
 *
 * <p>Threading: {@link #apply}, {@link #onSynced}, {@link #clear} and {@link #stopAll} run on the
 * planner thread only; the maps readers see ({@link #active()}, {@link #pending()}) are immutable
 * snapshots published through volatile fields.
 *
 * @param <H> the informer (an interface so the switch is testable without a cluster)
 */
final class InformerSet<H extends InformerSet.Member> {

  /** What the set needs of an informer. */
  interface Member {
    /** {@link ScopePlanner#ALL} or a namespace. */
    String scope();

    ObjectProjection projection();

    /** Whether its initial list has completed. */
    boolean synced();

    /** It now serves reads and events. */
    void activate();

    /** It has been replaced. */
    void retire();

    /** Its watch's stall at {@code now}, or {@code null} when it delivers. */
    WatchLiveness.Stall stall(Instant now);
  }

  /**
   * A switch of the active set.
   *
   * @param before the active informers before
   * @param after the active informers now
   * @param retired the informers of {@code before} that {@code after} replaced, not stopped yet
   */
  record Switch<H>(Map<String, H> before, Map<String, H> after, List<H> retired) {}

  private final BiFunction<String, ObjectProjection, H> starter;
  private final Consumer<H> stopper;

  private volatile Map<String, H> active = Map.of();
  private volatile Map<String, H> pendingView = Map.of();
  /** Replaced informers still delivering until {@link #drained}. */
  private final Set<H> draining = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // planner thread only
  private final Map<String, H> pending = new HashMap<>();
  private Set<String> desired = Set.of();

  /**
   * @param starter starts an informer for a scope and projection
   * @param stopper stops one (at most once per informer)
   */
  InformerSet(BiFunction<String, ObjectProjection, H> starter, Consumer<H> stopper) {
    this.starter = starter;
    this.stopper = stopper;
  }

  /** Serving reads and events, by scope. */
  Map<String, H> active() {
    return active;
  }

  /** Started, still listing, by scope. */
  Map<String, H> pending() {
    return pendingView;
  }

  /**
   * Starts what {@code scopes} under {@code projection} need and is not running yet, stops
   * pending informers no longer wanted; returns the switch if one happened at once (e.g. a
   * scope was only dropped).
   */
  Switch<H> apply(Set<String> scopes, ObjectProjection projection) {
    desired = Set.copyOf(new LinkedHashSet<>(scopes));
    for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
      H p = it.next().getValue();
      if (!scopes.contains(p.scope()) || !p.projection().equals(projection)) {
        stopper.accept(p);
        it.remove();
      }
    }
    Map<String, H> current = active;
    for (String scope : scopes) {
      H a = current.get(scope);
      if ((a != null && a.projection().equals(projection)) || pending.containsKey(scope)) {
        continue;
      }
      pending.put(scope, starter.apply(scope, projection));
    }
    pendingView = Map.copyOf(pending);
    return promoteIfReady();
  }

  /** {@code h} has listed; returns the switch this completes, if any. */
  Switch<H> onSynced(H h) {
    return pending.get(h.scope()) == h ? promoteIfReady() : null;
  }

  private Switch<H> promoteIfReady() {
    for (H p : pending.values()) {
      if (!p.synced()) {
        return null;
      }
    }
    Map<String, H> old = active;
    Map<String, H> next = new LinkedHashMap<>();
    for (String scope : desired) {
      H h = pending.containsKey(scope) ? pending.get(scope) : old.get(scope);
      if (h != null) {
        next.put(scope, h);
      }
    }
    if (next.equals(old) && pending.isEmpty()) {
      return null;
    }
    next.values().forEach(Member::activate);
    List<H> retired = new ArrayList<>();
    for (H h : old.values()) {
      if (next.get(h.scope()) != h) {
        h.retire();
        retired.add(h);
      }
    }
    // Informer threads read these three without a lock, so the order of the writes is what they
    // may see in between: every informer must stay findable (active, pending or draining) at each
    // step, or its event in that instant is heard by nobody. A replaced one drains before the new
    // set is published; a promoted one is active before it stops being pending.
    draining.addAll(retired);
    active = java.util.Collections.unmodifiableMap(next);
    pending.clear();
    pendingView = Map.of();
    return new Switch<>(old, active, retired);
  }

  /** The drain of {@code retired} is over: stops them. */
  void drained(List<H> retired) {
    for (H h : retired) {
      if (draining.remove(h)) {
        stopper.accept(h);
      }
    }
  }

  /** Whether a switch is under way: a successor listing, or a predecessor draining. */
  boolean switching() {
    return !draining.isEmpty() || (!pendingView.isEmpty() && !active.isEmpty());
  }

  /** Stops the pending informers and empties the active set; returns what was active (not stopped). */
  Map<String, H> clear() {
    pending.values().forEach(stopper);
    pending.clear();
    pendingView = Map.of();
    desired = Set.of();
    Map<String, H> old = active;
    active = Map.of();
    old.values().forEach(Member::retire);
    return old;
  }

  /** Stops everything (any thread, once nothing plans any more). */
  void stopAll() {
    active.values().forEach(stopper);
    pendingView.values().forEach(stopper);
    draining.forEach(stopper);
    draining.clear();
    active = Map.of();
    pendingView = Map.of();
  }

  /**
   * The informer whose events and reads serve a lease in {@code namespace} ({@code null}: a
   * cluster-scoped object): the active one covering the namespace if it keeps the lease's paths,
   * else the pending one that does (the first list of a new scope or projection), else none.
   */
  H authority(String namespace, Predicate<ObjectProjection> covers) {
    H a = covering(active, namespace);
    if (a != null && covers.test(a.projection())) {
      return a;
    }
    H p = covering(pendingView, namespace);
    return p != null && covers.test(p.projection()) ? p : null;
  }

  /**
   * Whether events of {@code h} are a lease's: it is the lease's {@link #authority}, or it was
   * replaced and still drains (a change it handles after the switch may not have reached the
   * successor before it).
   */
  boolean speaksFor(H h, String namespace, Predicate<ObjectProjection> covers) {
    if (authority(namespace, covers) == h) {
      return true;
    }
    return draining.contains(h) && covers.test(h.projection())
        && (ScopePlanner.ALL.equals(h.scope()) || h.scope().equals(namespace));
  }

  /** A replaced informer, still draining, that served {@code namespace} before {@code h}. */
  H predecessor(H h, String namespace) {
    for (H d : draining) {
      if (d != h && (ScopePlanner.ALL.equals(d.scope()) || d.scope().equals(namespace))) {
        return d;
      }
    }
    return null;
  }

  static <H> H covering(Map<String, H> handles, String namespace) {
    H h = handles.get(ScopePlanner.ALL);
    return h == null && namespace != null ? handles.get(namespace) : h;
  }
}

package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The make-before-break switch, with informers that are plain values. */
class InformerSetTest {

  private static final class Fake implements InformerSet.Member {
    final String scope;
    final ObjectProjection projection;
    boolean synced;
    String phase = "pending";

    Fake(String scope, ObjectProjection projection) {
      this.scope = scope;
      this.projection = projection;
    }

    @Override
    public String scope() {
      return scope;
    }

    @Override
    public ObjectProjection projection() {
      return projection;
    }

    @Override
    public boolean synced() {
      return synced;
    }

    @Override
    public void activate() {
      phase = "active";
    }

    /** Runs while the set retires this informer, in the middle of a switch. */
    Runnable whileRetiring = () -> {};

    @Override
    public void retire() {
      whileRetiring.run();
      phase = "retired";
    }

    @Override
    public WatchLiveness.Stall stall(Instant now) {
      return null;
    }
  }

  private final List<Fake> started = new ArrayList<>();
  private final List<Fake> stopped = new ArrayList<>();
  private final InformerSet<Fake> set = new InformerSet<>((scope, projection) -> {
    Fake f = new Fake(scope, projection);
    started.add(f);
    return f;
  }, stopped::add);

  private static final ObjectProjection NARROW = ObjectProjection.of(List.of(List.of("data", "a")));

  @Test
  void theActiveSetSwitchesOnlyWhenEveryPendingInformerHasListed() {
    assertThat(set.apply(Set.of("a", "b", "c"), NARROW)).isNull();
    assertThat(set.active()).isEmpty();
    assertThat(set.pending()).containsOnlyKeys("a", "b", "c");
    Fake a = byScope("a");
    a.synced = true;
    byScope("b").synced = true;
    assertThat(set.onSynced(byScope("b"))).isNull();
    byScope("c").synced = true;
    InformerSet.Switch<Fake> first = set.onSynced(byScope("c"));
    assertThat(first.after()).containsOnlyKeys("a", "b", "c");
    assertThat(first.retired()).isEmpty();
    assertThat(set.pending()).isEmpty();
    assertThat(started).allMatch(f -> f.phase.equals("active"));

    // growing past the threshold: one cluster-wide informer, the three keep serving meanwhile
    assertThat(set.apply(Set.of(ScopePlanner.ALL), NARROW)).isNull();
    assertThat(set.active()).containsOnlyKeys("a", "b", "c");
    Fake all = started.get(3);
    assertThat(set.authority("a", p -> true)).isSameAs(a);
    // a namespace no active informer covers is served by the one that lists it
    assertThat(set.authority("z", p -> true)).isSameAs(all);
    all.synced = true;
    InformerSet.Switch<Fake> grow = set.onSynced(all);
    assertThat(grow.after()).containsOnlyKeys(ScopePlanner.ALL);
    assertThat(grow.retired()).containsExactlyInAnyOrderElementsOf(started.subList(0, 3))
        .allMatch(f -> f.phase.equals("retired"));
    assertThat(set.authority("a", p -> true)).isSameAs(all);
    // the replaced informers still speak for their namespaces until they have drained
    assertThat(set.switching()).isTrue();
    assertThat(set.speaksFor(a, "a", p -> true)).isTrue();
    assertThat(set.speaksFor(a, "b", p -> true)).isFalse();
    assertThat(stopped).isEmpty();
    set.drained(grow.retired());
    assertThat(stopped).containsExactlyInAnyOrderElementsOf(grow.retired());
    assertThat(set.speaksFor(a, "a", p -> true)).isFalse();
    assertThat(set.switching()).isFalse();
  }

  private Fake byScope(String scope) {
    return started.stream().filter(f -> f.scope.equals(scope)).findFirst().orElseThrow();
  }

  @Test
  void aPendingInformerNoLongerWantedIsStoppedAndDroppingAScopeSwitchesAtOnce() {
    set.apply(Set.of("a", "b"), NARROW);
    started.forEach(f -> f.synced = true);
    set.onSynced(byScope("b"));
    set.apply(Set.of("a", "b", "c"), NARROW);
    Fake c = started.get(2);
    InformerSet.Switch<Fake> shrink = set.apply(Set.of("a"), NARROW);
    assertThat(stopped).containsExactly(c);
    assertThat(shrink.after()).containsOnlyKeys("a");
    assertThat(shrink.retired()).containsExactly(byScope("b"));
  }

  @Test
  void anInformerWhoseProjectionDoesNotKeepALeasesPathsDoesNotSpeakForIt() {
    set.apply(Set.of("a"), NARROW);
    started.get(0).synced = true;
    set.onSynced(started.get(0));
    ObjectProjection wide = ObjectProjection.of(List.of(List.of("data")));
    set.apply(Set.of("a"), wide);
    Fake widening = started.get(1);
    List<List<String>> wantsB = List.of(List.of("data", "b"));
    assertThat(set.authority("a", p -> p.covers(wantsB))).isSameAs(widening);
    assertThat(set.authority("a", p -> p.covers(List.of(List.of("data", "a")))))
        .isSameAs(started.get(0));
  }

  @Test
  void inTheMiddleOfASwitchTheReplacedInformerStillSpeaksForItsLeases() {
    ObjectProjection wide = ObjectProjection.of(List.of(List.of("data", "a"), List.of("data", "b")));
    set.apply(Set.of(ScopePlanner.ALL), NARROW);
    Fake narrow = started.get(0);
    narrow.synced = true;
    set.onSynced(narrow);
    set.apply(Set.of(ScopePlanner.ALL), wide);
    Fake widened = started.get(1);
    widened.synced = true;
    // informer threads read the set without a lock while the planner switches it: an event
    // either informer hands out at any instant of the switch must find a lease to tell
    List<Boolean> heard = new ArrayList<>();
    narrow.whileRetiring = () -> {
      heard.add(set.speaksFor(narrow, "a", p -> true));
      heard.add(set.speaksFor(widened, "a", p -> true));
    };
    InformerSet.Switch<Fake> change = set.onSynced(widened);
    assertThat(change.retired()).containsExactly(narrow);
    // while it is being retired the replaced informer still speaks (it drains before the new set
    // is published; before, an event it handed out in that instant was heard by nobody), and the
    // replacing one does not yet: one voice per lease until the switch is visible, then both
    assertThat(heard).containsExactly(true, false);
    assertThat(set.speaksFor(narrow, "a", p -> true)).isTrue();
    assertThat(set.speaksFor(widened, "a", p -> true)).isTrue();
  }
}

package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.informers.ResourceType;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TargetIndexTest {

  private static final ResourceType DEPLOY = new ResourceType("apps", "v1", "Deployment");
  private static final ResourceType SVC = new ResourceType("", "v1", "Service");
  private final TargetIndex index = new TargetIndex();
  private final UnitKey a = UnitKey.local(new TargetId("ops", "a"));
  private final UnitKey b = UnitKey.local(new TargetId("ops", "b"));
  private final UnitKey all = UnitKey.local(new TargetId("ops", "all"));

  @Test
  void anEventConcernsOnlyTargetsReadingItsTypeAndNamespace() {
    index.putScope(a, Set.of(DEPLOY), Set.of("ns-a"));
    index.putScope(b, Set.of(DEPLOY, SVC), Set.of("ns-b"));
    index.putScope(all, Set.of(SVC), Set.of());

    assertThat(index.targetsFor(DEPLOY, "ns-a")).containsExactly(a);
    assertThat(index.targetsFor(DEPLOY, "ns-b")).containsExactly(b);
    assertThat(index.targetsFor(DEPLOY, "ns-c")).isEmpty();
    assertThat(index.targetsFor(SVC, "ns-b")).containsExactlyInAnyOrder(b, all);
    assertThat(index.targetsFor(SVC, "ns-a")).containsExactly(all);

    assertThat(index.covers(a, DEPLOY, "ns-a")).isTrue();
    assertThat(index.covers(a, DEPLOY, "ns-b")).isFalse();
    assertThat(index.covers(a, SVC, "ns-a")).isFalse();
    assertThat(index.covers(all, SVC, "anything")).isTrue();
  }

  @Test
  void aClusterScopedObjectConcernsEveryTargetReadingItsType() {
    index.putScope(a, Set.of(DEPLOY), Set.of("ns-a"));
    index.putScope(b, Set.of(SVC), Set.of());
    assertThat(index.targetsFor(DEPLOY, null)).containsExactly(a);
    assertThat(index.covers(a, DEPLOY, null)).isTrue();
    assertThat(index.covers(b, DEPLOY, null)).isFalse();
  }

  @Test
  void aNewScopeReplacesTheOldOneAndRemoveForgetsTheTarget() {
    index.putScope(a, Set.of(DEPLOY), Set.of("ns-a"));
    index.putScope(a, Set.of(DEPLOY), Set.of("ns-b"));
    assertThat(index.targetsFor(DEPLOY, "ns-a")).isEmpty();
    assertThat(index.targetsFor(DEPLOY, "ns-b")).containsExactly(a);
    index.putRefs(a.target(), "p", List.of("s"));
    index.remove(a.target());
    assertThat(index.targetsFor(DEPLOY, "ns-b")).isEmpty();
    assertThat(index.covers(a, DEPLOY, "ns-b")).isFalse();
    assertThat(index.referencingProfile("p")).isEmpty();
    assertThat(index.referencingSink("s")).isEmpty();
  }

  @Test
  void profileAndSinkReferencesFollowTheLatestSpec() {
    index.putRefs(a.target(), "p1", List.of("s1", "s2"));
    index.putRefs(b.target(), "p1", List.of("s2"));
    assertThat(index.referencingProfile("p1")).containsExactlyInAnyOrder(a.target(), b.target());
    assertThat(index.referencingSink("s1")).containsExactly(a.target());
    assertThat(index.referencingSink("s2")).containsExactlyInAnyOrder(a.target(), b.target());

    index.putRefs(a.target(), "p2", List.of("s3"));
    assertThat(index.referencingProfile("p1")).containsExactly(b.target());
    assertThat(index.referencingProfile("p2")).containsExactly(a.target());
    assertThat(index.referencingSink("s1")).isEmpty();
    assertThat(index.referencingSink("s3")).containsExactly(a.target());
  }
}

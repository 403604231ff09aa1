package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.CompiledProfile;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Lease planning alone: what is opened and closed, in which order, and what is indexed. */
class LeasePlanTest {

  private final List<String> log = new ArrayList<>();
  private final TargetIndex index = new TargetIndex();
  private final LeasePlan plan = new LeasePlan((request, listener) -> {
    log.add("open " + request.namespaces());
    return new EmptyLease(request, new LeaseStatus(request.type(), true, true, List.of()),
        () -> log.add("close " + request.namespaces()));
  }, index, new RequestedProjections());
  private final LeaseListener listener = new LeaseListener() {
    @Override
    public void onEvent(ResourceEvent event) {}
  };
  private final TargetRuntime rt = new TargetRuntime(TargetRuntime.Definition.of(new TargetSpec(
      new TargetId("ns", "t"), 1, "p", TargetScope.everything(), List.of(), false)));
  private final CompiledProfile profile = ProfileCompiler.compile("p", new ProfileSpec(List.of(
      new ResourceRule("", "v1", "ConfigMap", List.of(FieldRule.of("a", ".data.a")), List.of(),
          List.of(), List.of(), false, false))));

  @Test
  void aChangedScopeOpensTheNewLeaseBeforeClosingTheOldAndIndexesIt() {
    plan.apply(rt, profile, LeasePlan.types(profile),
        new NamespaceScope.NamespaceSet(false, Set.of("a")), listener);
    plan.apply(rt, profile, LeasePlan.types(profile),
        new NamespaceScope.NamespaceSet(false, Set.of("a")), listener);
    plan.apply(rt, profile, LeasePlan.types(profile),
        new NamespaceScope.NamespaceSet(false, Set.of("b")), listener);
    assertThat(log).containsExactly("open [a]", "open [b]", "close [a]");
    assertThat(index.covers(rt.unit, TargetReconcilerTest.CM, "b")).isTrue();
    assertThat(index.covers(rt.unit, TargetReconcilerTest.CM, "a")).isFalse();

    plan.apply(rt, profile, LeasePlan.types(profile),
        new NamespaceScope.NamespaceSet(false, Set.of()), listener);
    assertThat(log).last().isEqualTo("close [b]");
    assertThat(rt.leases).isEmpty();
    assertThat(index.covers(rt.unit, TargetReconcilerTest.CM, "b")).isFalse();
  }
}

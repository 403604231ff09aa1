package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.informers.ApiDiscovery.TypeInfo;
import io.kollect.informers.LeaseStatus.Skipped;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The granularity rule, without a cluster: the access answers are a table. */
class ScopePlannerTest {

  private static final TypeInfo NAMESPACED = new TypeInfo(true, "configmaps", true, null);
  private static final TypeInfo CLUSTER_SCOPED = new TypeInfo(true, "namespaces", false, null);

  /** Allows what its sets say; counts the questions. */
  private static final class Answers implements ScopePlanner.Access {
    final boolean clusterWide;
    final Set<String> forbidden;
    final List<String> namespaces;
    final List<String> asked = new ArrayList<>();

    Answers(boolean clusterWide, Set<String> forbidden, List<String> namespaces) {
      this.clusterWide = clusterWide;
      this.forbidden = forbidden;
      this.namespaces = namespaces;
    }

    @Override
    public AccessReview.Decision listWatch(String namespace) {
      asked.add(namespace == null ? "*" : namespace);
      boolean allowed = namespace == null ? clusterWide : !forbidden.contains(namespace);
      return new AccessReview.Decision(allowed, allowed ? null : "list configmaps in " + namespace + " is forbidden");
    }

    @Override
    public Optional<? extends Collection<String>> namespaceNames() {
      return Optional.ofNullable(namespaces);
    }
  }

  private static List<LeaseRequest> tenants(int count) {
    return IntStream.range(0, count).mapToObj(i -> new LeaseRequest(Fixtures.CONFIG_MAP,
        Set.of("tenant-" + i), null, Set.of(), List.of(List.of("data")))).toList();
  }

  @Test
  void namespacesUpToTheThresholdGetOneInformerEach() {
    ScopePlanner.Plan plan = ScopePlanner.plan(tenants(8), NAMESPACED,
        new Answers(true, Set.of(), null), 8);
    assertThat(plan.scopes()).hasSize(8).allMatch(s -> s.startsWith("tenant-"));
    assertThat(plan.skipped()).isEmpty();
  }

  @Test
  void moreNamespacesThanTheThresholdShareOneClusterWideInformer() {
    Answers answers = new Answers(true, Set.of(), null);
    ScopePlanner.Plan plan = ScopePlanner.plan(tenants(1000), NAMESPACED, answers, 8);
    assertThat(plan.scopes()).containsExactly(ScopePlanner.ALL);
    // one access review, not one per tenant
    assertThat(answers.asked).containsExactly("*");
  }

  @Test
  void aLeaseOnAllNamespacesMakesItClusterWideWhateverTheThreshold() {
    List<LeaseRequest> leases = new ArrayList<>(tenants(1));
    leases.add(LeaseRequest.all(Fixtures.CONFIG_MAP));
    assertThat(ScopePlanner.plan(leases, NAMESPACED, new Answers(true, Set.of(), null), 8).scopes())
        .containsExactly(ScopePlanner.ALL);
  }

  @Test
  void manyNamespacesWithClusterWideForbiddenFallBackToOneInformerPerAllowedNamespace() {
    ScopePlanner.Plan plan = ScopePlanner.plan(tenants(20), NAMESPACED,
        new Answers(false, Set.of("tenant-3"), null), 8);
    assertThat(plan.scopes()).hasSize(19).doesNotContain("tenant-3", ScopePlanner.ALL);
    // tenants named their namespaces: a forbidden cluster-wide scope is nobody's to report
    assertThat(plan.skipped()).extracting(Skipped::namespace).containsExactly("tenant-3");
  }

  @Test
  void allNamespacesWithClusterWideForbiddenReadsEveryListableNamespace() {
    ScopePlanner.Plan plan = ScopePlanner.plan(List.of(LeaseRequest.all(Fixtures.CONFIG_MAP)),
        NAMESPACED, new Answers(false, Set.of("b"), List.of("a", "b", "c")), 8);
    assertThat(plan.scopes()).containsExactly("a", "c");
    assertThat(plan.skipped()).extracting(Skipped::namespace).containsExactly("b");

    ScopePlanner.Plan blind = ScopePlanner.plan(List.of(LeaseRequest.all(Fixtures.CONFIG_MAP)),
        NAMESPACED, new Answers(false, Set.of(), null), 8);
    assertThat(blind.scopes()).isEmpty();
    assertThat(blind.skipped()).extracting(Skipped::namespace).containsExactly("*");
  }

  @Test
  void aClusterScopedTypeIsClusterWideOrForbidden() {
    List<LeaseRequest> leases = List.of(new LeaseRequest(new ResourceType("", "v1", "Namespace"),
        Set.of("x"), null, Set.of(), null));
    assertThat(ScopePlanner.plan(leases, CLUSTER_SCOPED, new Answers(true, Set.of(), null), 8)
        .scopes()).containsExactly(ScopePlanner.ALL);
    ScopePlanner.Plan forbidden = ScopePlanner.plan(leases, CLUSTER_SCOPED,
        new Answers(false, Set.of(), null), 8);
    assertThat(forbidden.scopes()).isEmpty();
    assertThat(forbidden.skipped()).extracting(Skipped::namespace).containsExactly("*");
  }

  @Test
  void theProjectionIsTheUnionOfPathsOrTheWholeObjectWhenAnyLeaseReadsIt() {
    LeaseRequest a = new LeaseRequest(Fixtures.CONFIG_MAP, Set.of("n"), null, Set.of(),
        List.of(List.of("data", "a")));
    LeaseRequest b = new LeaseRequest(Fixtures.CONFIG_MAP, Set.of("n"), null, Set.of(),
        List.of(List.of("data", "b")));
    ObjectProjection union = ScopePlanner.plan(List.of(a, b), NAMESPACED,
        new Answers(true, Set.of(), null), 8).projection();
    assertThat(union.covers(a.keepPaths())).isTrue();
    assertThat(union.covers(b.keepPaths())).isTrue();
    assertThat(union.covers(List.of(List.of("data")))).isFalse();
    assertThat(ScopePlanner.plan(List.of(a, LeaseRequest.all(Fixtures.CONFIG_MAP)), NAMESPACED,
        new Answers(true, Set.of(), null), 8).projection().isFull()).isTrue();
  }
}

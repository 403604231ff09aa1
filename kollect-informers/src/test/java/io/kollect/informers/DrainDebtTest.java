package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.kollect.informers.DrainDebt.Owed;
import io.kollect.informers.DrainDebt.Successor;
import io.kollect.informers.ResourceEvent.Kind;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DrainDebtTest {

  private static final int ALL_OF_IT = Integer.MAX_VALUE;

  private static GenericKubernetesResource cm(String namespace, String name, String rv) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion("v1");
    r.setKind("ConfigMap");
    r.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
        .withResourceVersion(rv).build());
    r.setAdditionalProperties(new java.util.LinkedHashMap<>(Map.of("data", Map.of("a", rv))));
    return r;
  }

  private static Successor clusterWide(TrimmingItemStore store, String activeFrom) {
    return new Successor(ScopePlanner.ALL, store, activeFrom);
  }

  private static TrimmingItemStore store(GenericKubernetesResource... objects) {
    TrimmingItemStore store = new TrimmingItemStore(ObjectProjection.full());
    for (GenericKubernetesResource o : objects) {
      store.put(store.getKey(o), o);
    }
    return store;
  }

  @Test
  void aPredecessorHoldingEveryStateItsSuccessorHadReachedOwesNothing() {
    TrimmingItemStore predecessor = store(cm("a", "x", "10"), cm("a", "y", "12"));
    // the successor has since moved y on by itself, and has an object of another namespace
    TrimmingItemStore successor = store(cm("a", "x", "10"), cm("a", "y", "31"), cm("b", "z", "5"));

    DrainDebt debt = DrainDebt.of(predecessor, "a",
        Map.of(ScopePlanner.ALL, clusterWide(successor, "20")), ALL_OF_IT);

    assertThat(debt.owed()).isEmpty();
    assertThat(debt.paid()).isTrue();
  }

  @Test
  void whatTheSuccessorListedAndThePredecessorHasNotReachedIsOwedAsItsChange() {
    TrimmingItemStore predecessor = store(cm("a", "x", "10"), cm("a", "gone", "8"),
        cm("a", "late", "25"));
    TrimmingItemStore successor = store(cm("a", "x", "15"), cm("a", "new", "18"),
        cm("a", "mine", "22"), cm("b", "other", "3"));

    DrainDebt debt = DrainDebt.of(predecessor, "a",
        Map.of(ScopePlanner.ALL, clusterWide(successor, "20")), ALL_OF_IT);

    assertThat(debt.paid()).isFalse();
    assertThat(debt.owed()).extracting(o -> o.kind() + " " + o.state().getMetadata().getName()
            + "@" + o.state().getMetadata().getResourceVersion())
        // "mine" (22) and "late" (25) are past the switch: the successor's own to announce
        .containsExactlyInAnyOrder("UPDATED x@15", "ADDED new@18", "DELETED gone@8");
    Owed updated = debt.owed().stream().filter(o -> o.kind() == Kind.UPDATED).findFirst()
        .orElseThrow();
    assertThat(updated.previous().getMetadata().getResourceVersion()).isEqualTo("10");
    assertThat(debt.owed()).allMatch(o -> o.successorScope().equals(ScopePlanner.ALL));
    // asked only whether it owes anything: the first change answers
    assertThat(DrainDebt.of(predecessor, "a",
        Map.of(ScopePlanner.ALL, clusterWide(successor, "20")), 1).owed()).hasSize(1);
  }

  @Test
  void aClusterWidePredecessorOwesEachNamespaceToTheSuccessorThatHoldsIt() {
    TrimmingItemStore predecessor = store(cm("a", "x", "10"), cm("c", "dropped", "4"));
    TrimmingItemStore forA = store(cm("a", "x", "10"), cm("a", "y", "11"));
    TrimmingItemStore forB = store(cm("b", "z", "12"));

    DrainDebt debt = DrainDebt.of(predecessor, ScopePlanner.ALL,
        Map.of("a", new Successor("a", forA, "40"), "b", new Successor("b", forB, "40")),
        ALL_OF_IT);

    // namespace c is no scope's any more: nothing is owed for it
    assertThat(debt.owed()).extracting(o -> o.successorScope() + " " + o.kind() + " "
            + o.state().getMetadata().getName())
        .containsExactlyInAnyOrder("a ADDED y", "b ADDED z");
  }
}

package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kollect.informers.ResourceEvent.Kind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Routing one change to the leases it concerns, as each lease sees it; no cluster. */
class EventRouterTest {

  private final EventRouter router = new EventRouter(Fixtures.CONFIG_MAP);

  private static LeaseHandle lease(Set<String> namespaces, Map<String, String> selector,
      RecordingListener listener) {
    LeaseRequest request = new LeaseRequest(Fixtures.CONFIG_MAP, namespaces,
        selector == null ? null : new LabelSelectorBuilder().withMatchLabels(selector).build(),
        Set.of(), null);
    // the type state is only needed to read or close: routing never touches it
    return new LeaseHandle(null, request, listener,
        LabelSelectorMatcher.compile(request.labelSelector(), "labelSelector"));
  }

  private static GenericKubernetesResource cm(String namespace, String name, String rv,
      Map<String, String> labels) {
    return new GenericKubernetesResourceBuilder().withApiVersion("v1").withKind("ConfigMap")
        .withNewMetadata().withNamespace(namespace).withName(name).withResourceVersion(rv)
        .withLabels(labels).endMetadata().build();
  }

  @Test
  void anEventReachesOnlyTheLeasesOfItsNamespaceAndThoseOfAllNamespaces() {
    RecordingListener a = new RecordingListener();
    RecordingListener b = new RecordingListener();
    RecordingListener all = new RecordingListener();
    router.leases(List.of(lease(Set.of("a"), null, a), lease(Set.of("b"), null, b),
        lease(Set.of(), null, all)));
    GenericKubernetesResource obj = cm("a", "x", "1", Map.of());
    router.route(Kind.ADDED, obj, null, l -> true, null);
    assertThat(a.events).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(Kind.ADDED);
      assertThat(e.object()).isSameAs(obj);
    });
    assertThat(b.events).isEmpty();
    assertThat(all.events).hasSize(1);
  }

  @Test
  void leavingALeasesSelectorIsADeleteForItAndComingBackAnAdd() {
    RecordingListener frontend = new RecordingListener();
    RecordingListener everything = new RecordingListener();
    router.leases(List.of(lease(Set.of("a"), Map.of("tier", "frontend"), frontend),
        lease(Set.of("a"), null, everything)));
    GenericKubernetesResource front = cm("a", "x", "1", Map.of("tier", "frontend"));
    GenericKubernetesResource back = cm("a", "x", "2", Map.of("tier", "backend"));
    GenericKubernetesResource frontAgain = cm("a", "x", "3", Map.of("tier", "frontend"));
    router.route(Kind.UPDATED, back, front, l -> true, null);
    router.route(Kind.UPDATED, frontAgain, back, l -> true, null);
    assertThat(frontend.events).extracting(ResourceEvent::kind).containsExactly(Kind.DELETED, Kind.ADDED);
    assertThat(frontend.events.get(0).object()).isSameAs(back);
    assertThat(everything.events).extracting(ResourceEvent::kind).containsExactly(Kind.UPDATED, Kind.UPDATED);
  }

  @Test
  void aSourceThatDoesNotSpeakForALeaseIsNotHeardByIt() {
    RecordingListener narrow = new RecordingListener();
    LeaseHandle l = lease(Set.of("a"), null, narrow);
    router.leases(List.of(l));
    router.route(Kind.ADDED, cm("a", "x", "1", Map.of()), null, lease -> lease != l, null);
    assertThat(narrow.events).isEmpty();
  }

  @Test
  void duringASwitchTheSameVersionIsAnnouncedOnceWhicheverInformerDeliversIt() {
    RecordingListener listener = new RecordingListener();
    router.leases(List.of(lease(Set.of("a"), null, listener)));
    Handover handover = new Handover();
    GenericKubernetesResource v2 = cm("a", "x", "2", Map.of());
    router.route(Kind.UPDATED, v2, cm("a", "x", "1", Map.of()), l -> true, handover);
    router.route(Kind.UPDATED, v2, cm("a", "x", "1", Map.of()), l -> true, handover);
    router.route(Kind.DELETED, cm("a", "x", "3", Map.of()), null, l -> true, handover);
    router.route(Kind.DELETED, cm("a", "x", "3", Map.of()), null, l -> true, handover);
    assertThat(listener.events).extracting(ResourceEvent::kind).containsExactly(Kind.UPDATED, Kind.DELETED);
  }

  @Test
  void duringASwitchAVersionTheSlowerInformerHandsOutAfterTheFasterMovedOnIsNotAnnouncedAgain() {
    RecordingListener listener = new RecordingListener();
    router.leases(List.of(lease(Set.of("a"), null, listener)));
    Handover handover = new Handover();
    // the faster watch delivers versions 2 and 3, then the slower one delivers 2 and 3 as well
    for (int round = 0; round < 2; round++) {
      router.route(Kind.UPDATED, cm("a", "x", "2", Map.of()), cm("a", "x", "1", Map.of()),
          l -> true, handover);
      router.route(Kind.UPDATED, cm("a", "x", "3", Map.of()), cm("a", "x", "2", Map.of()),
          l -> true, handover);
    }
    assertThat(listener.events).extracting(e -> e.object().getMetadata().getResourceVersion())
        .containsExactly("2", "3");
  }

  @Test
  void aSuccessorsListedAddOfAnObjectThePredecessorToldOfIsAnUpdateWhenNewerAndTheLaggingWatchsCopyIsNotRepeated() {
    RecordingListener told = new RecordingListener();
    RecordingListener other = new RecordingListener();
    LeaseHandle toldLease = lease(Set.of("a"), null, told);
    router.leases(List.of(toldLease, lease(Set.of("a"), null, other)));
    Handover handover = new Handover();
    GenericKubernetesResource v1 = cm("a", "x", "1", Map.of());
    GenericKubernetesResource v2 = cm("a", "x", "2", Map.of());
    // the successor listed version 2 while the predecessor still holds 1; its watch hands out 2 later
    router.routeAddedKnown(v2, v1, l -> l == toldLease, l -> true, handover);
    router.route(Kind.UPDATED, v2, v1, l -> l == toldLease, handover);
    assertThat(told.events).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(Kind.UPDATED);
      assertThat(e.object()).isSameAs(v2);
    });
    assertThat(other.events).extracting(ResourceEvent::kind).containsExactly(Kind.ADDED);
  }

  @Test
  void aSuccessorsListedAddAtAVersionThePredecessorHoldsOrPassedIsNotAnnouncedToItsLeases() {
    RecordingListener told = new RecordingListener();
    LeaseHandle toldLease = lease(Set.of("a"), null, told);
    router.leases(List.of(toldLease));
    Handover handover = new Handover();
    router.routeAddedKnown(cm("a", "x", "2", Map.of()), cm("a", "x", "2", Map.of()),
        l -> l == toldLease, l -> true, handover);
    router.routeAddedKnown(cm("a", "x", "2", Map.of()), cm("a", "x", "3", Map.of()),
        l -> l == toldLease, l -> true, handover);
    assertThat(told.events).isEmpty();
  }

  @Test
  void aSuccessorsListedAddThatEntersALeasesSelectorIsAnAddForIt() {
    RecordingListener frontend = new RecordingListener();
    LeaseHandle l = lease(Set.of("a"), Map.of("tier", "frontend"), frontend);
    router.leases(List.of(l));
    GenericKubernetesResource front = cm("a", "x", "2", Map.of("tier", "frontend"));
    router.routeAddedKnown(front, cm("a", "x", "1", Map.of("tier", "backend")), lease -> true,
        lease -> true, new Handover());
    assertThat(frontend.events).singleElement()
        .satisfies(e -> assertThat(e.kind()).isEqualTo(Kind.ADDED));
  }

  @Test
  void duringASwitchAReadDoesNotGoBehindAChangeThePredecessorAnnouncedBeforeTheSuccessorsCacheHasIt() {
    RecordingListener listener = new RecordingListener();
    LeaseHandle l = lease(Set.of("a"), null, listener);
    router.leases(List.of(l));
    Handover handover = new Handover();
    GenericKubernetesResource v1 = cm("a", "x", "1", Map.of());
    GenericKubernetesResource v2 = cm("a", "x", "2", Map.of());
    // the draining predecessor delivers version 2; the successor's cache (which answers reads)
    // still holds version 1, and its own announcement of 2 will be suppressed as already told
    router.route(Kind.UPDATED, v2, v1, l2 -> true, handover);
    router.route(Kind.UPDATED, v2, v1, l2 -> true, handover);
    assertThat(listener.events).hasSize(1);
    assertThat(handover.current(l, "a/x", v1)).isSameAs(v2);
    // once the successor's cache moved past what was told, the cache answers
    GenericKubernetesResource v3 = cm("a", "x", "3", Map.of());
    assertThat(handover.current(l, "a/x", v3)).isSameAs(v3);
    assertThat(handover.current(l, "a/x", v2)).isSameAs(v2);
    // a change the successor's cache has not received at all yet is still read
    assertThat(handover.current(l, "a/x", null)).isSameAs(v2);
    // keys nothing was told of read from the cache
    assertThat(handover.current(l, "a/y", v1)).isSameAs(v1);
  }

  @Test
  void duringASwitchAnObjectThePredecessorAnnouncedGoneIsNotReadFromALaggingCache() {
    RecordingListener listener = new RecordingListener();
    LeaseHandle l = lease(Set.of("a"), null, listener);
    router.leases(List.of(l));
    Handover handover = new Handover();
    router.route(Kind.DELETED, cm("a", "x", "7", Map.of()), null, l2 -> true, handover);
    assertThat(handover.current(l, "a/x", cm("a", "x", "6", Map.of()))).isNull();
    assertThat(handover.toldKeys(l)).containsExactly("a/x");
  }

  @Test
  void resourceVersionsCompareAsIntegersOfAnyLengthAndOthersAreNeverNewer() {
    assertThat(Handover.newer("10", "9")).isTrue();
    assertThat(Handover.newer("9", "10")).isFalse();
    assertThat(Handover.newer("123456789012345678901234567890", "99")).isTrue();
    assertThat(Handover.newer("5", "5")).isFalse();
    assertThat(Handover.newer("b", "a")).isFalse();
    assertThat(Handover.newer("010", "9")).isFalse();
    assertThat(Handover.newer("3", null)).isFalse();
  }
}

package io.kollect.informers;

import static io.kollect.informers.Fixtures.CONFIG_MAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.informers.ResourceEvent.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The informer granularity rule (cluster-wide beyond the threshold) on a real API server. */
class GranularityIT {

  private static final List<List<String>> DATA = List.of(List.of("data"));
  @RegisterExtension static final PerClassApiServer api = new PerClassApiServer();

  private static void configMap(String namespace, String name) {
    api.configMap(namespace, name, Map.of("a", "1"));
  }

  private static List<String> namespaces(String prefix, int count, int objectsEach) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String ns = prefix + "-" + i;
      api.createNamespace(ns);
      for (int j = 0; j < objectsEach; j++) {
        configMap(ns, "cm-" + j);
      }
      out.add(ns);
    }
    return out;
  }

  private static LeaseRequest tenant(String namespace) {
    return new LeaseRequest(CONFIG_MAP, Set.of(namespace), null, Set.of(), DATA);
  }

  private static List<String> names(InformerLease lease) {
    return lease.list().stream().map(o -> o.getMetadata().getNamespace() + "/" + o.getMetadata().getName())
        .sorted().toList();
  }

  @Test
  void twentyTenantLeasesShareOneClusterWideInformerAndEachReadsAndHearsOnlyItsNamespace() {
    List<String> tenants = namespaces("tenant", 20, 2);
    long watches = api.countRequests("watch", "configmaps", null, null);
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults())) {
      List<RecordingListener> listeners = new ArrayList<>();
      List<InformerLease> leases = new ArrayList<>();
      for (String ns : tenants) {
        RecordingListener l = new RecordingListener();
        listeners.add(l);
        leases.add(registry.lease(tenant(ns), l));
      }
      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(registry.informerCount()).isEqualTo(1);
      for (int i = 0; i < tenants.size(); i++) {
        assertThat(names(leases.get(i))).containsExactly(tenants.get(i) + "/cm-0", tenants.get(i) + "/cm-1");
      }
      configMap("tenant-5", "late");
      await().until(() -> listeners.get(5).saw(Kind.ADDED, "tenant-5", "late"));
      for (int i = 0; i < tenants.size(); i++) {
        int index = i;
        assertThat(listeners.get(i).events).allMatch(e -> e.namespace().equals(tenants.get(index)));
      }
      await().untilAsserted(() ->
          assertThat(api.countRequests("watch", "configmaps", null, null) - watches).isEqualTo(1));
    }
  }

  @Test
  void threeNamespacesGetOneInformerEachAndNoClusterWideList() {
    List<String> few = namespaces("few", 3, 1);
    long clusterLists = api.countRequests("list", "configmaps", null, null);
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults())) {
      List<InformerLease> leases = few.stream().map(ns -> registry.lease(tenant(ns),
          new RecordingListener())).toList();
      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(registry.informerCount()).isEqualTo(3);
      assertThat(api.countRequests("list", "configmaps", null, null)).isEqualTo(clusterLists);
      assertThat(names(leases.get(1))).containsExactly("few-1/cm-0");
    }
  }

  @Test
  void whenClusterWideListIsForbiddenTwentyNamespacesGetOneInformerEach() {
    List<String> allowed = namespaces("rbac", 20, 1);
    api.admin.rbac().clusterRoles().resource(new ClusterRoleBuilder()
        .withNewMetadata().withName("granularity-cm-reader").endMetadata()
        .withRules(new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
            .withVerbs("get", "list", "watch").build())
        .build()).create();
    for (String ns : allowed) {
      api.admin.rbac().roleBindings().inNamespace(ns).resource(new RoleBindingBuilder()
          .withNewMetadata().withName("cm-reader").withNamespace(ns).endMetadata()
          .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "granularity-cm-reader")
          .withSubjects(new SubjectBuilder().withKind("User").withName(PerClassApiServer.READER_USER)
              .withApiGroup("rbac.authorization.k8s.io").build())
          .build()).create();
    }
    try (KubernetesClient reader = api.reader();
        InformerRegistry registry = new InformerRegistry(reader, InformerOptions.defaults())) {
      List<InformerLease> leases = allowed.stream().map(ns -> registry.lease(tenant(ns),
          new RecordingListener())).toList();
      await().atMost(Duration.ofSeconds(60)).until(registry::allSynced);
      assertThat(registry.informerCount()).isEqualTo(20);
      assertThat(leases).allSatisfy(l -> assertThat(l.status().skipped()).isEmpty());
      assertThat(names(leases.get(7))).containsExactly("rbac-7/cm-0");
    }
  }

  @Test
  void growingFromThreeToNineNamespacesSwitchesToOneInformerWithoutLosingOrRepeatingEvents()
      throws Exception {
    List<String> grow = namespaces("grow", 9, 5);
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults())) {
      Map<String, RecordingListener> listeners = new java.util.LinkedHashMap<>();
      for (String ns : grow.subList(0, 3)) {
        listeners.put(ns, new RecordingListener());
        registry.lease(tenant(ns), listeners.get(ns));
      }
      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(registry.informerCount()).isEqualTo(3);

      // keep creating and changing objects in the first three namespaces across the switch
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicInteger written = new AtomicInteger();
      Thread writer = new Thread(() -> {
        while (writing.get()) {
          int n = written.get();
          configMap(grow.get(n % 3), "w-" + n);
          api.admin.configMaps().inNamespace(grow.get(n % 3)).withName("cm-0")
              .edit(cm -> { cm.getData().put("a", String.valueOf(n)); return cm; });
          written.incrementAndGet();
        }
      });
      writer.start();
      await().until(() -> written.get() >= 5);
      List<InformerLease> added = new ArrayList<>();
      for (String ns : grow.subList(3, 9)) {
        listeners.put(ns, new RecordingListener());
        added.add(registry.lease(tenant(ns), listeners.get(ns)));
      }
      // the switch is done when the three per-namespace informers have drained and stopped
      await().atMost(Duration.ofSeconds(30)).until(() -> registry.allSynced() && registry.informerCount() == 1);
      int atSwitch = written.get();
      await().until(() -> written.get() >= atSwitch + 5);
      writing.set(false);
      writer.join();

      for (int n = 0; n < written.get(); n++) {
        String ns = grow.get(n % 3);
        String name = "w-" + n;
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.get(ns).saw(Kind.ADDED, ns, name));
      }
      for (int n = 0; n < 3; n++) {
        String ns = grow.get(n);
        RecordingListener l = listeners.get(ns);
        // no object that stayed was deleted, none announced twice, every change heard once
        assertThat(l.events).noneMatch(e -> e.kind() == Kind.DELETED);
        Map<String, Long> adds = l.events.stream().filter(e -> e.kind() == Kind.ADDED)
            .collect(Collectors.groupingBy(ResourceEvent::name, Collectors.counting()));
        assertThat(adds).allSatisfy((name, count) -> assertThat(count).as(ns + "/" + name).isEqualTo(1));
        Map<String, Long> versions = l.events.stream()
            .filter(e -> e.kind() == Kind.UPDATED && e.name().equals("cm-0"))
            .collect(Collectors.groupingBy(e -> e.object().getMetadata().getResourceVersion(),
                Collectors.counting()));
        assertThat(versions).allSatisfy((rv, count) -> assertThat(count).as("cm-0 at " + rv).isEqualTo(1));
        GenericKubernetesResource last = api.admin.genericKubernetesResources("v1", "ConfigMap")
            .inNamespace(ns).withName("cm-0").get();
        await().until(() -> l.events.stream().anyMatch(e -> e.name().equals("cm-0")
            && e.object().getMetadata().getResourceVersion().equals(last.getMetadata().getResourceVersion())));
      }
      for (InformerLease lease : added) {
        String ns = lease.request().namespaces().iterator().next();
        assertThat(names(lease)).hasSize(5);
        assertThat(listeners.get(ns).events).hasSize(5).allMatch(e -> e.kind() == Kind.ADDED);
      }
    }
  }
  @Test
  void aReplacedInformerHeldPastTwoSecondsStillHandsOutTheChangesItsSuccessorListed()
      throws Exception {
    List<String> held = namespaces("held", 9, 1);
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults())) {
      RecordingListener first = new RecordingListener();
      CountDownLatch holding = new CountDownLatch(1);
      // holds the thread of the informer serving held-0 on one event: a starved or slow consumer
      LeaseListener slow = new LeaseListener() {
        @Override
        public void onEvent(ResourceEvent event) {
          first.onEvent(event);
          if (event.kind() == Kind.ADDED && event.name().equals("hold")) {
            holding.countDown();
            // past the drain's 2 s minimum, until the switch is over or 6 s have passed: a drain
            // that ends on time alone stops the informer with the changes below still queued
            long end = System.nanoTime() + Duration.ofSeconds(6).toNanos();
            while (registry.informerCount() != 1 && System.nanoTime() < end) {
              try {
                Thread.sleep(20);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              }
            }
          }
        }

        @Override
        public void onStatusChange(LeaseStatus status) {
          first.onStatusChange(status);
        }
      };
      registry.lease(tenant(held.get(0)), slow);
      for (String ns : held.subList(1, 3)) {
        registry.lease(tenant(ns), new RecordingListener());
      }
      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(registry.informerCount()).isEqualTo(3);

      configMap(held.get(0), "hold");
      assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
      // queued behind the held event on the per-namespace informer; the successor lists them
      for (int n = 0; n < 5; n++) {
        configMap(held.get(0), "queued-" + n);
      }
      for (String ns : held.subList(3, 9)) {
        registry.lease(tenant(ns), new RecordingListener());
      }
      await().atMost(Duration.ofSeconds(45))
          .until(() -> registry.allSynced() && registry.informerCount() == 1);

      for (int n = 0; n < 5; n++) {
        String name = "queued-" + n;
        await().atMost(Duration.ofSeconds(10)).until(() -> first.saw(Kind.ADDED, held.get(0), name));
      }
      assertThat(first.count(Kind.ADDED, held.get(0), "hold")).isEqualTo(1);
      for (int n = 0; n < 5; n++) {
        assertThat(first.count(Kind.ADDED, held.get(0), "queued-" + n)).isEqualTo(1);
      }
      assertThat(first.events).noneMatch(e -> e.kind() == Kind.DELETED);
    }
  }

  /**
   * A replaced informer whose watch went silent never catches up with what its successor listed:
   * at the drain's limit what it owes is announced from the successor's cache, each change once,
   * and the informer stops. Nothing else can tell the lease of the delete: the predecessor hears
   * nothing, and the successor's list never held the object.
   */
  @Test
  void aReplacedInformerWhoseWatchWentSilentHasWhatItOwesAnnouncedFromItsSuccessorAtTheLimit()
      throws Exception {
    List<String> paid = namespaces("paid", 9, 2);
    String ns = paid.get(0);
    try (ApiServerProxy proxy = ApiServerProxy.forwarding(api.admin, "configmaps");
        KubernetesClient client = proxy.client(api.admin);
        InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults())) {
      RecordingListener first = new RecordingListener();
      Map<String, Instant> arrived = new ConcurrentHashMap<>();
      registry.lease(tenant(ns), new LeaseListener() {
        @Override
        public void onEvent(ResourceEvent event) {
          arrived.putIfAbsent(event.kind() + " " + event.name(), Instant.now());
          first.onEvent(event);
        }

        @Override
        public void onStatusChange(LeaseStatus status) {
          first.onStatusChange(status);
        }
      });
      for (String other : paid.subList(1, 3)) {
        registry.lease(tenant(other), new RecordingListener());
      }
      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(registry.informerCount()).isEqualTo(3);
      configMap(ns, "probe");
      await().atMost(Duration.ofSeconds(30)).until(() -> first.saw(Kind.ADDED, ns, "probe"));

      // the per-namespace informer's watch goes silent (its liveness window, 60 s, is longer
      // than the drain's limit, so it is not replaced in time); then the namespace changes
      proxy.silenceWatchesOf("/namespaces/" + ns + "/configmaps");
      for (int n = 0; n < 5; n++) {
        configMap(ns, "queued-" + n);
      }
      String edited = api.admin.configMaps().inNamespace(ns).withName("cm-0")
          .edit(cm -> { cm.getData().put("a", "2"); return cm; }).getMetadata().getResourceVersion();
      api.admin.configMaps().inNamespace(ns).withName("cm-1").delete();

      Instant asked = Instant.now();
      for (String other : paid.subList(3, 9)) {
        registry.lease(tenant(other), new RecordingListener());
      }
      await().atMost(TypeState.DRAIN_LIMIT.plusSeconds(30))
          .until(() -> registry.allSynced() && registry.informerCount() == 1);

      List<String> owed = new ArrayList<>(List.of("UPDATED cm-0", "DELETED cm-1"));
      for (int n = 0; n < 5; n++) {
        owed.add("ADDED queued-" + n);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> arrived.keySet().containsAll(owed));
      // The delete can come from nothing but the debt: the silent watch never delivers it and
      // the successor's list no longer holds the object. It is announced at the limit, which
      // runs from the switch (after the successor's list), and not before: until then the
      // predecessor may still catch up and announce it itself. The adds and the update may come
      // earlier, from the successor's own first-list events when fabric8 hands those out after
      // it took over; either way each is told once (below).
      assertThat(arrived.get("DELETED cm-1")).as("DELETED cm-1")
          .isAfterOrEqualTo(asked.plus(TypeState.DRAIN_LIMIT));
      for (int n = 0; n < 5; n++) {
        assertThat(first.count(Kind.ADDED, ns, "queued-" + n)).isEqualTo(1);
      }
      assertThat(first.events).filteredOn(e -> e.kind() == Kind.UPDATED)
          .singleElement().satisfies(e -> {
            assertThat(e.name()).isEqualTo("cm-0");
            assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo(edited);
          });
      assertThat(first.events).filteredOn(e -> e.kind() == Kind.DELETED)
          .singleElement().satisfies(e -> assertThat(e.name()).isEqualTo("cm-1"));

      // from here on the successor speaks for the namespace: a later change is heard once
      String later = api.admin.configMaps().inNamespace(ns).withName("cm-0")
          .edit(cm -> { cm.getData().put("a", "3"); return cm; }).getMetadata().getResourceVersion();
      await().atMost(Duration.ofSeconds(10)).until(() -> first.events.stream().anyMatch(e ->
          e.kind() == Kind.UPDATED && later.equals(e.object().getMetadata().getResourceVersion())));
      assertThat(first.events).filteredOn(e -> e.kind() == Kind.UPDATED).hasSize(2);
      assertThat(first.count(Kind.ADDED, ns, "probe")).isEqualTo(1);
    }
  }
}

package io.kollect.informers;

import static io.kollect.informers.Fixtures.CONFIG_MAP;
import static io.kollect.informers.Fixtures.DEPLOYMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kollect.informers.ResourceEvent.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Sharing, scope planning, events and the cache shape, against a real API server. */
class SharedInformerIT {

  @RegisterExtension static final PerClassApiServer api = new PerClassApiServer();

  private static InformerRegistry registry() {
    return new InformerRegistry(api.admin, InformerOptions.defaults()
        .withReleaseGrace(Duration.ofSeconds(1)));
  }

  private static void create(Deployment d) {
    api.admin.apps().deployments().inNamespace(d.getMetadata().getNamespace()).resource(d).create();
  }

  private static long clusterWide(String verb) {
    return api.countRequests(verb, "deployments", null, null);
  }

  @Test
  void twoLeasesShareOneInformerWithOneListAndWatchAndStopAfterGrace() {
    api.createNamespace("shared-a");
    api.createNamespace("shared-b");
    create(Fixtures.deployment("shared-a", "web", Map.of("app", "web")));
    create(Fixtures.deployment("shared-b", "db", Map.of("app", "db")));
    // counted before the baseline: this list is a cluster-wide list too
    long existing = api.admin.apps().deployments().inAnyNamespace().list().getItems().size();
    long lists = clusterWide("list");
    long watches = clusterWide("watch");

    CountingMetrics metrics = new CountingMetrics();
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults()
        .withReleaseGrace(Duration.ofSeconds(1)).withMetrics(metrics))) {
      RecordingListener webEvents = new RecordingListener();
      RecordingListener dbEvents = new RecordingListener();
      InformerLease web = registry.lease(new LeaseRequest(DEPLOYMENT, Set.of(),
          new LabelSelectorBuilder().withMatchLabels(Map.of("app", "web")).build(), Set.of(), null),
          webEvents);
      InformerLease db = registry.lease(new LeaseRequest(DEPLOYMENT, Set.of(), null,
          Set.of("db"), null), dbEvents);

      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(web.hasSynced()).isTrue();
      assertThat(webEvents.lastStatus()).isEqualTo(new LeaseStatus(DEPLOYMENT, true, true, List.of(),
          web.status().projectionVersion(), List.of()));
      assertThat(web.status().projectionVersion()).isPositive();
      assertThat(registry.informerCount()).isEqualTo(1);
      assertThat(names(web.list())).containsExactly("web");
      assertThat(names(db.list())).containsExactly("db");
      assertThat(metrics.informers.get()).isEqualTo(1);
      // events (and the cache size they report) reach handlers on fabric8's threads, after the
      // cache: they may trail the synced status
      await().untilAsserted(() -> {
        assertThat(metrics.cached.get(DEPLOYMENT)).isEqualTo(existing);
        assertThat(metrics.get(DEPLOYMENT + " event ADDED")).isEqualTo(existing);
      });
      await().untilAsserted(() -> {
        assertThat(clusterWide("list") - lists).as(() -> api.describe("list", "deployments")).isEqualTo(1);
        assertThat(clusterWide("watch") - watches).as(() -> api.describe("watch", "deployments")).isEqualTo(1);
      });

      // the cache drops managedFields and the last-applied annotation by default
      GenericKubernetesResource cached = web.list().get(0);
      assertThat(api.admin.apps().deployments().inNamespace("shared-a").withName("web").get()
          .getMetadata().getManagedFields()).isNotEmpty();
      assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
      assertThat(cached.getMetadata().getAnnotations())
          .containsKey("team.example.com/owner")
          .doesNotContainKey(ObjectProjection.LAST_APPLIED);
      assertThat(cached.getAdditionalProperties()).containsKey("spec");

      // events reach only the leases whose scope holds the object
      create(Fixtures.deployment("shared-a", "web-2", Map.of("app", "web")));
      await().until(() -> webEvents.saw(Kind.ADDED, "shared-a", "web-2"));
      api.admin.apps().deployments().inNamespace("shared-a").withName("web-2")
          .edit(d -> { d.getSpec().setReplicas(5); return d; });
      await().until(() -> webEvents.saw(Kind.UPDATED, "shared-a", "web-2"));
      api.admin.apps().deployments().inNamespace("shared-a").withName("web-2").delete();
      await().until(() -> webEvents.saw(Kind.DELETED, "shared-a", "web-2"));
      assertThat(dbEvents.events).noneMatch(e -> e.name().equals("web-2"));
      assertThat(names(web.list())).containsExactly("web");

      // released by both: still running during the grace period, stopped after it
      web.close();
      db.close();
      assertThat(web.list()).isEmpty();
      assertThat(registry.informerCount()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> registry.informerCount() == 0);
      assertThat(metrics.informers.get()).isZero();
      assertThat(metrics.cached.get(DEPLOYMENT)).isZero();
      assertThat(metrics.get(DEPLOYMENT + " event UPDATED")).isGreaterThanOrEqualTo(1);
      assertThat(metrics.get(DEPLOYMENT + " event DELETED")).isEqualTo(1);

      // a new lease starts it again: one more list and watch
      InformerLease again = registry.lease(LeaseRequest.all(DEPLOYMENT), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(again::hasSynced);
      assertThat(registry.informerCount()).isEqualTo(1);
      assertThat(names(again.list())).contains("web", "db");
      await().untilAsserted(() -> assertThat(clusterWide("list") - lists).isEqualTo(2));
    }
    assertThat(clusterWide("watch") - watches).isEqualTo(2);
  }

  @Test
  void aLeaseTakenWithinTheGracePeriodReusesTheRunningInformer() {
    api.createNamespace("grace");
    create(Fixtures.deployment("grace", "g1", Map.of()));
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults()
        .withReleaseGrace(Duration.ofSeconds(20)))) {
      InformerLease first = registry.lease(leaseIn("grace"), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(first::hasSynced);
      long lists = api.countRequests("list", "deployments", "grace", null);
      first.close();
      InformerLease second = registry.lease(leaseIn("grace"), new RecordingListener());
      await().atMost(Duration.ofSeconds(10)).until(second::hasSynced);
      assertThat(names(second.list())).containsExactly("g1");
      assertThat(registry.informerCount()).isEqualTo(1);
      assertThat(api.countRequests("list", "deployments", "grace", null)).isEqualTo(lists);
    }
  }

  @Test
  void namespaceLimitedLeasesWatchOnlyTheirNamespacesAndReplanToClusterWideWithoutLosingEvents()
      throws Exception {
    api.createNamespace("plan-a");
    api.createNamespace("plan-b");
    create(Fixtures.deployment("plan-a", "existing", Map.of()));
    long clusterLists = clusterWide("list");
    try (InformerRegistry registry = registry()) {
      RecordingListener aEvents = new RecordingListener();
      InformerLease a = registry.lease(leaseIn("plan-a"), aEvents);
      InformerLease b = registry.lease(leaseIn("plan-b"), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(registry.informerCount()).isEqualTo(2);
      assertThat(api.countRequests("list", "deployments", "plan-a", null)).isGreaterThanOrEqualTo(1);
      assertThat(clusterWide("list")).isEqualTo(clusterLists);
      assertThat(names(a.list())).containsExactly("existing");
      assertThat(b.list()).isEmpty();

      // keep writing in plan-a while a cluster-wide lease forces a switch to one informer
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicInteger written = new AtomicInteger();
      Thread writer = new Thread(() -> {
        while (writing.get()) {
          create(Fixtures.deployment("plan-a", "w-" + written.get(), Map.of()));
          written.incrementAndGet();
        }
      });
      writer.start();
      await().until(() -> written.get() >= 3);
      long existingAdds = aEvents.count(Kind.ADDED, "plan-a", "existing");
      InformerLease all = registry.lease(LeaseRequest.all(DEPLOYMENT), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(() -> all.hasSynced() && registry.informerCount() == 1);
      int before = written.get();
      await().until(() -> written.get() >= before + 3);
      writing.set(false);
      writer.join();

      for (int i = 0; i < written.get(); i++) {
        String name = "w-" + i;
        await().atMost(Duration.ofSeconds(10)).until(() -> aEvents.saw(Kind.ADDED, "plan-a", name));
      }
      // the new informer's initial list did not re-announce what lease a already knew
      assertThat(aEvents.count(Kind.ADDED, "plan-a", "existing")).isEqualTo(existingAdds);
      assertThat(names(a.list())).hasSize(written.get() + 1).contains("existing");
      assertThat(clusterWide("list")).isEqualTo(clusterLists + 1);
    }
  }

  @Test
  void aProjectedCacheKeepsOnlyRequestedPathsAndWidensWhenAWholeObjectLeaseJoins() {
    api.createNamespace("proj");
    create(Fixtures.deployment("proj", "p1", Map.of("app", "p1")));
    try (InformerRegistry registry = registry()) {
      InformerLease narrow = registry.lease(new LeaseRequest(DEPLOYMENT, Set.of("proj"), null,
          Set.of(), List.of(List.of("spec", "replicas"),
              List.of("spec", "template", "spec", "containers", "image"))), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(narrow::hasSynced);
      GenericKubernetesResource p = narrow.list().get(0);
      assertThat(p.getMetadata().getName()).isEqualTo("p1");
      assertThat(p.getMetadata().getUid()).isNotBlank();
      assertThat(p.getMetadata().getLabels()).containsEntry("app", "p1");
      assertThat(p.getMetadata().getAnnotations()).isNullOrEmpty();
      assertThat(p.getMetadata().getManagedFields()).isNullOrEmpty();
      assertThat(p.getAdditionalProperties()).containsOnlyKeys("spec");
      assertThat((Map<String, Object>) p.getAdditionalProperties().get("spec"))
          .containsOnlyKeys("replicas", "template");
      assertThat(p.<Object>get("spec", "template", "spec", "containers"))
          .isEqualTo(List.of(Map.of("image", "registry.example.com/p1:1.4.2"),
              Map.of("image", "registry.example.com/envoy:1.27.0")));

      RecordingListener wholeEvents = new RecordingListener();
      InformerLease whole = registry.lease(leaseIn("proj"), wholeEvents);
      await().atMost(Duration.ofSeconds(30)).until(
          () -> whole.hasSynced() && registry.informerCount() == 1);
      GenericKubernetesResource full = narrow.list().get(0);
      assertThat(full.<Object>get("spec", "strategy", "type")).isEqualTo("RollingUpdate");
      assertThat(full.getMetadata().getAnnotations()).containsKey("team.example.com/owner");
      assertThat(names(whole.list())).containsExactly("p1");
    }
  }

  @Test
  void aLeaseWantingPathsTheRunningInformerDropsIsNotSyncedUntilTheyAreCachedAndSeesOnlyObjectsWithThem() {
    api.createNamespace("widen");
    int count = 100;
    for (int i = 0; i < count; i++) {
      api.admin.configMaps().inNamespace("widen").resource(new ConfigMapBuilder()
          .withNewMetadata().withNamespace("widen").withName("w-" + i).endMetadata()
          .addToData("a", "a-" + i).addToData("b", "b-" + i).build()).create();
    }
    try (InformerRegistry registry = registry()) {
      InformerLease first = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("widen"), null,
          Set.of(), List.of(List.of("data", "a"))), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(first::hasSynced);
      assertThat(first.list()).hasSize(count).allSatisfy(cm -> {
        assertThat(cm.<String>get("data", "a")).startsWith("a-");
        assertThat(cm.<Object>get("data", "b")).isNull();
      });
      long narrowVersion = first.status().projectionVersion();

      // everything the second lease is shown, from its first moment on, must hold data.b
      List<String> violations = new CopyOnWriteArrayList<>();
      AtomicReference<InformerLease> secondRef = new AtomicReference<>();
      Runnable check = () -> {
        InformerLease lease = secondRef.get();
        boolean synced = lease.hasSynced();
        List<GenericKubernetesResource> seen = lease.list();
        seen.stream().filter(cm -> cm.get("data", "b") == null)
            .forEach(cm -> violations.add(cm.getMetadata().getName() + " without data.b"));
        if (synced && seen.size() != count) {
          violations.add("synced with " + seen.size() + " objects");
        }
      };
      InformerLease second = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("widen"), null,
          Set.of(), List.of(List.of("data", "b"))), new LeaseListener() {
            @Override
            public void onEvent(ResourceEvent event) {
              if (secondRef.get() != null) {
                check.run();
              }
            }

            @Override
            public void onStatusChange(LeaseStatus status) {
              if (secondRef.get() != null) {
                check.run();
              }
            }
          });
      secondRef.set(second);
      boolean sawUnsynced = false;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!second.hasSynced() && System.nanoTime() < deadline) {
        sawUnsynced = true;
        check.run();
      }
      check.run();
      assertThat(violations).isEmpty();
      assertThat(sawUnsynced).as("the second lease waited for its paths").isTrue();
      assertThat(second.list()).hasSize(count)
          .allSatisfy(cm -> assertThat(cm.<String>get("data", "b")).startsWith("b-"));
      // the cache's shape changed: memoised extractions of the type are stale
      assertThat(second.status().projectionVersion()).isNotEqualTo(narrowVersion)
          .isEqualTo(first.status().projectionVersion());
      assertThat(first.list()).hasSize(count)
          .allSatisfy(cm -> assertThat(cm.<String>get("data", "a")).startsWith("a-"));
    }
  }

  @Test
  void aClusterScopedTypeIsWatchedClusterWideAndFilteredByName() {
    api.createNamespace("scoped-one");
    api.createNamespace("scoped-two");
    ResourceType namespaces = new ResourceType("", "v1", "Namespace");
    try (InformerRegistry registry = registry()) {
      RecordingListener events = new RecordingListener();
      // a namespace list cannot exclude cluster-scoped objects
      InformerLease lease = registry.lease(new LeaseRequest(namespaces, Set.of("elsewhere"), null,
          Set.of("scoped-one", "scoped-three"), null), events);
      await().atMost(Duration.ofSeconds(30)).until(lease::hasSynced);
      assertThat(names(lease.list())).containsExactly("scoped-one");
      api.createNamespace("scoped-three");
      await().until(() -> events.saw(Kind.ADDED, null, "scoped-three"));
      assertThat(events.events).noneMatch(e -> e.name().equals("scoped-two"));
      assertThat(names(lease.list())).containsExactly("scoped-one", "scoped-three");
      assertThat(registry.informerCount()).isEqualTo(1);
    }
  }

  @Test
  void anObjectWhoseLabelsMoveItOutOfTheLeaseSelectorIsDeletedForTheLeaseAndAddedWhenItComesBack() {
    api.createNamespace("relabel");
    create(Fixtures.deployment("relabel", "moving", Map.of("tier", "frontend")));
    try (InformerRegistry registry = registry()) {
      RecordingListener events = new RecordingListener();
      InformerLease lease = registry.lease(new LeaseRequest(DEPLOYMENT, Set.of("relabel"),
          new LabelSelectorBuilder().addToMatchLabels("tier", "frontend").build(), Set.of(), null),
          events);
      await().atMost(Duration.ofSeconds(30)).until(lease::hasSynced);
      assertThat(names(lease.list())).containsExactly("moving");

      api.admin.apps().deployments().inNamespace("relabel").withName("moving")
          .edit(d -> {
            d.getMetadata().getLabels().put("tier", "backend");
            return d;
          });

      // the new state no longer matches; only the old one did: for this lease the object is gone
      await().atMost(Duration.ofSeconds(30))
          .until(() -> events.saw(Kind.DELETED, "relabel", "moving"));
      assertThat(lease.list()).isEmpty();
      assertThat(events.saw(Kind.UPDATED, "relabel", "moving")).isFalse();
      ResourceEvent left = events.events.get(events.events.size() - 1);
      assertThat(left.object().getMetadata().getLabels()).containsEntry("tier", "backend");

      api.admin.apps().deployments().inNamespace("relabel").withName("moving")
          .edit(d -> {
            d.getMetadata().getLabels().put("tier", "frontend");
            return d;
          });
      // back in scope: the lease sees it appear again
      await().atMost(Duration.ofSeconds(30))
          .until(() -> events.count(Kind.ADDED, "relabel", "moving") == 2);
      assertThat(events.saw(Kind.UPDATED, "relabel", "moving")).isFalse();
      assertThat(names(lease.list())).containsExactly("moving");
    }
  }

  private static LeaseRequest leaseIn(String namespace) {
    return new LeaseRequest(DEPLOYMENT, Set.of(namespace), null, Set.of(), null);
  }

  private static List<String> names(List<GenericKubernetesResource> objects) {
    return objects.stream().map(o -> o.getMetadata().getName()).sorted().toList();
  }
}

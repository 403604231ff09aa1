package io.kollect.informers;

import static io.kollect.informers.Fixtures.CONFIG_MAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.informers.ResourceEvent.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The first inventory on a real API server: events stream while the paginated list arrives, carry
 * the projection, and a list whose continue token expires starts over without losing anything.
 */
class FirstListIT {

  private static final List<List<String>> DATA_A = List.of(List.of("data", "a"));
  @RegisterExtension static final PerClassApiServer api = new PerClassApiServer();

  private static void configMaps(String namespace, int count) {
    api.createNamespace(namespace);
    for (int i = 0; i < count; i++) {
      api.admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
          .withNewMetadata().withNamespace(namespace).withName(String.format("cm-%04d", i))
          .addToLabels("app", "inventory").endMetadata()
          .addToData("a", "a-" + i).addToData("b", "b-" + i).build()).create();
    }
  }

  /** One thing a lease observed, in the order its listener saw it. */
  private record Seen(ResourceEvent event, LeaseStatus status, boolean syncedThen,
      GenericKubernetesResource got) {}

  @Test
  void addsOfTheFirstListArriveBeforeTheLeaseIsSyncedCarryOnlyTheProjectionAndCanBeReadWithGet() {
    int count = 1000;
    configMaps("streaming", count);
    AtomicReference<InformerLease> lease = new AtomicReference<>();
    List<Seen> seen = new CopyOnWriteArrayList<>();
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults()
        .withListPageSize(50))) {
      lease.set(registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("streaming"), null, Set.of(),
          DATA_A), new LeaseListener() {
            @Override
            public void onEvent(ResourceEvent e) {
              InformerLease l = lease.get();
              // the order is what the listener observes: no clock involved
              seen.add(new Seen(e, null, l != null && l.hasSynced(),
                  l == null ? null : l.get(e.namespace(), e.name())));
            }

            @Override
            public void onStatusChange(LeaseStatus s) {
              seen.add(new Seen(null, s, s.synced(), null));
            }
          }));
      await().atMost(Duration.ofSeconds(60)).until(() -> lease.get().hasSynced());
      await().until(() -> seen.stream().filter(s -> s.event() != null).count() >= count);

      int firstSynced = indexOf(seen, s -> s.status() != null && s.status().synced());
      List<Seen> adds = seen.stream().filter(s -> s.event() != null).toList();
      assertThat(adds).hasSize(count).allMatch(s -> s.event().kind() == Kind.ADDED);
      // the list came in 20 pages: its adds reached the lease while it was still listing. fabric8
      // hands each page's adds to a handler thread that may lag the list by a few pages on a busy
      // machine (44 of 1000 seen once), so only "some, before the end" is certain; a registry
      // that held adds back until the sync would show none
      long addsBeforeSynced = seen.subList(0, firstSynced).stream().filter(s -> s.event() != null).count();
      assertThat(addsBeforeSynced).as("ADDED events before the synced status").isPositive();
      assertThat(adds.get(0).syncedThen()).isFalse();
      // during the list, get() already answers with what the cache holds
      assertThat(adds.stream().filter(s -> !s.syncedThen())).isNotEmpty()
          .allSatisfy(s -> assertThat(s.got()).isNotNull());
      // events carry the cached projection, never the wire object
      assertThat(adds).allSatisfy(s -> assertProjected(s.event().object()));
      assertThat(lease.get().get("streaming", "cm-0007").<String>get("data", "a")).isEqualTo("a-7");
      assertThat(lease.get().get("streaming", "missing")).isNull();
      assertThat(lease.get().list()).hasSize(count);
      // the cache's shape keeps its version from the first streamed add to the sync, so what a
      // consumer extracted from streamed objects stays valid (no re-extraction at the sync)
      List<Long> versions = seen.stream().filter(s -> s.status() != null)
          .map(s -> s.status().projectionVersion()).distinct().toList();
      assertThat(versions).containsExactly(lease.get().status().projectionVersion());

      // updates and deletes carry the projection too (fabric8 hands over the wire object of a delete)
      RecordingListener after = new RecordingListener();
      InformerLease second = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("streaming"), null,
          Set.of("cm-0001"), DATA_A), after);
      await().until(second::hasSynced);
      api.admin.configMaps().inNamespace("streaming").withName("cm-0001")
          .edit(cm -> { cm.getData().put("a", "changed"); return cm; });
      await().until(() -> after.saw(Kind.UPDATED, "streaming", "cm-0001"));
      api.admin.configMaps().inNamespace("streaming").withName("cm-0001").delete();
      await().until(() -> after.saw(Kind.DELETED, "streaming", "cm-0001"));
      assertThat(after.events).filteredOn(e -> e.name().equals("cm-0001")).isNotEmpty()
          .allSatisfy(e -> assertProjected(e.object()));
    }
  }

  @Test
  void aWholeObjectLeaseHearsTheFirstPagesAddsBeforeTheLastPageIsRequested() {
    configMaps("whole", 200);
    AtomicReference<Integer> pagesAtFirstAdd = new AtomicReference<>();
    try (ApiServerProxy proxy = ApiServerProxy.forwarding(api.admin, "configmaps");
        KubernetesClient client = proxy.client(api.admin);
        InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults()
            .withListPageSize(20))) {
      InformerLease lease = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("whole"), null,
          Set.of(), null), event -> pagesAtFirstAdd.compareAndSet(null, proxy.listRequests()));
      await().atMost(Duration.ofSeconds(60)).until(lease::hasSynced);
      await().until(() -> pagesAtFirstAdd.get() != null); // listeners run on fabric8's threads
      // ten pages: fabric8 holds a full-state store's adds back until the last one, ours streams
      assertThat(proxy.listRequests()).isEqualTo(10);
      assertThat(pagesAtFirstAdd.get()).isLessThan(10);
      assertThat(lease.list()).hasSize(200);
    }
  }

  /**
   * Kollect decodes list pages itself, keeping only what the projection keeps: on a real API
   * server, page by page, what it lists projects to what fabric8's own list projects to — core and
   * grouped types (items without apiVersion and kind), managed fields, owner references, the
   * last-applied annotation, whole and projected.
   */
  @Test
  void listPagesDecodedForTheProjectionHoldWhatFabric8sWholeDecodingProjectsTo() throws Exception {
    configMaps("pages", 7);
    api.admin.apps().deployments().inNamespace("pages").resource(
        Fixtures.deployment("pages", "web", Map.of("app", "web"))).create();
    var owner = api.admin.configMaps().inNamespace("pages").withName("cm-0000").get();
    api.admin.apps().deployments().inNamespace("pages").resource(
        new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder(
            Fixtures.deployment("pages", "owned", Map.of("app", "owned")))
            .editMetadata().addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap")
            .withName("cm-0000").withUid(owner.getMetadata().getUid()).withController(true)
            .endOwnerReference().endMetadata().build()).create();
    List<ObjectProjection> projections = List.of(ObjectProjection.full(),
        ObjectProjection.of(DATA_A),
        ObjectProjection.of(List.of(List.of("spec", "template", "spec", "containers", "image"),
            List.of("metadata", "annotations"), List.of("status"))),
        ObjectProjection.of(List.of(List.of("metadata"), List.of("spec", "replicas"))));
    // the pages below are Kollect's own decoding, not fabric8's kept after a failed probe
    assertThat(ProjectedListReader.of(ObjectProjection.full(),
        api.admin.getKubernetesSerialization(), "v1", "ConfigMap")).isNotNull();
    for (ResourceType type : List.of(CONFIG_MAP, Fixtures.DEPLOYMENT)) {
      var operation = (io.fabric8.kubernetes.client.dsl.internal.BaseOperation<
          GenericKubernetesResource, io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          ?>) api.admin.genericKubernetesResources(type.apiVersion(), type.kind())
          .inNamespace("pages");
      for (ObjectProjection projection : projections) {
        var kollect = new LivenessListerWatcher(operation, new WatchLiveness(
            InformerOptions.defaults().watchLiveness(), java.time.Clock.systemUTC(), r -> { }),
            3, null, projection);
        List<GenericKubernetesResource> ours = new java.util.ArrayList<>();
        List<GenericKubernetesResource> theirs = new java.util.ArrayList<>();
        String next = null;
        do {
          var options = new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(3L)
              .withContinue(next).build();
          var page = kollect.submitList(options).get();
          var fabric8 = operation.submitList(new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
              .withLimit(3L).withContinue(next).build()).get();
          // A first page is listed at the latest version, so a write anywhere in the cluster
          // between the two requests (the API server renews its own lease every 10 s) gives them
          // different versions and continue tokens: such a pair is listed again.
          for (int again = 0; next == null && again < 10 && !page.getMetadata().getResourceVersion()
              .equals(fabric8.getMetadata().getResourceVersion()); again++) {
            page = kollect.submitList(new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                .withLimit(3L).build()).get();
            fabric8 = operation.submitList(new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                .withLimit(3L).build()).get();
          }
          page.getItems().forEach(o -> ours.add(projection.apply(o)));
          fabric8.getItems().forEach(o -> theirs.add(projection.apply(o)));
          assertThat(page.getMetadata().getResourceVersion())
              .isEqualTo(fabric8.getMetadata().getResourceVersion());
          next = page.getMetadata().getContinue();
          assertThat(next).isEqualTo(fabric8.getMetadata().getContinue());
        } while (next != null && !next.isEmpty());
        assertThat(ours).as("%s %s", type, projection).hasSize(type == CONFIG_MAP ? 7 : 2)
            .isEqualTo(theirs);
        assertThat(ours).allSatisfy(o -> assertThat(o.getApiVersion())
            .isEqualTo(type == CONFIG_MAP ? "v1" : "apps/v1"));
      }
    }
    // an error answers as fabric8's does: its status code, for the reflector's rules
    var missing = (io.fabric8.kubernetes.client.dsl.internal.BaseOperation<
        GenericKubernetesResource, io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
        ?>) api.admin.genericKubernetesResources(
            new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
                .withGroup("example.com").withVersion("v1").withKind("Nothing")
                .withPlural("nothings").withNamespaced(true).build()).inNamespace("pages");
    var failing = new LivenessListerWatcher(missing, new WatchLiveness(
        InformerOptions.defaults().watchLiveness(), java.time.Clock.systemUTC(), r -> { }), 3, null,
        ObjectProjection.full());
    assertThatThrownBy(() -> failing.submitList(new io.fabric8.kubernetes.api.model.ListOptions()).get())
        .cause().isInstanceOfSatisfying(io.fabric8.kubernetes.client.KubernetesClientException.class,
            e -> assertThat(e.getCode()).isEqualTo(404));
  }

  private static void assertProjected(GenericKubernetesResource object) {
    assertThat(object.getAdditionalProperties()).containsOnlyKeys("data");
    assertThat((Map<String, Object>) object.getAdditionalProperties().get("data")).containsOnlyKeys("a");
    assertThat(object.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(object.getMetadata().getLabels()).containsEntry("app", "inventory");
  }

  private static <T> int indexOf(List<T> list, java.util.function.Predicate<T> p) {
    for (int i = 0; i < list.size(); i++) {
      if (p.test(list.get(i))) {
        return i;
      }
    }
    throw new AssertionError("not found");
  }

  /**
   * Forcing a real etcd compaction between two pages of one list is not possible here (the pages
   * follow each other within milliseconds), so a proxy in front of the real API server answers
   * the first request carrying a continue token as the API server does after compaction.
   */
  @Test
  void aListWhoseContinueTokenExpiresStartsOverKeepsWhatItListedAndDeletesOnlyWhatIsGone() {
    int count = 300;
    configMaps("gone", count);
    CountingMetrics metrics = new CountingMetrics();
    RecordingListener events = new RecordingListener();
    // while the list is interrupted, one object of the first page is deleted for real
    try (ApiServerProxy proxy = new ApiServerProxy(api.admin, "configmaps",
            () -> api.admin.configMaps().inNamespace("gone").withName("cm-0003").delete());
        KubernetesClient client = proxy.client(api.admin);
        InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults()
            .withListPageSize(50).withMetrics(metrics))) {
      InformerLease lease = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("gone"), null,
          Set.of(), DATA_A), events);
      await().atMost(Duration.ofSeconds(60)).until(lease::hasSynced);

      assertThat(proxy.goneSent()).isTrue();
      // the list started over from its first page
      assertThat(proxy.listUris.stream().filter(u -> !u.contains("continue=")).count())
          .as(proxy.listUris::toString).isGreaterThanOrEqualTo(2);
      assertThat(lease.list()).hasSize(count - 1);
      assertThat(lease.get("gone", "cm-0003")).isNull();
      // fabric8 hands events to listeners on its own threads, after the cache: wait until every
      // object was announced and the real delete was heard, then check nothing came twice
      await().atMost(Duration.ofSeconds(30)).until(() -> events.events.stream()
          .filter(e -> e.kind() == Kind.ADDED).map(ResourceEvent::name).distinct().count() == count
          && events.saw(Kind.DELETED, "gone", "cm-0003"));
      // every object was announced once; the first page was not announced again by the restart
      Map<String, Long> adds = events.events.stream().filter(e -> e.kind() == Kind.ADDED)
          .collect(Collectors.groupingBy(ResourceEvent::name, Collectors.counting()));
      assertThat(adds).hasSize(count).allSatisfy((name, n) -> assertThat(n).as(name).isEqualTo(1));
      // nothing listed before the 410 was deleted, except the object that really is gone
      assertThat(events.events).filteredOn(e -> e.kind() == Kind.DELETED)
          .extracting(ResourceEvent::name).containsExactly("cm-0003");
      assertThat(metrics.get(CONFIG_MAP + " watchRestarted " + InformerMetrics.RESTART_GONE))
          .isGreaterThanOrEqualTo(1);
    }
  }
}

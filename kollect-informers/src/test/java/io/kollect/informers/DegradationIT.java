package io.kollect.informers;

import static io.kollect.informers.Fixtures.CONFIG_MAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.informers.LeaseStatus.Skipped;
import io.kollect.informers.ResourceEvent.Kind;
import io.kollect.testing.FreezableTcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** RBAC degradation, types that are not served yet, and broken watches, on a real API server. */
class DegradationIT {

  @RegisterExtension static final PerClassApiServer api = new PerClassApiServer();

  private static void configMap(String namespace, String name) {
    api.configMap(namespace, name, Map.of("k", "v"));
  }

  private static List<String> names(InformerLease lease) {
    return lease.list().stream().map(o -> o.getMetadata().getName()).sorted().toList();
  }

  @Test
  void aReaderAllowedOnlyInOneNamespaceReadsItAndReportsTheRestForbidden() {
    api.createNamespace("rbac-a");
    api.createNamespace("rbac-b");
    configMap("rbac-a", "visible");
    configMap("rbac-b", "hidden");
    api.admin.rbac().roles().inNamespace("rbac-a").resource(new RoleBuilder()
        .withNewMetadata().withName("cm-reader").withNamespace("rbac-a").endMetadata()
        .withRules(new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
            .withVerbs("get", "list", "watch").build())
        .build()).create();
    api.admin.rbac().roleBindings().inNamespace("rbac-a").resource(new RoleBindingBuilder()
        .withNewMetadata().withName("cm-reader").withNamespace("rbac-a").endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "Role", "cm-reader")
        .withSubjects(new SubjectBuilder().withKind("User").withName(PerClassApiServer.READER_USER)
            .withApiGroup("rbac.authorization.k8s.io").build())
        .build()).create();

    try (KubernetesClient reader = api.reader();
        InformerRegistry registry = new InformerRegistry(reader, InformerOptions.defaults()
            .withForbiddenRetry(Duration.ofSeconds(2)))) {
      RecordingListener twoEvents = new RecordingListener();
      InformerLease two = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("rbac-a", "rbac-b"),
          null, Set.of(), null), twoEvents);
      InformerLease everywhere = registry.lease(LeaseRequest.all(CONFIG_MAP), new RecordingListener());

      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(names(two)).containsExactly("visible");
      assertThat(two.status().served()).isTrue();
      assertThat(two.status().skipped()).singleElement().satisfies(s -> {
        assertThat(s.namespace()).isEqualTo("rbac-b");
        assertThat(s.reason()).isEqualTo(Skipped.FORBIDDEN);
        assertThat(s.message()).contains("configmaps").contains("rbac-b");
      });
      // all namespaces: cluster-wide is forbidden and namespaces cannot be listed
      assertThat(everywhere.status().skipped()).extracting(Skipped::namespace, Skipped::reason)
          .contains(org.assertj.core.groups.Tuple.tuple("*", Skipped.FORBIDDEN),
              org.assertj.core.groups.Tuple.tuple("rbac-b", Skipped.FORBIDDEN));
      assertThat(registry.informerCount()).isEqualTo(1);

      configMap("rbac-a", "later");
      await().until(() -> twoEvents.saw(Kind.ADDED, "rbac-a", "later"));

      // once the reader may list namespaces, the next re-check finds every readable namespace
      api.admin.rbac().clusterRoles().resource(new ClusterRoleBuilder()
          .withNewMetadata().withName("ns-lister").endMetadata()
          .withRules(new PolicyRuleBuilder().withApiGroups("").withResources("namespaces")
              .withVerbs("list").build())
          .build()).create();
      api.admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder()
          .withNewMetadata().withName("ns-lister").endMetadata()
          .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "ns-lister")
          .withSubjects(new SubjectBuilder().withKind("User").withName(PerClassApiServer.READER_USER)
              .withApiGroup("rbac.authorization.k8s.io").build())
          .build()).create();
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(everywhere.status().skipped()).extracting(Skipped::namespace)
              .doesNotContain("*").contains("rbac-b", "default", "kube-system"));
      assertThat(names(everywhere)).containsExactly("later", "visible");
      assertThat(registry.informerCount()).isEqualTo(1);
    }
  }

  @Test
  void aLeaseOnAMissingCrdKindReportsNotServedThenReadsOnceTheCrdIsCreatedAndStopsWhenRemoved() {
    ResourceType widget = new ResourceType("example.kollect.io", "v1", "Widget");
    api.createNamespace("crd");
    CountingMetrics metrics = new CountingMetrics();
    // discovery polling effectively off: the CRD watch must notice the new type by itself
    try (InformerRegistry registry = new InformerRegistry(api.admin, InformerOptions.defaults()
        .withDiscoveryInterval(Duration.ofHours(1)).withMetrics(metrics))) {
      RecordingListener events = new RecordingListener();
      InformerLease lease = registry.lease(LeaseRequest.all(widget), events);
      await().atMost(Duration.ofSeconds(30)).until(registry::allSynced);
      assertThat(lease.status()).isEqualTo(new LeaseStatus(widget, false, true,
          List.of(new Skipped("*", Skipped.NOT_SERVED, "API server does not serve example.kollect.io/v1"))));
      assertThat(registry.informerCount()).isZero();

      CustomResourceDefinition crd = api.admin.getKubernetesSerialization().unmarshal("""
          apiVersion: apiextensions.k8s.io/v1
          kind: CustomResourceDefinition
          metadata:
            name: widgets.example.kollect.io
          spec:
            group: example.kollect.io
            scope: Namespaced
            names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
            versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
          """, CustomResourceDefinition.class);
      api.admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();

      await().atMost(Duration.ofSeconds(30)).until(() -> lease.status().served() && lease.hasSynced());
      // the listener hears of the status after the lease shows it: wait for it, do not race it
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(events.statuses).anyMatch(s -> !s.served()).anyMatch(LeaseStatus::served));
      assertThat(registry.informerCount()).isEqualTo(1);
      GenericKubernetesResource w = new GenericKubernetesResourceBuilder()
          .withApiVersion("example.kollect.io/v1").withKind("Widget")
          .withNewMetadata().withName("w1").withNamespace("crd").endMetadata()
          .withAdditionalProperties(Map.of("spec", Map.of("size", 3)))
          .build();
      api.admin.genericKubernetesResources("example.kollect.io/v1", "Widget").inNamespace("crd")
          .resource(w).create();
      await().atMost(Duration.ofSeconds(10)).until(() -> events.saw(Kind.ADDED, "crd", "w1"));
      assertThat(names(lease)).containsExactly("w1");
      assertThat(lease.list().get(0).<Integer>get("spec", "size")).isEqualTo(3);

      api.admin.apiextensions().v1().customResourceDefinitions().withName("widgets.example.kollect.io")
          .delete();
      await().atMost(Duration.ofSeconds(30)).until(() -> !lease.status().served());
      assertThat(lease.status().skipped()).extracting(Skipped::reason).containsExactly(Skipped.NOT_SERVED);
      assertThat(events.saw(Kind.DELETED, "crd", "w1")).isTrue();
      assertThat(lease.list()).isEmpty();
      assertThat(registry.informerCount()).isZero();
      assertThat(metrics.informers.get()).isZero();
    }
  }

  @Test
  void withoutPermissionToWatchCrdsANewTypeIsFoundByPeriodicDiscoveryOfNotServedTypes() {
    ResourceType gadget = new ResourceType("poll.kollect.io", "v1", "Gadget");
    api.createNamespace("poll");
    try (KubernetesClient reader = api.reader();
        InformerRegistry registry = new InformerRegistry(reader, InformerOptions.defaults()
            .withDiscoveryInterval(Duration.ofSeconds(1)).withForbiddenRetry(Duration.ofSeconds(1)))) {
      InformerLease lease = registry.lease(new LeaseRequest(gadget, Set.of("poll"), null, Set.of(),
          null), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(lease::hasSynced);
      assertThat(lease.status().served()).isFalse();

      api.admin.apiextensions().v1().customResourceDefinitions().resource(
          api.admin.getKubernetesSerialization().unmarshal("""
              apiVersion: apiextensions.k8s.io/v1
              kind: CustomResourceDefinition
              metadata: {name: gadgets.poll.kollect.io}
              spec:
                group: poll.kollect.io
                scope: Namespaced
                names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
                versions:
                - name: v1
                  served: true
                  storage: true
                  schema:
                    openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
              """, CustomResourceDefinition.class)).create();
      // served now, but the reader may not read gadgets yet
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        assertThat(lease.status().served()).isTrue();
        assertThat(lease.status().skipped()).extracting(Skipped::namespace, Skipped::reason)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("poll", Skipped.FORBIDDEN));
      });
      api.admin.rbac().roles().inNamespace("poll").resource(new RoleBuilder()
          .withNewMetadata().withName("gadget-reader").withNamespace("poll").endMetadata()
          .withRules(new PolicyRuleBuilder().withApiGroups("poll.kollect.io").withResources("gadgets")
              .withVerbs("list", "watch").build())
          .build()).create();
      api.admin.rbac().roleBindings().inNamespace("poll").resource(new RoleBindingBuilder()
          .withNewMetadata().withName("gadget-reader").withNamespace("poll").endMetadata()
          .withNewRoleRef("rbac.authorization.k8s.io", "Role", "gadget-reader")
          .withSubjects(new SubjectBuilder().withKind("User").withName(PerClassApiServer.READER_USER)
              .withApiGroup("rbac.authorization.k8s.io").build())
          .build()).create();
      api.admin.genericKubernetesResources("poll.kollect.io/v1", "Gadget").inNamespace("poll")
          .resource(new GenericKubernetesResourceBuilder().withApiVersion("poll.kollect.io/v1")
              .withKind("Gadget").withNewMetadata().withName("g1").withNamespace("poll").endMetadata()
              .build()).create();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        assertThat(lease.status()).isEqualTo(new LeaseStatus(gadget, true, true, List.of(),
            lease.status().projectionVersion(), List.of()));
        assertThat(names(lease)).containsExactly("g1");
      });
    }
  }

  @Test
  void deletesMadeWhileTheWatchIsCutArriveAsDeletedAfterReconnect() throws Exception {
    api.createNamespace("cut");
    configMap("cut", "keep");
    configMap("cut", "gone-1");
    configMap("cut", "gone-2");
    CountingMetrics metrics = new CountingMetrics();
    try (FreezableTcpProxy proxy = FreezableTcpProxy.to(api.port());
        KubernetesClient viaProxy = api.adminVia(proxy.port());
        InformerRegistry registry = new InformerRegistry(viaProxy,
            InformerOptions.defaults().withMetrics(metrics))) {
      RecordingListener events = new RecordingListener();
      InformerLease lease = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("cut"), null,
          Set.of(), null), events);
      await().atMost(Duration.ofSeconds(30)).until(lease::hasSynced);
      assertThat(names(lease)).containsExactly("gone-1", "gone-2", "keep");
      long lists = api.countRequests("list", "configmaps", "cut", null);

      proxy.stop();
      api.admin.configMaps().inNamespace("cut").withName("gone-1").delete();
      api.admin.configMaps().inNamespace("cut").withName("gone-2").delete();
      configMap("cut", "new");
      // let etcd compact past the deletes, so resuming the old watch is impossible (410 Gone)
      Thread.sleep(6_000);
      proxy.restart();

      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        assertThat(events.saw(Kind.DELETED, "cut", "gone-1")).isTrue();
        assertThat(events.saw(Kind.DELETED, "cut", "gone-2")).isTrue();
        assertThat(events.saw(Kind.ADDED, "cut", "new")).isTrue();
      });
      assertThat(names(lease)).containsExactly("keep", "new");
      // the deletes were learnt from a relist, not from watch events
      assertThat(api.countRequests("list", "configmaps", "cut", null)).isGreaterThan(lists);
      assertThat(metrics.get(CONFIG_MAP + " watchRestart")).isGreaterThanOrEqualTo(1);
      assertThat(metrics.get(CONFIG_MAP + " event DELETED")).isEqualTo(2);
    }
  }
}

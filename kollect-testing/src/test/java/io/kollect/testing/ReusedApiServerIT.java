package io.kollect.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link TestApiServer.Builder#reused()}: a server handed back is restored to what its set-up left
 * and handed to the next class that asks, holding nothing of the class before it
 * ({@link ApiServerNotReusedIT}: when it is not).
 */
class ReusedApiServerIT {

  /** A set-up of this class only, so no other class of the JVM takes these servers. */
  private static TestApiServer.Builder reused(String setUp) {
    return TestApiServer.builder().reused().setUp(setUp, server -> server.namespace("set-up"));
  }

  /** Tells servers apart: the uid of the namespace their set-up created (ports may be reused). */
  private static String identity(TestApiServer server) {
    return server.admin().namespaces().withName("set-up").get().getMetadata().getUid();
  }

  @Test
  void aServerHandedBackIsReusedWithOnlyWhatItsSetUpCreated() {
    String identity;
    try (TestApiServer first = reused("clean").start()) {
      identity = identity(first);
      KubernetesClient admin = first.admin();
      first.namespace("shop");
      admin.configMaps().inNamespace("shop").resource(new ConfigMapBuilder().withNewMetadata()
          .withName("held").addToFinalizers("example.com/hold").endMetadata().build()).create();
      admin.pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata()
          .withName("never-scheduled").endMetadata().withNewSpec().addNewContainer()
          .withName("main").withImage("example").endContainer().endSpec().build()).create();
      widgetCrd(admin);
      admin.genericKubernetesResources(WIDGETS).inNamespace("shop").resource(widget()).create();
    }
    try (TestApiServer second = reused("clean").start()) {
      KubernetesClient admin = second.admin();
      assertThat(identity(second)).as("the same server").isEqualTo(identity);
      assertThat(admin.namespaces().withName("shop").get()).isNull();
      assertThat(admin.configMaps().inAnyNamespace().list().getItems())
          .extracting(c -> c.getMetadata().getName()).doesNotContain("held");
      assertThat(admin.pods().inAnyNamespace().list().getItems()).isEmpty();
      assertThat(admin.apiextensions().v1().customResourceDefinitions()
          .withName("widgets.example.com").get()).isNull();
      // the namespace can be created again, and used
      second.namespace("shop");
      admin.configMaps().inNamespace("shop").resource(new ConfigMapBuilder().withNewMetadata()
          .withName("held").endMetadata().build()).create();
    }
  }

  private static final ResourceDefinitionContext WIDGETS = new ResourceDefinitionContext.Builder()
      .withGroup("example.com").withVersion("v1").withPlural("widgets").withKind("Widget")
      .withNamespaced(true).build();

  private static void widgetCrd(KubernetesClient admin) {
    CustomResourceDefinition crd = (CustomResourceDefinition) admin.load(new ByteArrayInputStream("""
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        spec:
          group: example.com
          names: {kind: Widget, plural: widgets}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
        """.getBytes(StandardCharsets.UTF_8))).items().get(0);
    admin.resource(crd).create();
    admin.apiextensions().v1().customResourceDefinitions().withName("widgets.example.com")
        .waitUntilCondition(c -> c.getStatus() != null && c.getStatus().getConditions() != null
            && c.getStatus().getConditions().stream().anyMatch(
                s -> "Established".equals(s.getType()) && "True".equals(s.getStatus())),
            30, TimeUnit.SECONDS);
  }

  private static GenericKubernetesResource widget() {
    GenericKubernetesResource widget = new GenericKubernetesResource();
    widget.setApiVersion("example.com/v1");
    widget.setKind("Widget");
    widget.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("w")
        .withNamespace("shop").addToFinalizers("example.com/hold").build());
    return widget;
  }
}

package io.kollect.informers;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;

/** Realistic objects for tests and the memory benchmark. */
final class Fixtures {

  static final ResourceType DEPLOYMENT = new ResourceType("apps", "v1", "Deployment");
  static final ResourceType CONFIG_MAP = new ResourceType("", "v1", "ConfigMap");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private Fixtures() {}

  /**
   * A Deployment shaped like one applied by {@code kubectl apply}: two containers with env,
   * resources, probes, and the last-applied annotation holding the applied manifest.
   */
  static Deployment deployment(String namespace, String name, Map<String, String> labels) {
    Deployment d = new DeploymentBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).withLabels(labels)
        .addToAnnotations("deployment.kubernetes.io/revision", "1")
        .addToAnnotations("team.example.com/owner", "platform-team")
        .endMetadata()
        .withNewSpec()
        .withReplicas(3)
        .withRevisionHistoryLimit(10)
        .withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
        .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate()
        .withMaxSurge(new IntOrString("25%")).withMaxUnavailable(new IntOrString("25%"))
        .endRollingUpdate().endStrategy()
        .withNewTemplate()
        .withNewMetadata().withLabels(Map.of("app", name, "tier", "backend"))
        .addToAnnotations("prometheus.io/scrape", "true").endMetadata()
        .withNewSpec()
        .withServiceAccountName(name + "-sa")
        .withContainers(container(name, "registry.example.com/" + name + ":1.4.2", 8080),
            container("sidecar", "registry.example.com/envoy:1.27.0", 9901))
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
    String applied = SERIALIZATION.asJson(d);
    d.getMetadata().getAnnotations().put(ObjectProjection.LAST_APPLIED, applied);
    return d;
  }

  private static io.fabric8.kubernetes.api.model.Container container(String name, String image, int port) {
    return new ContainerBuilder()
        .withName(name)
        .withImage(image)
        .withImagePullPolicy("IfNotPresent")
        .addNewPort().withContainerPort(port).withName("http").withProtocol("TCP").endPort()
        .withEnv(List.of(
            new EnvVarBuilder().withName("LOG_LEVEL").withValue("info").build(),
            new EnvVarBuilder().withName("JAVA_OPTS").withValue("-Xmx512m -XX:+UseG1GC").build(),
            new EnvVarBuilder().withName("DATABASE_URL").withValue("postgres://db.example.com:5432/app").build(),
            new EnvVarBuilder().withName("FEATURE_FLAGS").withValue("a,b,c,d").build()))
        .withNewResources()
        .addToRequests("cpu", new Quantity("250m")).addToRequests("memory", new Quantity("256Mi"))
        .addToLimits("cpu", new Quantity("1")).addToLimits("memory", new Quantity("512Mi"))
        .endResources()
        .withNewReadinessProbe().withNewHttpGet().withPath("/ready").withPort(new IntOrString(port))
        .endHttpGet().withPeriodSeconds(10).endReadinessProbe()
        .withNewLivenessProbe().withNewHttpGet().withPath("/live").withPort(new IntOrString(port))
        .endHttpGet().withInitialDelaySeconds(15).endLivenessProbe()
        .build();
  }
}

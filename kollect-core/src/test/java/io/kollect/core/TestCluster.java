package io.kollect.core;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.testing.TestApiServer;
import java.util.Map;

/**
 * A real kube-apiserver + etcd (kube-api-test) for one IT class, with a client and small helpers
 * to create the objects the tests need.
 */
public final class TestCluster implements AutoCloseable {

  private final TestApiServer server;

  private TestCluster(TestApiServer server) {
    this.server = server;
  }

  /**
   * An API server: one an earlier class of this JVM handed back if there is one (see {@link
   * TestApiServer.Builder#reused()} for what a class may then do), otherwise a new one (offline
   * from the provisioned binaries, see scripts/).
   */
  public static TestCluster start() {
    return new TestCluster(TestApiServer.builder().reused().start());
  }

  /** Starts an API server with extra configuration (e.g. token users for RBAC tests). */
  public static TestCluster start(TestApiServer.Builder config) {
    return new TestCluster(config.start());
  }

  public KubernetesClient client() {
    return server.admin();
  }

  /** A client that authenticates with a bearer token of a token user. */
  public KubernetesClient clientWithToken(String token) {
    return server.clientForToken(token);
  }

  public void namespace(String name, Map<String, String> labels) {
    server.namespace(name, labels);
  }

  public void namespace(String name) {
    namespace(name, Map.of());
  }

  /** Creates a one-container Deployment (no controllers run here, so it never gets pods). */
  public Deployment deployment(String namespace, String name, String image, int replicas,
      Map<String, String> labels) {
    return client().apps().deployments().inNamespace(namespace).resource(new DeploymentBuilder()
        .withNewMetadata().withName(name).withNamespace(namespace).withLabels(labels).endMetadata()
        .withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage(image).endContainer().endSpec()
        .endTemplate().endSpec().build()).create();
  }

  public Deployment deployment(String namespace, String name, String image, int replicas) {
    return deployment(namespace, name, image, replicas, Map.of());
  }

  @Override
  public void close() {
    server.close();
  }
}

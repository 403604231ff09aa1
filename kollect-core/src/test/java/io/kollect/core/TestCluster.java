package io.kollect.core;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.Map;

/**
 * A real kube-apiserver + etcd (kube-api-test) for one IT class, with a client and small helpers
 * to create the objects the tests need.
 */
public final class TestCluster implements AutoCloseable {

  private final KubeAPIServer server;
  private final KubernetesClient client;

  private TestCluster(KubeAPIServer server, KubernetesClient client) {
    this.server = server;
    this.client = client;
  }

  /** Starts an API server from the provisioned 1.20.2 binaries (offline, see scripts/). */
  public static TestCluster start() {
    return start(KubeAPIServerConfigBuilder.anAPIServerConfig());
  }

  /** Starts an API server with extra configuration (e.g. a token file for RBAC tests). */
  public static TestCluster start(KubeAPIServerConfigBuilder config) {
    KubeAPIServer server = new KubeAPIServer(config
        .withOfflineMode(true)
        .withApiServerVersion("1.20.2")
        .build());
    server.start();
    KubernetesClient client = new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(server.getKubeConfigYaml()))
        .build();
    return new TestCluster(server, client);
  }

  public KubernetesClient client() {
    return client;
  }

  /** A client that authenticates with a bearer token from the server's token file. */
  public KubernetesClient clientWithToken(String token) {
    Config admin = client.getConfiguration();
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl(admin.getMasterUrl())
        .withTrustCerts(true)
        .withDisableHostnameVerification(true)
        .withOauthToken(token)
        .build()).build();
  }

  public void namespace(String name, Map<String, String> labels) {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .withLabels(labels).endMetadata().build()).create();
  }

  public void namespace(String name) {
    namespace(name, Map.of());
  }

  /** Creates a one-container Deployment (no controllers run here, so it never gets pods). */
  public Deployment deployment(String namespace, String name, String image, int replicas,
      Map<String, String> labels) {
    return client.apps().deployments().inNamespace(namespace).resource(new DeploymentBuilder()
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
    try {
      client.close();
    } finally {
      server.stop();
    }
  }
}

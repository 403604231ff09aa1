package io.kollect.operator;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One real API server per IT class, with the Kollect CRDs installed from the generated YAML. */
public final class TestCluster implements AutoCloseable {

  public static final List<String> CRDS = List.of("kollectprofiles.kollect.io",
      "kollecttargets.kollect.io", "kollectsinks.kollect.io", "kollectinventories.kollect.io");

  private final KubeAPIServer server;
  private final String kubeconfig;
  private final KubernetesClient client;

  private TestCluster(KubeAPIServer server) {
    this.server = server;
    this.kubeconfig = server.getKubeConfigYaml();
    this.client = newClient();
  }

  /** Starts an API server (offline: the provisioned binaries) and installs the CRDs. */
  public static TestCluster start() {
    return start(java.util.Map.of());
  }

  /** Like {@link #start()}, with extra kube-apiserver flags (e.g. {@code --token-auth-file}). */
  public static TestCluster start(java.util.Map<String, String> apiServerFlags) {
    KubeAPIServerConfigBuilder builder = KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withOfflineMode(binariesProvisioned());
    apiServerFlags.forEach(builder::withApiServerFlag);
    KubeAPIServer server = new KubeAPIServer(builder.build());
    server.start();
    TestCluster cluster = new TestCluster(server);
    cluster.installCrds();
    return cluster;
  }

  /** Offline when scripts/provision-kube-binaries.sh has put binaries in place, else download. */
  static boolean binariesProvisioned() {
    Path k8s = Path.of(System.getProperty("user.home"), ".kubeapitest", "k8s");
    try (var dirs = Files.list(k8s)) {
      return dirs.anyMatch(d -> Files.isExecutable(d.resolve("kube-apiserver")));
    } catch (IOException e) {
      return false;
    }
  }

  public KubernetesClient client() {
    return client;
  }

  /** A separate client (its own connections and informers), as a second process would have. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
  }

  public String kubeconfigYaml() {
    return kubeconfig;
  }

  public Path writeKubeconfig(Path dir) {
    try {
      Path file = dir.resolve("kubeconfig");
      Files.writeString(file, kubeconfig);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void installCrds() {
    for (String name : CRDS) {
      try (InputStream in = TestCluster.class.getResourceAsStream("/META-INF/fabric8/" + name + "-v1.yml")) {
        for (HasMetadata crd : client.load(in).items()) {
          client.resource(crd).create();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    for (String name : CRDS) {
      client.apiextensions().v1().customResourceDefinitions().withName(name)
          .waitUntilCondition(TestCluster::established, 30, TimeUnit.SECONDS);
    }
  }

  static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  public void namespace(String name) {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .endMetadata().build()).createOr(NonDeletingOperation::update);
  }

  /** Creates the objects of a YAML text (multi-document allowed). */
  public List<HasMetadata> apply(String yaml) {
    List<HasMetadata> items = client.load(new java.io.ByteArrayInputStream(
        yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8))).items();
    return items.stream().map(o -> client.resource(o).createOr(NonDeletingOperation::update))
        .map(o -> (HasMetadata) o).toList();
  }

  @Override
  public void close() {
    client.close();
    server.stop();
  }
}

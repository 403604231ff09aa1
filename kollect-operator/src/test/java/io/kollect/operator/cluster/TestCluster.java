package io.kollect.operator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.testing.TestApiServer;
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
      "kollecttargets.kollect.io", "kollectsinks.kollect.io", "kollectinventories.kollect.io",
      "kollectclusters.kollect.io");

  private final TestApiServer server;

  private TestCluster(TestApiServer server) {
    this.server = server;
  }

  /**
   * An API server with the CRDs installed: one an earlier class of this JVM handed back if there
   * is one (see {@link TestApiServer.Builder#reused()} for what a class may then do), otherwise a
   * new one (offline: the provisioned binaries).
   */
  public static TestCluster start() {
    return start(TestApiServer.builder().reused());
  }

  /** Like {@link #start()}, with extra configuration (e.g. token users for RBAC tests). */
  public static TestCluster start(TestApiServer.Builder config) {
    return new TestCluster(config.setUp("kollect-crds", TestCluster::installCrds).start());
  }

  public KubernetesClient client() {
    return server.admin();
  }

  /** A separate client (its own connections and informers), as a second process would have. */
  public KubernetesClient newClient() {
    return server.newAdminClient();
  }

  /** A client authenticated only by the bearer token of a token user. */
  public KubernetesClient clientForToken(String token) {
    return server.clientForToken(token);
  }

  /** A kubeconfig authenticating as a token user of the server. */
  public String kubeconfigForToken(String user, String token) {
    return server.kubeconfigForToken(user, token);
  }

  public String kubeconfigYaml() {
    return server.adminKubeconfigYaml();
  }

  public Path writeKubeconfig(Path dir) {
    try {
      Path file = dir.resolve("kubeconfig");
      Files.writeString(file, kubeconfigYaml());
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void installCrds(TestApiServer server) {
    KubernetesClient client = server.admin();
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

  public static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  public void namespace(String name) {
    server.namespace(name);
  }

  /**
   * The cluster-scoped KollectProfile {@code configmaps} most operator tests read with: ConfigMaps,
   * field {@code v} = {@code data.v}. Ends with a document separator, so more YAML may follow.
   */
  public static final String CONFIGMAP_PROFILE = """
      apiVersion: kollect.io/v1alpha1
      kind: KollectProfile
      metadata: {name: configmaps}
      spec:
        resources:
          - version: v1
            kind: ConfigMap
            fields: [{name: v, path: "{.data.v}"}]
      ---
      """;

  /**
   * The cluster-scoped KollectProfile {@code deployments}: Deployments, field {@code replicas} =
   * {@code spec.replicas}, then {@code moreFields} (YAML flow maps such as {@code {name: image,
   * path: "..."}}). One document: YAML that follows starts with a separator.
   */
  public static String deploymentsProfile(String... moreFields) {
    StringBuilder yaml = new StringBuilder("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: deployments}
        spec:
          resources:
            - group: apps
              version: v1
              kind: Deployment
              fields:
                - {name: replicas, path: "{.spec.replicas}"}
        """);
    for (String field : moreFields) {
      yaml.append("        - ").append(field).append('\n');
    }
    return yaml.toString();
  }

  /** Creates the objects of a YAML text (multi-document allowed). */
  public List<HasMetadata> apply(String yaml) {
    List<HasMetadata> items = client().load(new java.io.ByteArrayInputStream(
        yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8))).items();
    return items.stream().map(o -> client().resource(o).createOr(NonDeletingOperation::update))
        .map(o -> (HasMetadata) o).toList();
  }

  @Override
  public void close() {
    server.close();
  }
}

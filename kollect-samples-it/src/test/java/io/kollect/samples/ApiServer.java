package io.kollect.samples;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real kube-apiserver (kube-api-test) for one test class, optionally authenticating
 * ServiceAccount-like users from a static token file so RBAC is enforced on them.
 */
final class ApiServer implements AutoCloseable {
  private final KubeAPIServer server;
  private final KubernetesClient admin;

  private ApiServer(KubeAPIServer server) {
    this.server = server;
    this.admin = new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(server.getKubeConfigYaml()))
        .build();
  }

  /** An API server that knows only its admin (client-certificate) user. */
  static ApiServer start() {
    return start(null);
  }

  /**
   * An API server that also accepts the bearer tokens of {@code tokenAuthFile} (lines {@code
   * token,user,uid,"group1,group2"}).
   */
  static ApiServer start(Path tokenAuthFile) {
    KubeAPIServerConfigBuilder config = KubeAPIServerConfigBuilder.anAPIServerConfig()
        // kube-api-test casts the env variable's String to Boolean; parse it here instead.
        .withOfflineMode(Boolean.parseBoolean(System.getenv("KUBE_API_TEST_OFFLINE_MODE")))
        .withUpdateKubeConfig(false);
    if (tokenAuthFile != null) {
      config.withApiServerFlag("--token-auth-file", tokenAuthFile.toAbsolutePath().toString());
    }
    KubeAPIServer server = new KubeAPIServer(config.build());
    server.start();
    return new ApiServer(server);
  }

  /** A client with cluster-admin rights (client certificate in system:masters). */
  KubernetesClient admin() {
    return admin;
  }

  String adminKubeConfigYaml() {
    return server.getKubeConfigYaml();
  }

  /** A kubeconfig for a bearer-token user of this server: same server and CA, no client cert. */
  String kubeConfigForToken(String user, String token) {
    try {
      JsonNode admin = Sample.YAML.readTree(server.getKubeConfigYaml());
      JsonNode cluster = admin.path("clusters").get(0).path("cluster");
      return "apiVersion: v1\n"
          + "kind: Config\n"
          + "clusters:\n"
          + "  - name: kubeapitest\n"
          + "    cluster:\n"
          + "      server: " + cluster.path("server").asText() + "\n"
          + "      certificate-authority: " + cluster.path("certificate-authority").asText() + "\n"
          + "contexts:\n"
          + "  - name: " + user + "\n"
          + "    context:\n"
          + "      cluster: kubeapitest\n"
          + "      user: " + user + "\n"
          + "      namespace: default\n"
          + "current-context: " + user + "\n"
          + "users:\n"
          + "  - name: " + user + "\n"
          + "    user:\n"
          + "      token: " + token + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes {@link #kubeConfigForToken} to a file. */
  Path writeKubeConfigForToken(Path file, String user, String token) {
    try {
      return Files.writeString(file, kubeConfigForToken(user, token));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    admin.close();
    server.stop();
  }
}

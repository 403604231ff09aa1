package io.kollect.samples;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.testing.TestApiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;


/**
 * A real kube-apiserver (kube-api-test) for one test class, optionally authenticating
 * ServiceAccount-like users from a static token file so RBAC is enforced on them.
 */
final class ApiServer implements AutoCloseable {
  private final TestApiServer server;

  private ApiServer(TestApiServer server) {
    this.server = server;
  }

  /** An API server that knows only its admin (client-certificate) user; reused across classes. */
  static ApiServer start() {
    return new ApiServer(TestApiServer.builder().reused().start());
  }

  /** An API server with extra configuration, e.g. token users whose RBAC is enforced. */
  static ApiServer start(TestApiServer.Builder config) {
    return new ApiServer(config.start());
  }

  /** A client with cluster-admin rights (client certificate in system:masters). */
  KubernetesClient admin() {
    return server.admin();
  }

  /** Writes a kubeconfig for a bearer-token user of this server: same server and CA, no client cert. */
  Path writeKubeConfigForToken(Path file, String user, String token) {
    try {
      return Files.writeString(file, server.kubeconfigForToken(user, token));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes a kubeconfig of the admin (client-certificate) user, for an operator process. */
  Path writeAdminKubeConfig(Path file) {
    try {
      return Files.writeString(file, server.adminKubeconfigYaml());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}

package io.kollect.operator.cli;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;

/**
 * The demo's second cluster, {@code edge}: another local API server from the same binaries, with
 * objects of its own, that the demo's operator reads as a KollectCluster (the fleet view).
 *
 * <p>The operator reaches it as a remote cluster would be reached: through a kubeconfig Secret
 * holding the server, its CA and a bearer token of a read-only user ({@code kollect-reader}, a
 * static token user of this server bound to a get/list/watch ClusterRole), with no file paths, so
 * the operator's default kubeconfig policy accepts it. The token is new on every run.
 */
final class EdgeCluster implements AutoCloseable {

  /** The {@code cluster} value of the edge cluster's records. */
  static final String NAME = "edge";
  /** Applied on the edge cluster: its reader's RBAC and its Deployments. */
  static final String OBJECTS = "/kollect/demo/edge";
  /** Applied on the demo's own cluster: the KollectCluster and the fleet target. */
  static final String FLEET = "/kollect/demo/fleet.yaml";
  /** The Secret (in the samples' namespace) the KollectCluster reads. */
  static final String SECRET = "edge-kubeconfig";
  private static final String NAMESPACE = "kollect-demo";
  private static final String READER = "kollect-reader";

  private final KubeAPIServer server;
  private final String adminKubeconfig;
  private final String readerKubeconfig;

  private EdgeCluster(KubeAPIServer server, String readerToken) {
    this.server = server;
    this.adminKubeconfig = server.getKubeConfigYaml();
    Config admin = Config.fromKubeconfig(adminKubeconfig);
    this.readerKubeconfig = kubeconfigForToken(admin, readerToken);
  }

  /**
   * Starts the edge API server (its static token file goes to {@code dir}) and applies its
   * objects.
   */
  static EdgeCluster start(Path dir, boolean offline, PrintStream err) throws IOException {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    String token = HexFormat.of().formatHex(secret);
    Path tokenFile = dir.resolve("edge-tokens.csv").toAbsolutePath();
    Files.writeString(tokenFile, token + "," + READER + "," + READER + "\n");
    KubeAPIServer server = LocalApiServer.start(KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withOfflineMode(offline)
        // The user's kubeconfig keeps pointing at the demo's own cluster.
        .withUpdateKubeConfig(false)
        .withApiServerFlag("--token-auth-file", tokenFile.toString())
        .build(), err);
    EdgeCluster edge = new EdgeCluster(server, token);
    try (KubernetesClient client = edge.adminClient()) {
      new ClusterSetup(client).applyDirectory(OBJECTS);
    } catch (RuntimeException e) {
      edge.close();
      throw e;
    }
    return edge;
  }

  /** An admin client of the edge cluster (for the demo's summary). */
  KubernetesClient adminClient() {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(adminKubeconfig)).build();
  }

  /** The admin kubeconfig, for the user to edit the edge cluster's objects. */
  String adminKubeconfig() {
    return adminKubeconfig;
  }

  /**
   * Registers the edge cluster on the demo's own cluster: the kubeconfig Secret, the
   * KollectCluster and the fleet target. Idempotent (the Secret is replaced with this run's token).
   */
  void register(ClusterSetup home) {
    home.apply(new SecretBuilder().withNewMetadata().withName(SECRET).withNamespace(NAMESPACE)
        .endMetadata().withStringData(Map.of("value", readerKubeconfig)).build());
    home.applyResource(FLEET);
  }

  private static String kubeconfigForToken(Config admin, String token) {
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "  - name: " + NAME + "\n"
        + "    cluster:\n"
        + "      server: " + admin.getMasterUrl() + "\n"
        + "      certificate-authority-data: " + caData(admin) + "\n"
        + "contexts:\n"
        + "  - name: " + NAME + "\n"
        + "    context: {cluster: " + NAME + ", user: " + READER + "}\n"
        + "current-context: " + NAME + "\n"
        + "users:\n"
        + "  - name: " + READER + "\n"
        + "    user:\n"
        + "      token: " + token + "\n";
  }

  /** The CA inline: a kubeconfig in a Secret may not name the operator's files. */
  private static String caData(Config admin) {
    if (admin.getCaCertData() != null) {
      return admin.getCaCertData();
    }
    try {
      return Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(admin.getCaCertFile())));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    server.stop();
  }
}

package io.kollect.informers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A real kube-apiserver for one test class, started with what these tests need: a static token
 * for a ServiceAccount-like user (RBAC tests), an audit log of every request received for the
 * resources the tests count, and etcd compaction every 2 s so a watch resumed after a network cut
 * must relist.
 */
final class TestApiServer implements AutoCloseable {

  static final String READER_TOKEN = "kollect-reader-token";
  static final String READER_USER = "system:serviceaccount:kollect:reader";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubeAPIServer server;
  private final Path auditLog;
  private final Config adminConfig;
  final KubernetesClient admin;

  TestApiServer() {
    try {
      Path dir = Files.createTempDirectory("kollect-informers-it");
      Path tokens = dir.resolve("tokens.csv");
      Files.writeString(tokens, READER_TOKEN + "," + READER_USER
          + ",reader-uid,\"system:serviceaccounts,system:serviceaccounts:kollect\"\n");
      Path policy = dir.resolve("audit-policy.yaml");
      Files.writeString(policy, """
          apiVersion: audit.k8s.io/v1
          kind: Policy
          omitStages: ["ResponseStarted", "ResponseComplete", "Panic"]
          rules:
          - level: Metadata
            resources:
            - group: "apps"
              resources: ["deployments"]
            - group: ""
              resources: ["configmaps"]
          - level: None
          """);
      auditLog = dir.resolve("audit.log");
      server = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
          .withApiServerFlag("--token-auth-file", tokens.toString())
          .withApiServerFlag("--audit-policy-file", policy.toString())
          .withApiServerFlag("--audit-log-path", auditLog.toString())
          .withApiServerFlag("--watch-cache=false")
          .withApiServerFlag("--etcd-compaction-interval", "2s")
          .withUpdateKubeConfig(false)
          // the env flag cannot be used: kube-api-test casts its string value to Boolean
          .withOfflineMode(true)
          .build());
      server.start();
      adminConfig = Config.fromKubeconfig(server.getKubeConfigYaml());
      admin = new KubernetesClientBuilder().withConfig(adminConfig).build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return URI.create(adminConfig.getMasterUrl()).getPort();
  }

  /** An admin client that connects through {@code port} (e.g. a {@link TcpProxy}). */
  KubernetesClient adminVia(int port) {
    Config c = new ConfigBuilder(adminConfig).withMasterUrl("https://127.0.0.1:" + port).build();
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  /** A client authenticated as {@link #READER_USER} by bearer token. */
  KubernetesClient reader() {
    Config c = new ConfigBuilder(adminConfig)
        .withClientCertData(null).withClientKeyData(null)
        .withClientCertFile(null).withClientKeyFile(null)
        .withOauthToken(READER_TOKEN)
        .build();
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  void createNamespace(String name) {
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .endMetadata().build()).serverSideApply();
  }

  /** Audit events (stage RequestReceived) whose fields match. */
  List<JsonNode> audit(Predicate<JsonNode> filter) {
    List<JsonNode> out = new ArrayList<>();
    try {
      if (!Files.exists(auditLog)) {
        return out;
      }
      for (String line : Files.readAllLines(auditLog)) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode event = JSON.readTree(line);
        if (filter.test(event)) {
          out.add(event);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Requests with {@code verb} on {@code resource} in {@code namespace} (null: cluster-wide), optionally by {@code user}. */
  long countRequests(String verb, String resource, String namespace, String user) {
    return audit(e -> verb.equals(e.path("verb").asText())
        && resource.equals(e.path("objectRef").path("resource").asText())
        && (namespace == null ? !e.path("objectRef").has("namespace")
            : namespace.equals(e.path("objectRef").path("namespace").asText()))
        && (user == null || user.equals(e.path("user").path("username").asText()))).size();
  }

  /** The matching audit events, one line each, for failure messages. */
  String describe(String verb, String resource) {
    StringBuilder out = new StringBuilder();
    for (JsonNode e : audit(e -> verb.equals(e.path("verb").asText())
        && resource.equals(e.path("objectRef").path("resource").asText()))) {
      out.append(e.path("requestReceivedTimestamp").asText()).append(' ')
          .append(e.path("user").path("username").asText()).append(' ')
          .append(e.path("userAgent").asText()).append(' ')
          .append(e.path("requestURI").asText()).append('\n');
    }
    return out.toString();
  }

  @Override
  public void close() {
    admin.close();
    server.stop();
  }
}

package io.kollect.informers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real kube-apiserver for one IT class, started before its first test and stopped after its
 * last. Register it as a static field: {@code @RegisterExtension static final PerClassApiServer
 * api = new PerClassApiServer();}. It is started with what these tests need: a static token
 * for a ServiceAccount-like user (RBAC tests), an audit log of every request received for the
 * resources the tests count, and by default no watch cache and etcd compaction every 2 s so a
 * watch resumed after a network cut must relist. {@link #withWatchCache()} runs it as clusters
 * do instead (watch cache on, default compaction), where a watch resumes from an older
 * resourceVersion without relisting.
 */
final class PerClassApiServer implements BeforeAllCallback, AfterAllCallback {

  static final String READER_TOKEN = "kollect-reader-token";
  static final String READER_USER = "system:serviceaccount:kollect:reader";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final boolean watchCache;
  private io.kollect.testing.TestApiServer server;
  private Path auditLog;
  /** An admin client; set once the class's tests start. */
  KubernetesClient admin;

  PerClassApiServer() {
    this(false);
  }

  /** A server with the watch cache on and the default etcd compaction, as in clusters. */
  static PerClassApiServer withWatchCache() {
    return new PerClassApiServer(true);
  }

  private PerClassApiServer(boolean watchCache) {
    this.watchCache = watchCache;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    try {
      Path dir = Files.createTempDirectory("kollect-informers-it");
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
      var builder = io.kollect.testing.TestApiServer.builder()
          .tokenUser(READER_TOKEN, READER_USER, "system:serviceaccounts",
              "system:serviceaccounts:kollect")
          .flag("--audit-policy-file", policy.toString())
          .flag("--audit-log-path", auditLog.toString());
      if (!watchCache) {
        builder.flag("--watch-cache=false").flag("--etcd-compaction-interval", "2s");
      }
      server = builder.start();
      admin = server.admin();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return server.port();
  }

  /** An admin client that connects through {@code port} (e.g. a {@code FreezableTcpProxy}). */
  KubernetesClient adminVia(int port) {
    return server.adminVia(port);
  }

  /** A client authenticated as {@link #READER_USER} by bearer token. */
  KubernetesClient reader() {
    return server.clientForToken(READER_TOKEN);
  }

  void createNamespace(String name) {
    server.namespace(name);
  }

  /** Creates a ConfigMap with {@code data} (as the admin). */
  void configMap(String namespace, String name, Map<String, String> data) {
    admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .addToData(data).build()).create();
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

  /** Request URIs of {@code verb} on {@code resource} in {@code namespace}, in arrival order. */
  List<String> requestUris(String verb, String resource, String namespace) {
    return audit(e -> verb.equals(e.path("verb").asText())
        && resource.equals(e.path("objectRef").path("resource").asText())
        && namespace.equals(e.path("objectRef").path("namespace").asText()))
        .stream().map(e -> e.path("requestURI").asText()).toList();
  }

  /** When each request with {@code verb} on {@code resource} in {@code namespace} arrived. */
  List<java.time.Instant> requestTimes(String verb, String resource, String namespace) {
    return audit(e -> verb.equals(e.path("verb").asText())
        && resource.equals(e.path("objectRef").path("resource").asText())
        && namespace.equals(e.path("objectRef").path("namespace").asText()))
        .stream().map(e -> java.time.Instant.parse(e.path("requestReceivedTimestamp").asText()))
        .toList();
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
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
    }
  }
}

package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.operator.KubeClients;
import io.kollect.testing.FreezableTcpProxy;
import io.kollect.testing.TestApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's clients ({@link KubeClients.GzipClientFactory}), its own ({@link
 * KubeClients#create}) and every remote cluster's ({@link RemoteClients}), receive LIST pages
 * gzip-compressed from a real API server: counted on the wire
 * (a loopback proxy in front of the server), a page over the server's 128 KiB threshold costs
 * several times fewer bytes than the same page read by a default fabric8 client, and decodes to
 * the same objects.
 */
class GzipListsIT {

  private static final String NAMESPACE = "gzip-lists";
  private static final int OBJECTS = 300;
  private static TestApiServer server;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    server = TestApiServer.builder().reused().start();
    server.namespace(NAMESPACE);
    String payload = "v".repeat(400);
    for (int i = 0; i < OBJECTS; i++) {
      server.admin().configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
          .withNewMetadata().withName("cm-" + i).addToLabels("app", "gzip").endMetadata()
          .addToData("payload", payload + i).build()).createOr(NonDeletingOperation::update);
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** The bytes a client received for one LIST of the namespace, and the names it decoded. */
  private record Listed(long bytes, List<String> names) {}

  private static Listed list(FreezableTcpProxy proxy, KubernetesClient client) {
    // one request first, so the TLS handshake is not counted with the page
    client.namespaces().withName(NAMESPACE).get();
    long before = proxy.bytesToClients();
    List<String> names = client.configMaps().inNamespace(NAMESPACE).list().getItems().stream()
        .map(HasMetadata::getMetadata).map(m -> m.getName()).sorted().toList();
    return new Listed(proxy.bytesToClients() - before, names);
  }

  private static Listed listWith(Function<Config, KubernetesClient> build) {
    try (FreezableTcpProxy proxy = FreezableTcpProxy.to(server.port());
        KubernetesClient client = build.apply(new ConfigBuilder(server.adminConfig())
            .withMasterUrl("https://127.0.0.1:" + proxy.port()).build())) {
      return list(proxy, client);
    }
  }

  @Test
  void theOperatorsClientsReceiveListPagesGzipCompressed() throws Exception {
    Listed plain = listWith(config -> new KubernetesClientBuilder().withConfig(config).build());
    Listed remote;
    try (RemoteClients clients = new RemoteClients(50, 100)) {
      remote = listWith(clients::client);
    }
    Listed own;
    try (FreezableTcpProxy proxy = FreezableTcpProxy.to(server.port())) {
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, server.adminKubeconfigYaml().replaceAll(
          "server: https://[^\\n]*", "server: https://127.0.0.1:" + proxy.port()));
      try (KubernetesClient client = KubeClients.create(Optional.of(kubeconfig),
          Optional.empty(), 50, 100)) {
        own = list(proxy, client);
      }
    }

    assertThat(plain.names()).hasSize(OBJECTS);
    assertThat(remote.names()).isEqualTo(plain.names());
    assertThat(own.names()).isEqualTo(plain.names());
    assertThat(plain.bytes()).as("an uncompressed page is over the server's threshold")
        .isGreaterThan(128 * 1024);
    assertThat(remote.bytes() * 4).as("remote clusters' client: %s against %s bytes",
        remote.bytes(), plain.bytes()).isLessThan(plain.bytes());
    assertThat(own.bytes() * 4).as("the operator's own client: %s against %s bytes",
        own.bytes(), plain.bytes()).isLessThan(plain.bytes());
  }
}

package io.kollect.bench;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.testing.TestApiServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The remote API servers of the multi-cluster scenarios (p7, p8): each holds the same ConfigMaps
 * and Services ({@link ClustersBench#fill}), and the home cluster holds each one's kubeconfig as
 * the Secret a KollectCluster names ({@link ClustersBench#secretName}). Closing stops them all.
 */
final class RemoteFleet implements AutoCloseable {

  private final List<TestApiServer> servers = new ArrayList<>();
  private final List<PlainApi> apis = new ArrayList<>();

  private RemoteFleet() {}

  /** Starts {@code count} servers with {@code objects} ConfigMaps and Services each. */
  static RemoteFleet start(BenchCluster home, int count, int objects) throws Exception {
    RemoteFleet fleet = new RemoteFleet();
    try {
      for (int i = 0; i < count; i++) {
        TestApiServer remote = TestApiServer.builder().tokenUser(ClustersBench.TOKEN,
            "kollect-bench-remote", "system:masters").start();
        fleet.servers.add(remote);
        ClustersBench.fill(remote, objects);
        fleet.apis.add(ClustersBench.api(remote));
        home.admin().secrets().inNamespace(Fixture.CONTROL_NAMESPACE).resource(new SecretBuilder()
            .withNewMetadata().withName(ClustersBench.secretName(i)).endMetadata()
            .withStringData(Map.of("value", remote.kubeconfigForToken("kollect-bench",
                ClustersBench.TOKEN))).build()).createOr(NonDeletingOperation::update);
      }
      return fleet;
    } catch (Exception | Error e) {
      fleet.close();
      throw e;
    }
  }

  /** A plain client per server, in start order. */
  List<PlainApi> apis() {
    return apis;
  }

  @Override
  public void close() {
    servers.forEach(TestApiServer::close);
  }
}

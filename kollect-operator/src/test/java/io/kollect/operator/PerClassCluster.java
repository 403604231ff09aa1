package io.kollect.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.cluster.TestCluster;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real API server with the Kollect CRDs for an IT class, started before its first test (and
 * before the class's own {@code @BeforeAll}, which arranges what the operator should find) and
 * stopped after its last, with the namespace {@code kollect-system} and the test's namespaces
 * ({@link #bare()}: none); the operator started with {@link #start} is stopped first. Register it
 * as a static field: {@code @RegisterExtension static final PerClassCluster api =
 * PerClassCluster.withNamespaces("team");}.
 */
public final class PerClassCluster implements BeforeAllCallback, AfterAllCallback {

  private final List<String> namespaces;
  private TestCluster cluster;
  private TestOperator operator;

  private PerClassCluster(List<String> namespaces) {
    this.namespaces = namespaces;
  }

  /** A server with {@code kollect-system} and these namespaces. */
  public static PerClassCluster withNamespaces(String... namespaces) {
    List<String> all = new ArrayList<>(List.of("kollect-system"));
    all.addAll(List.of(namespaces));
    return new PerClassCluster(all);
  }

  /** A server with the Kollect CRDs and no namespace of the tests (manifest checks). */
  public static PerClassCluster bare() {
    return new PerClassCluster(List.of());
  }

  public TestCluster cluster() {
    return cluster;
  }

  /** The admin client. */
  public KubernetesClient client() {
    return cluster.client();
  }

  /** Starts the test operator with the usual test configuration. */
  public TestOperator start() {
    return start(TestOperator.on(cluster));
  }

  /** Starts {@code configured}; it is stopped after the class's last test. */
  public TestOperator start(TestOperator configured) {
    operator = configured;
    return configured.start();
  }

  public TestOperator operator() {
    return operator;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster = TestCluster.start();
    namespaces.forEach(cluster::namespace);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}

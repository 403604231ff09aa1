package io.kollect.core;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real API server for an IT class (started before its first test, stopped after its last),
 * and the engines each test builds, closed when that test ends so no informer outlives it.
 * Register as a static field: {@code @RegisterExtension static final PerClassApiServer api = ...}.
 */
final class PerClassApiServer implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

  private TestCluster cluster;
  private final List<KollectEngine> engines = new ArrayList<>();

  TestCluster cluster() {
    return cluster;
  }

  /** Closes {@code engine} when the current test ends; returns it. */
  KollectEngine closedAfterTest(KollectEngine engine) {
    engines.add(engine);
    return engine;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster = TestCluster.start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    engines.forEach(KollectEngine::close);
    engines.clear();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      cluster.close();
    }
  }
}

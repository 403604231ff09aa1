package io.kollect.operator.status;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.core.KollectEngine;
import io.kollect.operator.metrics.OperatorMetrics;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * A feed's context without a cluster, for unit tests of the feeds: the engine is built but never
 * started (its client points nowhere and is never called), this instance leads, the namespace
 * {@code ignored} is not handled, and every problem reported is kept as {@code "reason:
 * message"} in {@link #events()}.
 */
public final class OfflineFeedContext implements AutoCloseable {

  private final KubernetesClient client = new KubernetesClientBuilder()
      .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build()).build();
  private final KollectEngine engine = KollectEngine.builder(client).build();
  private final List<String> events = new ArrayList<>();
  private final FeedContext context = new FeedContext(client, engine,
      new StatusWriter(client, Runnable::run),
      new ProblemReports((o, reason, message) -> events.add(reason + ": " + message),
          Runnable::run, () -> true),
      new OperatorMetrics(), () -> true, ns -> !"ignored".equals(ns), 0, Clock.systemUTC());

  public FeedContext context() {
    return context;
  }

  public KubernetesClient client() {
    return client;
  }

  /** The problems reported, in order. */
  public List<String> events() {
    return events;
  }

  @Override
  public void close() {
    engine.close();
    client.close();
  }
}

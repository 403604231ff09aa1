package io.kollect.core.examples;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.ClusterConnections;
import io.kollect.core.ClusterHealth;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.export.SinkOptions;
import io.kollect.export.StdoutSink;
import io.kollect.extract.ProfileLoader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

// example:begin
/**
 * Inventories the Deployments of namespace {@code shop} in two clusters with one engine: each
 * record names the cluster it comes from, and the target's status has one part per cluster.
 */
public final class MultiClusterInventoryExample {

  static final String PROFILE = """
      resources:
      - group: apps
        version: v1
        kind: Deployment
        fields:
        - name: replicas
          path: .spec.replicas
      """;

  /**
   * Starts an engine whose own client reads nothing here; {@code east} and {@code west} are the
   * clusters the target reads (the caller owns and closes their clients).
   */
  public static KollectEngine start(KubernetesClient own, KubernetesClient east,
      KubernetesClient west, OutputStream out, PrintStream log) {
    KollectEngine engine = KollectEngine.builder(own)
        .cluster("management")
        .clusterConnections(ClusterConnections.of(Map.of("east", east, "west", west)))
        .build();
    engine.addStatusListener((TargetStatus status) -> status.clusters().forEach(part ->
        log.println(status.id() + " cluster=" + part.name() + " ready=" + part.ready()
            + " objects=" + part.objects())));
    engine.addClusterHealthListener((ClusterHealth health) -> log.println("cluster " + health.cluster() + " " + health.state() + " "
            + health.serverVersion()));
    engine.putProfile("deployments", ProfileLoader.parse(PROFILE, "deployments.yaml"));
    engine.putSink(StdoutSink.to("stdout", out), SinkOptions.defaults());
    engine.putTarget(TargetSpec.builder(new TargetId("fleet", "shop-deployments"), "deployments")
        .scope(TargetScope.namespaces("shop"))
        .sinkRefs(List.of("stdout"))
        .clusters(List.of("east", "west"))   // one unit of work per cluster
        .build());
    engine.start();
    return engine;
  }
}
// example:end

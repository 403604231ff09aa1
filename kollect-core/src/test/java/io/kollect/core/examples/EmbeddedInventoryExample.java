package io.kollect.core.examples;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.export.SinkOptions;
import io.kollect.export.StdoutSink;
import io.kollect.extract.ProfileLoader;
import io.kollect.extract.ProfileSpec;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

// example:begin
/**
 * Embeds the Kollect engine in a JVM program: every Deployment in namespace {@code shop} becomes a
 * JSON line on {@code out} (replicas and images), re-sent only when one of those changes, with a
 * DELETE line when the Deployment goes away.
 */
public final class EmbeddedInventoryExample {

  static final String PROFILE = """
      resources:
      - group: apps
        version: v1
        kind: Deployment
        fields:
        - name: replicas
          path: .spec.replicas
        - name: images
          path: .spec.template.spec.containers[*].image
        labels: ["app.kubernetes.io/*"]
      """;

  /** Starts an engine that writes the inventory of namespace {@code shop} to {@code out}. */
  public static KollectEngine start(KubernetesClient client, OutputStream out, PrintStream log) {
    ProfileSpec profile = ProfileLoader.parse(PROFILE, "deployments.yaml");
    KollectEngine engine = KollectEngine.builder(client)
        .cluster("example")
        .build();
    engine.addStatusListener((TargetStatus status) -> log.println(
        status.id() + " ready=" + status.ready() + " objects=" + status.objectCounts()));
    engine.putProfile("deployments", profile);
    engine.putSink(StdoutSink.to("stdout", out), SinkOptions.defaults());
    engine.putTarget(new TargetSpec(
        new TargetId("example", "shop-deployments"),
        1,                                  // generation, echoed in status
        "deployments",                      // profile
        TargetScope.namespaces("shop"),
        List.of("stdout"),                  // sinks
        false));                            // no in-cluster inventory objects
    engine.start();
    return engine;
  }

  /** Runs against the current kubeconfig until interrupted (Ctrl-C). */
  public static void main(String[] args) throws InterruptedException {
    try (KubernetesClient client = new KubernetesClientBuilder().build();
        KollectEngine engine = start(client, System.out, System.err)) {
      Thread.currentThread().join();
    }
  }
}
// example:end

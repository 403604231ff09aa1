package io.kollect.operator.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.sink.SinkTranslation;
import io.kollect.operator.status.FeedContext;
import io.kollect.operator.status.ProblemReports;
import io.kollect.operator.status.StatusWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The custom resources into the engine, without a cluster: the engine is built but never started
 * (its client points nowhere and is never called), the watches are not started, and the feed's
 * handlers are called as the watches would.
 */
class CustomResourceFeedTest {

  private final KubernetesClient client = new KubernetesClientBuilder()
      .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build()).build();
  private final KollectEngine engine = KollectEngine.builder(client).build();
  private final List<String> events = new ArrayList<>();
  private final List<String> hooks = new ArrayList<>();
  private final CustomResourceFeed feed = CustomResourceFeed.builder(new FeedContext(client,
          engine, new StatusWriter(client, Runnable::run),
          new ProblemReports((o, reason, message) -> events.add(reason + ": " + message),
              Runnable::run, () -> true),
          new OperatorMetrics(), () -> true, ns -> !"ignored".equals(ns), 0, Clock.systemUTC()))
      .sinkTranslation(new SinkTranslation(client))
      .targetHooks(new CustomResourceFeed.TargetHooks() {
        @Override
        public void withoutInventory(TargetId id) {
          hooks.add("without inventory " + id);
        }

        @Override
        public void deleted(TargetId id) {
          hooks.add("deleted " + id);
        }
      })
      .extraSinks(List.of("stdout"))
      .defaultServiceAccount("default")
      .build();

  @AfterEach
  void close() {
    // The feed's kafka topic checks run on threads of their own: stop them with the test.
    feed.close();
    engine.close();
    client.close();
  }

  private static KollectTarget target(String ns, String name, Boolean writeInventory) {
    KollectTarget t = new KollectTarget();
    t.getMetadata().setNamespace(ns);
    t.getMetadata().setName(name);
    t.getMetadata().setGeneration(1L);
    t.setSpec(new KollectTargetSpec("p", null, List.of("hook"), writeInventory, null));
    return t;
  }

  @Test
  void aTargetIsHandedToTheEngineAndOneWithoutInventoryTellsTheSweep() {
    feed.onTarget(target("team", "plain", false));
    feed.onTarget(target("team", "writes", true));
    assertThat(feed.engineTargets())
        .containsExactlyInAnyOrder(new TargetId("team", "plain"), new TargetId("team", "writes"));
    assertThat(hooks).containsExactly("without inventory team/plain");
  }

  @Test
  void aTargetInANamespaceNotHandledIsIgnored() {
    feed.onTarget(target("ignored", "t", false));
    assertThat(feed.engineTargets()).isEmpty();
    assertThat(hooks).isEmpty();
  }

  @Test
  void aDeletedTargetLeavesTheEngineAndItsStatusAndInventoryGo() {
    feed.onTarget(target("team", "t", true));
    feed.onTargetDeleted(target("team", "t", true));
    assertThat(feed.engineTargets()).isEmpty();
    assertThat(hooks).containsExactly("deleted team/t", "without inventory team/t");
  }

  @Test
  void aSinkThatCannotBeBuiltIsReportedOnceNamingTheField() {
    KollectSink sink = new KollectSink();
    sink.getMetadata().setNamespace("team");
    sink.getMetadata().setName("hook");
    sink.setSpec(new KollectSinkSpec(null, null, null, null, null));
    feed.onSink(sink);
    feed.onSink(sink);
    assertThat(events).containsExactly(
        "InvalidSink: KollectSink team/hook: spec.type: is missing (stdout, file, http, kafka or postgres)");
  }
}

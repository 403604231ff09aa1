package io.kollect.operator.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.core.TargetId;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import io.kollect.operator.status.OfflineFeedContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * KollectTargets into the engine, without a cluster ({@link OfflineFeedContext}): the watch is not
 * started, and the feed's handlers are called as the watch would.
 */
class TargetFeedTest {

  private final OfflineFeedContext offline = new OfflineFeedContext();
  private final List<String> hooks = new ArrayList<>();
  private final TargetFeed feed = TargetFeed.builder(offline.context())
      .targetHooks(new TargetFeed.TargetHooks() {
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
    feed.close();
    offline.close();
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
}

package io.kollect.informers;

import static io.kollect.informers.Fixtures.CONFIG_MAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.informers.ResourceEvent.Kind;
import io.kollect.testing.FreezableTcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The watch liveness rule and paged lists, on a real API server run as clusters run it (watch
 * cache on), through a loopback proxy the tests can silence. A short window (5 s) keeps the tests
 * short; the rule scales with it.
 */
class WatchLivenessIT {

  private static final Duration WINDOW = Duration.ofSeconds(5);
  /** How long the client waits on a silent watch: the window plus its grace. */
  private static final Duration GIVE_UP = WINDOW.plus(WatchLiveness.grace(WINDOW));

  @RegisterExtension static final PerClassApiServer api = PerClassApiServer.withWatchCache();

  private static void configMap(String namespace, String name, String value) {
    api.configMap(namespace, name, Map.of("v", value));
  }

  private static InformerOptions options(CountingMetrics metrics) {
    return InformerOptions.defaults().withWatchLiveness(WINDOW).withMetrics(metrics);
  }

  @Test
  void aWatchOnAConnectionThatGoesSilentIsReportedStalledAndReplacedSoLaterChangesArriveWithinTwoWindows()
      throws Exception {
    api.createNamespace("silent");
    for (int i = 0; i <= 30; i++) {
      configMap("silent", "cm-" + i, "0");
    }
    CountingMetrics metrics = new CountingMetrics();
    try (FreezableTcpProxy proxy = FreezableTcpProxy.to(api.port());
        KubernetesClient viaProxy = api.adminVia(proxy.port());
        InformerRegistry registry = new InformerRegistry(viaProxy, options(metrics))) {
      RecordingListener events = new RecordingListener();
      InformerLease lease = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("silent"), null,
          Set.of(), null), events);
      await().atMost(Duration.ofSeconds(30)).until(lease::hasSynced);
      assertThat(lease.list()).hasSize(31);
      // the watch is established and delivering: a new object arrives through it
      configMap("silent", "probe", "0");
      await().atMost(Duration.ofSeconds(30)).until(() -> events.saw(Kind.ADDED, "silent", "probe")
          && events.events.stream().filter(e -> e.kind() == Kind.ADDED).count() == 32);
      int seenBefore = events.events.size();
      List<StalledWatch> stalledSeen = new CopyOnWriteArrayList<>();

      // a partition: nothing forwarded, nothing closed, new connections silent too
      proxy.freeze();
      Instant silenced = Instant.now();
      await().atMost(GIVE_UP.multipliedBy(3)).until(() -> {
        stalledSeen.addAll(registry.stalledWatches());
        return !lease.status().stalled().isEmpty()
            && events.statuses.stream().anyMatch(s -> !s.stalled().isEmpty());
      });
      assertThat(lease.status().stalled()).singleElement().satisfies(s -> {
        assertThat(s.namespace()).isEqualTo("silent");
        assertThat(s.silentSince()).isBefore(Instant.now().minus(GIVE_UP));
        assertThat(s.reason()).startsWith("liveness");
      });
      assertThat(stalledSeen).isNotEmpty().allSatisfy(s -> {
        assertThat(s.type()).isEqualTo(CONFIG_MAP);
        assertThat(s.namespace()).isEqualTo("silent");
      });
      assertThat(metrics.get(CONFIG_MAP + " watchRestarted liveness")).isPositive();
      // the scenario's 20 s of silence, whatever the checks above took
      Thread.sleep(Math.max(0, Duration.between(Instant.now(), silenced.plusSeconds(20)).toMillis()));

      // new connections flow again; the ones that existed stay silent for good
      proxy.thaw();
      Instant thawed = Instant.now();
      for (int i = 0; i < 30; i++) {
        api.admin.configMaps().inNamespace("silent").withName("cm-" + i)
            .edit(cm -> new ConfigMapBuilder(cm).addToData("v", "1").build());
      }
      for (int i = 0; i < 30; i++) {
        String name = "cm-" + i;
        await().atMost(GIVE_UP.multipliedBy(3))
            .until(() -> events.saw(Kind.UPDATED, "silent", name));
      }
      Duration took = Duration.between(thawed, Instant.now());
      // one window for the attempt in flight at the thaw to be given up, one for fabric8's
      // reconnect backoff (1, 2, 4 s after three failed attempts in 20 s)
      assertThat(took).as("changes arrived %s after the network returned", took)
          .isLessThanOrEqualTo(GIVE_UP.multipliedBy(2));
      await().atMost(GIVE_UP).until(() -> lease.status().stalled().isEmpty()
          && registry.stalledWatches().isEmpty());

      // every patched object once, nothing re-sent for the unchanged one, no relist re-adds
      List<ResourceEvent> after = events.events.subList(seenBefore, events.events.size());
      assertThat(after).allMatch(e -> e.kind() == Kind.UPDATED);
      assertThat(after.stream().map(ResourceEvent::name).distinct()).hasSize(30)
          .doesNotContain("cm-30", "probe");
      assertThat(after).hasSize(30);
      assertThat(lease.list()).hasSize(32)
          .allSatisfy(cm -> assertThat(cm.<String>get("data", "v")).isEqualTo(
              Set.of("cm-30", "probe").contains(cm.getMetadata().getName()) ? "0" : "1"));
    }
  }

  @Test
  void aQuietHealthyWatchCostsOneWatchRequestPerWindowWithoutRelistOrRedelivery() throws Exception {
    api.createNamespace("quiet");
    for (int i = 0; i < 3; i++) {
      configMap("quiet", "q-" + i, "0");
    }
    CountingMetrics metrics = new CountingMetrics();
    try (InformerRegistry registry = new InformerRegistry(api.admin, options(metrics))) {
      RecordingListener events = new RecordingListener();
      InformerLease lease = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("quiet"), null,
          Set.of(), null), events);
      await().atMost(Duration.ofSeconds(30)).until(() -> lease.hasSynced() && events.events.size() == 3);
      long lists = api.countRequests("list", "configmaps", "quiet", null);
      long watches = api.countRequests("watch", "configmaps", "quiet", null);
      int seen = events.events.size();

      // Four windows: enough for the count to tell one watch per window (4 or 5 here, each
      // re-opened as the server ends it) from a churned watch (many more) or none.
      Duration quiet = WINDOW.multipliedBy(4);
      Thread.sleep(quiet.toMillis());

      long watchRequests = api.countRequests("watch", "configmaps", "quiet", null) - watches;
      // the server ends each watch after one window; the client re-opens it at once
      assertThat(watchRequests).as(() -> api.describe("watch", "configmaps"))
          .isBetween(quiet.dividedBy(WINDOW.plusSeconds(2)), quiet.dividedBy(WINDOW) + 1);
      // Re-opened at once, not after fabric8's reconnect interval (at least 1 s): changes made
      // between two watches would otherwise wait for the next one. One quick re-open proves it
      // (fabric8 alone never re-opens within the window plus 1 s); a loaded machine may delay
      // some, not all four.
      List<Instant> opened = api.requestTimes("watch", "configmaps", "quiet");
      List<Long> spacing = new java.util.ArrayList<>();
      for (int i = 1; i < opened.size(); i++) {
        spacing.add(Duration.between(opened.get(i - 1), opened.get(i)).toMillis());
      }
      assertThat(spacing).as(() -> api.describe("watch", "configmaps"))
          .anyMatch(ms -> ms < WINDOW.toMillis() + 500);
      assertThat(api.requestUris("watch", "configmaps", "quiet"))
          .allMatch(uri -> uri.contains("timeoutSeconds=" + WINDOW.toSeconds()));
      assertThat(api.countRequests("list", "configmaps", "quiet", null)).isEqualTo(lists);
      assertThat(events.events).hasSize(seen);
      assertThat(events.statuses).allMatch(s -> s.stalled().isEmpty());
      assertThat(metrics.get(CONFIG_MAP + " watchRestarted timeout")).isPositive();
      assertThat(metrics.counters.keySet())
          .noneMatch(k -> k.contains("liveness") || k.contains("watchRestarted error")
              || k.contains("watchRestarted gone"));
    }
  }

  @Test
  void anInformerListsInPagesOfTheConfiguredSize() {
    api.createNamespace("paged");
    for (int i = 0; i < 25; i++) {
      configMap("paged", "p-" + i, "0");
    }
    try (InformerRegistry registry = new InformerRegistry(api.admin,
        options(new CountingMetrics()).withListPageSize(10))) {
      InformerLease lease = registry.lease(new LeaseRequest(CONFIG_MAP, Set.of("paged"), null,
          Set.of(), null), new RecordingListener());
      await().atMost(Duration.ofSeconds(30)).until(lease::hasSynced);
      assertThat(lease.list()).hasSize(25);
      List<String> lists = api.requestUris("list", "configmaps", "paged");
      assertThat(lists).hasSize(3).allMatch(uri -> uri.contains("limit=10"));
      assertThat(lists.subList(1, 3)).allMatch(uri -> uri.contains("continue="));
    }
  }
}

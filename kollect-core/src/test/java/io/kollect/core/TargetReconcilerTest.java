package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.export.Exporter;
import io.kollect.export.InventorySink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceType;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One reconcile at a time against an in-memory informer cache the test controls (what it holds,
 * whether it is synced), with the real exporter and a recording sink.
 */
class TargetReconcilerTest {

  static final ResourceType CM = new ResourceType("", "v1", "ConfigMap");

  /**
   * A shared informer cache of ConfigMaps as the test wants it to be: which objects, whether
   * synced, which {@code data} keys its projection keeps (all when {@code null}) and which version
   * of the projection it reports, and its silent watches. Like an informer it tells its leases'
   * listeners about every change ({@link #put}, {@link #remove}, {@link #statusChanged}).
   */
  static final class Cache {
    final Map<String, GenericKubernetesResource> objects = new TreeMap<>();
    final List<LeaseListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    boolean synced = true;
    Set<String> keptKeys;
    long projectionVersion;
    List<LeaseSignals.SilentWatch> stalled = List.of();
    int rv;
    int lists;

    /** Tells the listeners that the lease status changed (sync, projection, stalled watches). */
    void statusChanged() {
      for (LeaseListener l : listeners) {
        l.onStatusChange(new LeaseStatus(CM, true, synced, List.of()));
      }
    }

    void synced(boolean synced) {
      this.synced = synced;
      statusChanged();
    }

    void remove(String name) {
      GenericKubernetesResource gone = objects.remove(name);
      if (gone != null) {
        for (LeaseListener l : listeners) {
          l.onEvent(new io.kollect.informers.ResourceEvent(
              io.kollect.informers.ResourceEvent.Kind.DELETED, CM, "ns", name, gone));
        }
      }
    }

    private GenericKubernetesResource project(GenericKubernetesResource o) {
      if (keptKeys == null) {
        return o;
      }
      @SuppressWarnings("unchecked")
      Map<String, String> data = new TreeMap<>((Map<String, String>) o.get("data"));
      data.keySet().retainAll(keptKeys);
      return new GenericKubernetesResourceBuilder(o).addToAdditionalProperties("data", data)
          .build();
    }

    List<GenericKubernetesResource> projected() {
      return objects.values().stream().map(this::project).toList();
    }

    void put(String name, Map<String, String> data) {
      GenericKubernetesResource before = objects.put(name, new GenericKubernetesResourceBuilder()
          .withApiVersion("v1").withKind("ConfigMap").withNewMetadata().withName(name)
          .withNamespace("ns").withUid("uid-" + name)
          .withResourceVersion(Integer.toString(++rv)).endMetadata()
          .addToAdditionalProperties("data", data).build());
      for (LeaseListener l : listeners) {
        l.onEvent(new io.kollect.informers.ResourceEvent(before == null
            ? io.kollect.informers.ResourceEvent.Kind.ADDED
            : io.kollect.informers.ResourceEvent.Kind.UPDATED, CM, "ns", name,
            project(objects.get(name))));
      }
    }
  }

  record CacheLease(Cache cache, LeaseRequest request) implements InformerLease {
    @Override
    public List<GenericKubernetesResource> list() {
      cache.lists++;
      return cache.projected();
    }

    @Override
    public GenericKubernetesResource get(String namespace, String name) {
      return cache.projected().stream()
          .filter(o -> java.util.Objects.equals(o.getMetadata().getNamespace(), namespace)
              && o.getMetadata().getName().equals(name))
          .findFirst().orElse(null);
    }

    @Override
    public boolean hasSynced() {
      return cache.synced;
    }

    @Override
    public LeaseStatus status() {
      return new LeaseStatus(request.type(), true, cache.synced, List.of());
    }

    @Override
    public void close() {}
  }

  private final Cache cache = new Cache();
  private final Map<String, ProfileVersion> profiles = new TreeMap<>();
  private final RecordingSink sink = new RecordingSink("rec");
  private final Exporter exporter = Exporter.builder().build();
  private final RequestedProjections projections = new RequestedProjections();
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final TargetReconciler reconciler;

  TargetReconcilerTest() {
    exporter.addSink(sink, SinkOptions.defaults().withLinger(Duration.ZERO));
    TargetReconciler.Inputs inputs = new TargetReconciler.Inputs() {
      @Override
      public ProfileVersion profile(String name) {
        return profiles.get(name);
      }

      @Override
      public boolean sinkConfigured(String name) {
        return name.equals("rec") || name.equals("flaky");
      }

      @Override
      public boolean exportEnabled() {
        return true;
      }

      @Override
      public InformerLease lease(LeaseRequest request, LeaseListener listener) {
        cache.listeners.add(listener);
        return new CacheLease(cache, request);
      }
    };
    reconciler = TargetReconciler.builder("c", inputs, exporter,
            new WorkQueue<>(RateLimiter.controllerDefault(Duration.ofMillis(1),
                Duration.ofSeconds(1), 100, 100, RateLimiter.Ticker.SYSTEM),
                RateLimiter.Ticker.SYSTEM))
        .view(new InventorySink("view"))
        .toJson(obj -> ClientJson.toTree(serialization, obj))
        .projections(projections)
        .signals(new LeaseSignals() {
          @Override
          public long cachedProjectionVersion(LeaseStatus status) {
            return cache.projectionVersion;
          }

          @Override
          public List<SilentWatch> stalledWatches(LeaseStatus status) {
            return cache.stalled;
          }
        })
        .build();
  }

  @AfterEach
  void close() {
    exporter.close();
  }

  private void profile(String name, String key) {
    ProfileSpec spec = new ProfileSpec(List.of(new ResourceRule("", "v1", "ConfigMap",
        List.of(FieldRule.of(key, ".data." + key)), List.of(), List.of(), List.of(), false,
        false)));
    profiles.put(name, new ProfileVersion(spec, ProfileCompiler.compile(name, spec), null));
  }

  private static TargetRuntime target(String name, String profile) {
    return target(name, profile, List.of("rec"));
  }

  private static TargetRuntime target(String name, String profile, List<String> sinks) {
    return new TargetRuntime(TargetRuntime.Definition.of(new TargetSpec(new TargetId("ns", name),
        1, profile, TargetScope.everything(), sinks, false)));
  }

  /** A sink whose writes fail with a named cause while {@code failing}, or refuse one key. */
  static final class FlakySink implements io.kollect.export.Sink {
    volatile boolean failing;
    volatile String refuse;
    final java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public String name() {
      return "flaky";
    }

    @Override
    public void write(List<io.kollect.extract.Record> batch) throws io.kollect.export.SinkException {
      writes.incrementAndGet();
      if (failing) {
        throw io.kollect.export.SinkException.retryable("POST http://127.0.0.1:9/x: HTTP 503", null);
      }
      for (io.kollect.extract.Record r : batch) {
        if (r.name().equals(refuse)) {
          throw new io.kollect.export.RecordsRejectedException(List.of(
              new io.kollect.export.Rejection(r.key(), "HTTP 413: record of 2000000 bytes")));
        }
      }
    }
  }

  @Test
  void aSinkThatKeepsFailingMakesTheTargetNotReadyNamingTheSinkAndOneHiccupDoesNot() {
    FlakySink flaky = new FlakySink();
    exporter.addSink(flaky, SinkOptions.defaults().withLinger(Duration.ZERO)
        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(5)));
    profile("p", "a");
    cache.put("one", Map.of("a", "1"));
    TargetRuntime rt = target("t", "p", List.of("rec", "flaky"));
    TargetStatus healthy = reconciler.reconcile(rt);
    rt.status = healthy;
    org.awaitility.Awaitility.await().until(() -> exporter.deliveryStatus("ns/t", "flaky")
        .map(d -> d.lastAcknowledged() != null && d.pending() == 0).orElse(false));
    assertThat(reconciler.reconcile(rt).ready()).isTrue();

    flaky.failing = true;
    cache.put("one", Map.of("a", "2"));
    rt.status = reconciler.reconcile(rt);
    org.awaitility.Awaitility.await().until(() -> exporter.deliveryStatus("ns/t", "flaky")
        .map(d -> d.consecutiveFailures() >= DeliveryHealth.FAILING_ATTEMPTS).orElse(false));
    TargetStatus failing = reconciler.reconcile(rt);
    assertThat(failing.ready()).isFalse();
    assertThat(failing.condition(Condition.READY).reason()).isEqualTo("DeliveryFailing");
    assertThat(failing.condition(Condition.READY).message()).startsWith("sink flaky keeps failing")
        .contains("POST http://127.0.0.1:9/x: HTTP 503");
    assertThat(failing.deliveries()).containsKeys("rec", "flaky");
    assertThat(failing.deliveries().get("flaky").pending()).isEqualTo(1);
    assertThat(failing.deliveries().get("rec").failing()).isFalse();

    flaky.failing = false;
    org.awaitility.Awaitility.await().until(() -> exporter.deliveryStatus("ns/t", "flaky")
        .map(d -> !d.failing() && d.pending() == 0).orElse(false));
    assertThat(reconciler.reconcile(rt).ready()).isTrue();

    // one failure followed by success does not reach the threshold
    assertThat(DeliveryHealth.failing(new io.kollect.export.DeliveryStatus(null, 1, 1,
        java.time.Instant.now(), "x", List.of()), java.time.Instant.now())).isFalse();
    assertThat(DeliveryHealth.failing(new io.kollect.export.DeliveryStatus(null, 1, 1,
        java.time.Instant.now().minusSeconds(61), "x", List.of()), java.time.Instant.now())).isTrue();
  }

  @Test
  void aRecordTheSinkRefusesForGoodDegradesTheTargetNamingItWhileTheRestIsDelivered() {
    FlakySink flaky = new FlakySink();
    flaky.refuse = "big";
    exporter.addSink(flaky, SinkOptions.defaults().withLinger(Duration.ZERO));
    profile("p", "a");
    cache.put("big", Map.of("a", "x"));
    cache.put("small", Map.of("a", "y"));
    TargetRuntime rt = target("t", "p", List.of("flaky"));
    rt.status = reconciler.reconcile(rt);
    org.awaitility.Awaitility.await().until(() -> exporter.deliveryStatus("ns/t", "flaky")
        .map(d -> !d.rejected().isEmpty() && d.pending() == 0).orElse(false));
    TargetStatus st = reconciler.reconcile(rt);
    assertThat(st.ready()).isTrue();
    assertThat(st.condition(Condition.DEGRADED).reason()).isEqualTo("RecordsRejected");
    assertThat(st.condition(Condition.DEGRADED).message())
        .contains("sink flaky refused 1 record").contains("/ConfigMap/ns/big")
        .contains("HTTP 413");
  }

  private TargetStatus reconcile(TargetRuntime rt) {
    TargetStatus s = reconciler.reconcile(rt);
    rt.status = s;
    assertThat(exporter.awaitIdle(Duration.ofSeconds(10))).isTrue();
    return s;
  }

  @Test
  void whileACacheIsNotSyncedUpsertsStreamButNoRecordLeavesAndTheTargetIsNotReadyUntilItSyncs() {
    profile("p", "a");
    cache.put("one", Map.of("a", "1"));
    TargetRuntime rt = target("t", "p");
    assertThat(reconcile(rt).ready()).isTrue();
    assertThat(sink.size()).isEqualTo(1);

    cache.synced(false); // e.g. a wider projection being listed
    assertThat(reconcile(rt).condition(Condition.READY).reason()).isEqualTo("NotSynced");
    cache.put("one", Map.of("a", "2"));
    cache.put("two", Map.of("a", "3"));
    assertThat(reconcile(rt).condition(Condition.READY).reason()).isEqualTo("NotSynced");
    // what the informers delivered goes out at once
    assertThat(sink.of("ns", "one")).hasSize(2);
    assertThat(sink.of("ns", "two")).hasSize(1);
    cache.remove("one");
    TargetStatus waiting = reconcile(rt);
    assertThat(waiting.ready()).isFalse();
    assertThat(waiting.condition(Condition.READY).reason()).isEqualTo("NotSynced");
    // the absence of "one" proves nothing yet
    assertThat(sink.ops(io.kollect.extract.Op.DELETE)).isEmpty();
    assertThat(waiting.objectCounts()).containsEntry("v1/ConfigMap", 2);

    cache.synced(true);
    assertThat(reconcile(rt).ready()).isTrue();
    assertThat(sink.of("ns", "one")).extracting(r -> r.op().name())
        .containsExactly("UPSERT", "UPSERT", "DELETE");
    assertThat(reconcile(rt).objectCounts()).containsEntry("v1/ConfigMap", 1);
  }

  @Test
  void aTypesCountDropsToZeroWhenItsLastObjectGoes() {
    profile("p", "a");
    cache.put("one", Map.of("a", "1"));
    TargetRuntime rt = target("t", "p");
    assertThat(reconcile(rt).objectCounts()).isEqualTo(Map.of("v1/ConfigMap", 1));
    cache.remove("one");
    assertThat(reconcile(rt).objectCounts()).isEqualTo(Map.of("v1/ConfigMap", 0));
  }

  @Test
  void anotherTargetWideningTheProjectionOfATypeInvalidatesMemoisedExtractionsOfThatType() {
    profile("a", "a");
    profile("b", "b");
    cache.put("one", Map.of("a", "1", "b", "2"));
    TargetRuntime first = target("first", "a");
    reconcile(first);
    reconcile(first);
    assertThat(first.records.extractions()).isEqualTo(1);

    TargetRuntime second = target("second", "b");
    reconcile(second);
    cache.statusChanged(); // the informer reloads with the wider projection
    reconcile(first);
    assertThat(first.records.extractions()).isEqualTo(2);
    reconcile(first);
    assertThat(first.records.extractions()).isEqualTo(2);

    // Narrowing again (the second target goes) invalidates as well.
    reconciler.remove(second);
    cache.statusChanged();
    reconcile(first);
    assertThat(first.records.extractions()).isEqualTo(3);
  }

  @Test
  void aCacheThatSwitchesToAWiderProjectionReExtractsObjectsWhoseVersionDidNotChange() {
    profile("b", "b");
    cache.put("one", Map.of("a", "1", "b", "2"));
    cache.keptKeys = Set.of("a"); // still the projection of another profile
    TargetRuntime rt = target("t", "b");
    reconcile(rt);
    assertThat(sink.of("ns", "one")).singleElement()
        .satisfies(r -> assertThat(r.fields().get("b")).isNull());

    cache.keptKeys = null;
    cache.projectionVersion++;
    cache.statusChanged();
    reconcile(rt);
    assertThat(sink.of("ns", "one")).last()
        .satisfies(r -> assertThat(r.fields().get("b").asText()).isEqualTo("2"));
  }

  @Test
  void aSilentWatchDegradesTheTargetNamingTheTypeAndSinceWhen() {
    profile("p", "a");
    cache.put("one", Map.of("a", "1"));
    TargetRuntime rt = target("t", "p");
    assertThat(reconcile(rt).condition(Condition.DEGRADED).status()).isEqualTo("False");
    Instant since = Instant.parse("2026-01-01T00:00:00Z");
    cache.stalled = List.of(new LeaseSignals.SilentWatch("ns", since, "no event for 90 s"));
    cache.statusChanged();
    Condition degraded = reconcile(rt).condition(Condition.DEGRADED);
    assertThat(degraded.status()).isEqualTo("True");
    assertThat(degraded.reason()).isEqualTo("WatchStalled");
    assertThat(degraded.message()).isEqualTo("the watch of v1/ConfigMap in namespace ns has been "
        + "silent since 2026-01-01T00:00:00Z (no event for 90 s)");
    cache.stalled = List.of();
    cache.statusChanged();
    assertThat(reconcile(rt).condition(Condition.DEGRADED).status()).isEqualTo("False");
  }

  @Test
  void anEventReadsExtractsAndExportsOnlyItsObjectWithoutListingTheCache() {
    profile("p", "a");
    for (int i = 0; i < 20; i++) {
      cache.put("cm" + i, Map.of("a", "v" + i));
    }
    TargetRuntime rt = target("t", "p");
    TargetStatus before = reconcile(rt);
    int lists = cache.lists;
    long extractions = rt.records.extractions();
    int sent = sink.size();

    cache.put("cm3", Map.of("a", "changed"));
    TargetStatus after = reconcile(rt);
    assertThat(cache.lists).isEqualTo(lists);
    assertThat(rt.records.extractions()).isEqualTo(extractions + 1);
    assertThat(sink.size()).isEqualTo(sent + 1);
    assertThat(sink.records().get(sent).name()).isEqualTo("cm3");
    assertThat(after.objectCounts()).isEqualTo(before.objectCounts());

    cache.remove("cm4");
    assertThat(reconcile(rt).objectCounts()).containsEntry("v1/ConfigMap", 19);
    assertThat(sink.ops(io.kollect.extract.Op.DELETE)).extracting(r -> r.name())
        .containsExactly("cm4");
    assertThat(cache.lists).isEqualTo(lists);
  }

  @Test
  void aDeletedEventWhoseObjectIsCachedAgainIsAnUpsertAndAnUnchangedObjectSendsNothing() {
    profile("p", "a");
    cache.put("one", Map.of("a", "1"));
    TargetRuntime rt = target("t", "p");
    TargetStatus first = reconcile(rt);
    // deleted and re-created before the worker ran: the latest event is the DELETED
    GenericKubernetesResource gone = cache.objects.get("one");
    cache.put("one", Map.of("a", "1"));
    for (LeaseListener l : cache.listeners) {
      l.onEvent(new io.kollect.informers.ResourceEvent(
          io.kollect.informers.ResourceEvent.Kind.DELETED, CM, "ns", "one", gone));
    }
    TargetStatus second = reconcile(rt);
    assertThat(sink.ops(io.kollect.extract.Op.DELETE)).isEmpty();
    assertThat(sink.size()).isEqualTo(1); // same content: nothing re-sent
    assertThat(second.objectCounts()).containsEntry("v1/ConfigMap", 1);
    assertThat(StatusBuilder.withoutLastExport(second))
        .isEqualTo(StatusBuilder.withoutLastExport(first));
    assertThat(second.lastExport()).isEqualTo(first.lastExport());
  }

  @Test
  void aTargetRunsAFullPassAgainOnlyWhenAskedOrWhenThePeriodicOneIsDue() {
    profile("p", "a");
    cache.put("one", Map.of("a", "1"));
    TargetRuntime rt = target("t", "p");
    reconcile(rt);
    int lists = cache.lists;
    reconcile(rt);
    assertThat(cache.lists).isEqualTo(lists);
    rt.requestFullPass();
    reconcile(rt);
    assertThat(cache.lists).isEqualTo(lists + 1);
    rt.lastFullPassNanos -= TargetReconciler.DEFAULT_FULL_PASS_INTERVAL.toNanos();
    reconcile(rt);
    assertThat(cache.lists).isEqualTo(lists + 2);
  }
}

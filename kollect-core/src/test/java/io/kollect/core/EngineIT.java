package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.kollect.export.FileCheckpointStore;
import io.kollect.export.InventoryQuery;
import io.kollect.export.SinkOptions;
import io.kollect.extract.FieldRule;
import io.kollect.extract.Op;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.InformerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine end to end on a real API server: informer events become exactly the records a user
 * expects, level-based, with status.
 */
class EngineIT {

  static final Duration WAIT = Duration.ofSeconds(30);
  @RegisterExtension
  static final PerClassApiServer api = new PerClassApiServer();

  static ProfileSpec deploymentProfile(FieldRule... extra) {
    List<FieldRule> fields = new ArrayList<>(List.of(
        FieldRule.of("replicas", ".spec.replicas"),
        FieldRule.of("image", ".spec.template.spec.containers[*].image")));
    fields.addAll(List.of(extra));
    return new ProfileSpec(List.of(new ResourceRule("apps", "v1", "Deployment", fields,
        List.of(), List.of(), List.of(), false, false)));
  }

  static TargetSpec target(String name, String namespace, String profile, String... sinks) {
    return new TargetSpec(new TargetId("kollect", name), 1, profile,
        TargetScope.namespaces(namespace), List.of(sinks), false);
  }

  static SinkOptions fastSink() {
    return SinkOptions.defaults().withLinger(Duration.ofMillis(20));
  }

  KollectEngine engine() {
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it").workers(2)
        .lastExportNotifyInterval(Duration.ZERO).build();
    api.closedAfterTest(engine);
    return engine;
  }

  /** Every status the engine's listeners hear from now on, in order. */
  static List<TargetStatus> heard(KollectEngine engine) {
    List<TargetStatus> heard = new CopyOnWriteArrayList<>();
    engine.addStatusListener(heard::add);
    return heard;
  }

  static TargetStatus awaitStatus(KollectEngine engine, TargetId id,
      java.util.function.Predicate<TargetStatus> p) {
    return await().atMost(WAIT).until(() -> engine.status(id).orElse(null),
        s -> s != null && p.test(s));
  }

  static boolean is(TargetStatus s, String type, String status, String reason) {
    Condition c = s.condition(type);
    return c != null && c.status().equals(status) && c.reason().equals(reason);
  }

  private void scale(String ns, String name, int replicas) {
    api.cluster().client().apps().deployments().inNamespace(ns).withName(name)
        .edit(d -> { d.getSpec().setReplicas(replicas); return d; });
  }

  @Test
  void exportsOnlyInScopeChangesOfExtractedFieldsAndTombstonesDeletes() {
    api.cluster().namespace("a");
    api.cluster().namespace("b");
    OneTarget arranged = OneTarget.ready(engine(), "slice", "a", "deployments");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();

    api.cluster().deployment("a", "web", "nginx:1.25", 1);
    api.cluster().deployment("b", "web", "nginx:1.25", 1);
    await().atMost(WAIT).until(() -> sink.size() >= 1);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).singleElement().satisfies(r -> {
      assertThat(r.op()).isEqualTo(Op.UPSERT);
      assertThat(r.namespace()).isEqualTo("a");
      assertThat(r.name()).isEqualTo("web");
      assertThat(r.cluster()).isEqualTo("it");
      assertThat(r.target()).isEqualTo("kollect/slice");
      assertThat(r.profile()).isEqualTo("deployments");
      assertThat(r.fields().get("replicas").asInt()).isEqualTo(1);
      assertThat(r.fields().get("image").toString()).contains("nginx:1.25");
    });

    scale("a", "web", 3);
    await().atMost(WAIT).until(() -> sink.size() >= 2);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(2);
    Record scaled = sink.records().get(1);
    assertThat(scaled.op()).isEqualTo(Op.UPSERT);
    assertThat(scaled.fields().get("replicas").asInt()).isEqualTo(3);

    // An update that changes no extracted field: the engine sees it, and exports nothing.
    long before = engine.reconcileCount(spec.id());
    api.cluster().client().apps().deployments().inNamespace("a").withName("web")
        .edit(d -> { d.getMetadata().setAnnotations(Map.of("note", "irrelevant")); return d; });
    await().atMost(WAIT).until(() -> engine.reconcileCount(spec.id()) > before);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(2);

    api.cluster().client().apps().deployments().inNamespace("a").withName("web").delete();
    await().atMost(WAIT).until(() -> sink.size() >= 3);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(3);
    Record deleted = sink.records().get(2);
    assertThat(deleted.op()).isEqualTo(Op.DELETE);
    assertThat(deleted.namespace()).isEqualTo("a");
    assertThat(deleted.name()).isEqualTo("web");
    assertThat(engine.inventory().query(InventoryQuery.all())).isEmpty();
  }

  @Test
  void anInvalidProfileDegradesTheTargetWhichKeepsExportingWithTheLastValidVersion() {
    api.cluster().namespace("deg");
    api.cluster().deployment("deg", "api", "api:1", 2);
    OneTarget arranged = OneTarget.started(engine(), "deg", "deg", "p");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    awaitStatus(engine, spec.id(), s -> s.ready() && s.objectCounts().equals(Map.of("apps/v1/Deployment", 1)));
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(1);

    engine.putProfile("p", deploymentProfile(FieldRule.of("broken", "{.spec.replicas")));
    assertThat(engine.profileError("p")).hasValueSatisfying(m -> assertThat(m).contains("broken"));
    TargetStatus degraded = awaitStatus(engine, spec.id(),
        s -> is(s, Condition.DEGRADED, "True", "InvalidProfile"));
    assertThat(degraded.condition(Condition.DEGRADED).message())
        .contains(engine.profileError("p").orElseThrow());
    assertThat(degraded.ready()).isTrue();

    scale("deg", "api", 5);
    await().atMost(WAIT).until(() -> sink.size() >= 2);
    Record latest = sink.records().get(1);
    assertThat(latest.fields()).containsOnlyKeys("replicas", "image");
    assertThat(latest.fields().get("replicas").asInt()).isEqualTo(5);

    engine.putProfile("p", deploymentProfile(FieldRule.of("name", ".metadata.name")));
    assertThat(engine.profileError("p")).isEmpty();
    TargetStatus fixed = awaitStatus(engine, spec.id(),
        s -> is(s, Condition.DEGRADED, "False", "Reconciled") && s.ready());
    assertThat(fixed.condition(Condition.READY).reason()).isEqualTo("Reconciled");
    // The fixed profile extracts one more field: a new UPSERT with it.
    await().atMost(WAIT).until(() -> sink.size() >= 3);
    assertThat(sink.records().get(2).fields()).containsKey("name");
  }

  @Test
  void aTargetWhoseProfileWasNeverValidOrIsMissingIsNotReadyAndAMissingSinkDegradesIt() {
    api.cluster().namespace("status");
    KollectEngine engine = engine();
    RecordingSink present = new RecordingSink("present");
    engine.putSink(present, fastSink());
    engine.putProfile("bad", deploymentProfile(FieldRule.of("broken", "{.spec.replicas")));
    TargetSpec invalid = target("invalid", "status", "bad", "present");
    TargetSpec missingProfile = target("orphan", "status", "nope", "present");
    TargetSpec missingSink = target("half", "status", "good", "present", "absent");
    engine.putTarget(invalid);
    engine.putTarget(missingProfile);
    engine.putTarget(missingSink);
    engine.start();

    TargetStatus s1 = awaitStatus(engine, invalid.id(),
        s -> is(s, Condition.READY, "False", "InvalidProfile"));
    assertThat(s1.condition(Condition.READY).message()).contains("bad", "broken");
    TargetStatus s2 = awaitStatus(engine, missingProfile.id(),
        s -> is(s, Condition.READY, "False", "ProfileNotFound"));
    assertThat(s2.condition(Condition.READY).message()).contains("nope");

    api.cluster().deployment("status", "svc", "svc:1", 1);
    awaitStatus(engine, missingSink.id(), s -> is(s, Condition.READY, "False", "ProfileNotFound"));
    engine.putProfile("good", deploymentProfile());
    TargetStatus s3 = awaitStatus(engine, missingSink.id(),
        s -> s.ready() && is(s, Condition.DEGRADED, "True", "SinkNotFound"));
    assertThat(s3.condition(Condition.DEGRADED).message()).contains("absent");
    // The sink that exists is still served.
    await().atMost(WAIT).until(() -> present.of("status", "svc").size() == 1);

    RecordingSink late = new RecordingSink("absent");
    engine.putSink(late, fastSink());
    awaitStatus(engine, missingSink.id(), s -> is(s, Condition.DEGRADED, "False", "Reconciled"));
    await().atMost(WAIT).until(() -> late.of("status", "svc").size() == 1);
  }

  @Test
  void anEventReconcilesOnlyTheTargetsWhoseScopeItTouches() {
    api.cluster().namespace("e1");
    api.cluster().namespace("e2");
    api.cluster().deployment("e1", "one", "one:1", 1);
    api.cluster().deployment("e2", "two", "two:1", 1);
    KollectEngine engine = engine();
    RecordingSink sink = new RecordingSink("rec");
    engine.putProfile("p", deploymentProfile());
    engine.putSink(sink, fastSink());
    TargetSpec t1 = target("t1", "e1", "p", "rec");
    TargetSpec t2 = target("t2", "e2", "p", "rec");
    engine.putTarget(t1);
    engine.putTarget(t2);
    engine.start();
    awaitStatus(engine, t1.id(), s -> s.ready() && !s.objectCounts().isEmpty());
    awaitStatus(engine, t2.id(), s -> s.ready() && !s.objectCounts().isEmpty());
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    long t1Before = engine.reconcileCount(t1.id());
    long t2Before = engine.reconcileCount(t2.id());

    scale("e1", "one", 4);
    await().atMost(WAIT).until(() -> sink.of("e1", "one").size() == 2);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(engine.reconcileCount(t1.id())).isGreaterThan(t1Before);
    assertThat(engine.reconcileCount(t2.id())).isEqualTo(t2Before);
    // Informers are shared: a third target over a namespace already read adds none.
    int informers = engine.informerCount();
    TargetSpec t3 = target("t3", "e1", "p", "rec");
    engine.putTarget(t3);
    awaitStatus(engine, t3.id(), s -> s.ready() && !s.objectCounts().isEmpty());
    assertThat(engine.informerCount()).isEqualTo(informers);
  }

  @Test
  void aReconcileThatFailsIsReportedInTheTargetStatusWithTheCauseAndRecoversWhenItWorks() {
    api.cluster().namespace("failing");
    api.cluster().deployment("failing", "x", "x:1", 1);
    java.util.concurrent.atomic.AtomicBoolean reviewsWork =
        new java.util.concurrent.atomic.AtomicBoolean(false);
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it").workers(1)
        .lastExportNotifyInterval(Duration.ZERO)
        .retryRateLimit(Duration.ofMillis(50), Duration.ofMillis(200), 100, 100)
        .accessReviewer((saNs, sa, group, resource, ns) -> {
          if (!reviewsWork.get()) {
            throw new IllegalStateException("SubjectAccessReview at https://api.example: HTTP 403:"
                + " subjectaccessreviews is forbidden\nsecond line");
          }
          return true;
        }).build();
    api.closedAfterTest(engine);
    OneTarget arranged = OneTarget.started(engine, "failing", "failing", "p");
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    TargetStatus failed = awaitStatus(engine, spec.id(), s -> s.condition(Condition.READY) != null
        && "ReconcileFailed".equals(s.condition(Condition.READY).reason()));
    assertThat(failed.ready()).isFalse();
    assertThat(failed.condition(Condition.READY).message())
        .contains("HTTP 403: subjectaccessreviews is forbidden").doesNotContain("second line");
    assertThat(failed.condition(Condition.DEGRADED).reason()).isEqualTo("ReconcileFailed");
    assertThat(sink.size()).isZero();

    reviewsWork.set(true);
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    await().atMost(WAIT).until(() -> sink.size() == 1);
  }

  @Test
  void repeatedReconcilesOfAnUnchangedCacheExportNothingAndStatusIsReportedOnlyOnChange() {
    api.cluster().namespace("level");
    api.cluster().deployment("level", "x", "x:1", 1);
    KollectEngine engine = engine();
    List<TargetStatus> heard = heard(engine);
    OneTarget arranged = OneTarget.started(engine, "level", "level", "p");
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    awaitStatus(engine, spec.id(), s -> s.ready() && !s.objectCounts().isEmpty());
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    // The sink acknowledged after the first reconcile: the next one reports that once (delivery
    // figures in the status), then the status is settled.
    long settling = engine.reconcileCount(spec.id()) + 1;
    engine.putTarget(spec);
    await().atMost(WAIT).until(() -> engine.reconcileCount(spec.id()) >= settling);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(engine.status(spec.id()).orElseThrow().deliveries().get("rec"))
        .satisfies(d -> assertThat(d.pending()).isZero())
        .satisfies(d -> assertThat(d.lastAcknowledged()).isNotNull());
    int records = sink.size();
    int statuses = heard.size();

    long reconciles = engine.reconcileCount(spec.id());
    long extractions = engine.extractionCount(spec.id());
    for (int i = 0; i < 5; i++) {
      engine.putTarget(spec); // same spec: enqueues a reconcile
      long expected = reconciles + i + 1;
      // Wait for the reconcile itself, not for a quiet moment that could precede it.
      await().atMost(WAIT).until(() -> engine.reconcileCount(spec.id()) >= expected);
      assertThat(engine.awaitIdle(WAIT)).isTrue();
    }
    assertThat(engine.reconcileCount(spec.id())).isEqualTo(reconciles + 5);
    // Five reconciles ran and found nothing to extract, export or report.
    assertThat(engine.extractionCount(spec.id())).isEqualTo(extractions);
    assertThat(sink.size()).isEqualTo(records);
    assertThat(heard).hasSize(statuses);

    // The same path does export and report a change: the assertions above can fail.
    scale("level", "x", 3);
    await().atMost(WAIT).until(() -> sink.size() == records + 1);
    awaitStatus(engine, spec.id(), s -> heard.size() > statuses);
    assertThat(engine.extractionCount(spec.id())).isEqualTo(extractions + 1);
  }

  @Test
  void removingATargetReleasesItsInformersAndClearsItsInventoryWithoutTombstones() {
    api.cluster().namespace("rm");
    api.cluster().deployment("rm", "gone", "g:1", 1);
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .informerOptions(InformerOptions.defaults().withReleaseGrace(Duration.ofMillis(100)))
        .build();
    api.closedAfterTest(engine);
    List<TargetId> removed = new CopyOnWriteArrayList<>();
    engine.addStatusListener(new TargetStatusListener() {
      @Override
      public void onStatus(TargetStatus status) {}

      @Override
      public void onRemoved(TargetId id) {
        removed.add(id);
      }
    });
    OneTarget arranged = OneTarget.started(engine, "rm", "rm", "p");
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    await().atMost(WAIT).until(() -> sink.size() == 1);
    assertThat(engine.inventory().query(InventoryQuery.all())).hasSize(1);
    assertThat(engine.informerCount()).isEqualTo(1);

    engine.removeTarget(spec.id());
    assertThat(removed).containsExactly(spec.id());
    assertThat(engine.status(spec.id())).isEmpty();
    assertThat(engine.inventory().query(InventoryQuery.all())).isEmpty();
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.ops(Op.DELETE)).isEmpty();
    await().atMost(WAIT).until(() -> engine.informerCount() == 0);
  }

  @Test
  void aTypeThatIsNotServedDegradesTheTargetAndIsExportedOnceItsCrdAppears() {
    api.cluster().namespace("crd");
    api.cluster().deployment("crd", "d", "d:1", 1);
    KollectEngine engine = engine();
    RecordingSink sink = new RecordingSink("rec");
    ProfileSpec profile = new ProfileSpec(List.of(
        deploymentProfile().resources().get(0),
        new ResourceRule("example.kollect.io", "v1", "Widget",
            List.of(FieldRule.of("size", ".spec.size")), List.of(), List.of(), List.of(), false,
            false)));
    engine.putProfile("p", profile);
    engine.putSink(sink, fastSink());
    TargetSpec spec = target("crd", "crd", "p", "rec");
    engine.putTarget(spec);
    engine.start();

    TargetStatus notServed = awaitStatus(engine, spec.id(),
        s -> s.ready() && is(s, Condition.DEGRADED, "True", "NotServed"));
    assertThat(notServed.skipped()).singleElement().satisfies(sk -> {
      assertThat(sk.resource()).isEqualTo("example.kollect.io/v1/Widget");
      assertThat(sk.reason()).isEqualTo("notServed");
    });
    assertThat(notServed.condition(Condition.DEGRADED).message())
        .contains("example.kollect.io/v1/Widget");
    // The served type is exported regardless.
    await().atMost(WAIT).until(() -> sink.of("crd", "d").size() == 1);
    assertThat(engine.isReady()).isTrue();

    api.cluster().client().apiextensions().v1().customResourceDefinitions().resource(
        new CustomResourceDefinitionBuilder()
            .withNewMetadata().withName("widgets.example.kollect.io").endMetadata()
            .withNewSpec().withGroup("example.kollect.io").withScope("Namespaced")
            .withNewNames().withKind("Widget").withPlural("widgets").withSingular("widget")
            .endNames()
            .addNewVersion().withName("v1").withServed(true).withStorage(true)
            .withNewSchema().withNewOpenAPIV3Schema().withType("object")
            .withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema()
            .endVersion().endSpec().build()).create();
    GenericKubernetesResource widget = new GenericKubernetesResourceBuilder()
        .withApiVersion("example.kollect.io/v1").withKind("Widget")
        .withNewMetadata().withName("w").withNamespace("crd").endMetadata()
        .addToAdditionalProperties("spec", Map.of("size", 7)).build();
    await().atMost(WAIT).ignoreExceptions().until(() -> api.cluster().client()
        .genericKubernetesResources("example.kollect.io/v1", "Widget").inNamespace("crd")
        .resource(widget).create() != null);

    await().atMost(WAIT).until(() -> sink.of("crd", "w").size() == 1);
    assertThat(sink.of("crd", "w").get(0).fields().get("size").asInt()).isEqualTo(7);
    TargetStatus served = awaitStatus(engine, spec.id(),
        s -> is(s, Condition.DEGRADED, "False", "Reconciled"));
    assertThat(served.skipped()).isEmpty();
    assertThat(served.objectCounts())
        .isEqualTo(Map.of("apps/v1/Deployment", 1, "example.kollect.io/v1/Widget", 1));
  }

  @Test
  void aStandbyKeepsItsInventoryWarmButExportsAndReportsNothingUntilEnabled() {
    api.cluster().namespace("standby");
    api.cluster().deployment("standby", "s", "s:1", 1);
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .exportEnabled(false).lastExportNotifyInterval(Duration.ZERO).build();
    api.closedAfterTest(engine);
    List<TargetStatus> heard = heard(engine);
    OneTarget arranged = OneTarget.started(engine, "standby", "standby", "p");
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();

    await().atMost(WAIT).until(() -> engine.inventory().query(InventoryQuery.all()).size() == 1);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(engine.isExportEnabled()).isFalse();
    assertThat(engine.status(spec.id())).hasValueSatisfying(st -> assertThat(st.ready()).isTrue());
    assertThat(sink.records()).isEmpty();
    assertThat(heard).isEmpty();

    engine.setExportEnabled(true);
    await().atMost(WAIT).until(() -> sink.size() == 1);
    await().atMost(WAIT).until(() -> !heard.isEmpty());
    assertThat(heard.get(heard.size() - 1).lastExport()).isNotNull();

    engine.setExportEnabled(false);
    scale("standby", "s", 9);
    await().atMost(WAIT).until(() -> engine.inventory().query(InventoryQuery.all()).get(0)
        .fields().get("replicas").asInt() == 9);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(1);
  }

  @Test
  void closeReleasesEverythingAndLeavesNoKollectThreadsBehind() {
    api.cluster().namespace("close");
    api.cluster().deployment("close", "c", "c:1", 1);
    OneTarget arranged = OneTarget.put(engine(), "close", "close", "p");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    assertThat(engine.isReady()).isFalse();
    engine.start();
    engine.start(); // idempotent
    await().atMost(WAIT).until(engine::isReady);
    await().atMost(WAIT).until(() -> sink.size() == 1);
    assertThat(liveKollectThreads()).isNotEmpty();

    engine.close();
    engine.close(); // idempotent
    assertThat(engine.isReady()).isFalse();
    assertThat(engine.informerCount()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> liveKollectThreads().isEmpty());
  }

  @Test
  void lastExportAloneIsReportedAtMostOncePerIntervalAndTheLatestEventuallyArrives() {
    api.cluster().namespace("storm");
    api.cluster().deployment("storm", "busy", "b:1", 1);
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .lastExportNotifyInterval(Duration.ofSeconds(8)).build();
    api.closedAfterTest(engine);
    List<TargetStatus> heard = heard(engine);
    OneTarget arranged = OneTarget.started(engine, "storm", "storm", "p");
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    await().atMost(WAIT).until(() -> sink.size() == 1);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    int before = heard.size();

    for (int replicas = 2; replicas <= 4; replicas++) {
      scale("storm", "busy", replicas);
      int expected = replicas;
      await().atMost(WAIT).until(() -> sink.size() == expected);
    }
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    // Three exports, each moving only lastExport: held back (at most one got through).
    assertThat(heard.size() - before).isLessThanOrEqualTo(1);
    java.time.Instant latest = engine.status(spec.id()).orElseThrow().lastExport();
    await().atMost(Duration.ofSeconds(20))
        .until(() -> latest.equals(heard.get(heard.size() - 1).lastExport()));
  }

  @Test
  void changingATargetsScopeTombstonesWhatLeftItAndExportsWhatEnteredIt() {
    api.cluster().namespace("move-from");
    api.cluster().namespace("move-to");
    api.cluster().deployment("move-from", "old", "o:1", 1);
    api.cluster().deployment("move-to", "new", "n:1", 1);
    OneTarget arranged = OneTarget.started(engine(), "move", "move-from", "p");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec v1 = arranged.spec();
    await().atMost(WAIT).until(() -> sink.of("move-from", "old").size() == 1);

    TargetSpec v2 = new TargetSpec(v1.id(), 2, "p", TargetScope.namespaces("move-to"),
        List.of("rec"), false);
    engine.putTarget(v2);
    await().atMost(WAIT).until(() -> sink.of("move-to", "new").size() == 1
        && sink.of("move-from", "old").size() == 2);
    assertThat(sink.of("move-from", "old").get(1).op()).isEqualTo(Op.DELETE);
    TargetStatus status = awaitStatus(engine, v1.id(), s -> s.observedGeneration() == 2);
    assertThat(status.objectCounts()).isEqualTo(Map.of("apps/v1/Deployment", 1));
  }

  @Test
  void aRemovedProfileStopsTheTargetWithoutTombstoningItsRecords() {
    api.cluster().namespace("noprof");
    api.cluster().deployment("noprof", "kept", "k:1", 1);
    OneTarget arranged = OneTarget.started(engine(), "noprof", "noprof", "p");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    await().atMost(WAIT).until(() -> sink.size() == 1);

    engine.removeProfile("p");
    TargetStatus s = awaitStatus(engine, spec.id(),
        st -> is(st, Condition.READY, "False", "ProfileNotFound"));
    assertThat(s.condition(Condition.READY).message()).isEqualTo("profile p not found");
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.ops(Op.DELETE)).isEmpty();

    engine.putProfile("p", deploymentProfile());
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    // Same content as exported before: nothing is sent again.
    assertThat(sink.records()).hasSize(1);
  }

  @Test
  void targetsThatWriteInventoryAlsoFeedTheHostsInventorySink() {
    api.cluster().namespace("inv");
    api.cluster().deployment("inv", "i", "i:1", 1);
    RecordingSink hostInventory = new RecordingSink("host-inventory");
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .inventorySink(hostInventory, fastSink()).build();
    api.closedAfterTest(engine);
    engine.putProfile("p", deploymentProfile());
    TargetSpec writes = new TargetSpec(new TargetId("kollect", "writes"), 1, "p",
        TargetScope.namespaces("inv"), List.of(), true);
    TargetSpec silent = new TargetSpec(new TargetId("kollect", "silent"), 1, "p",
        TargetScope.namespaces("inv"), List.of(), false);
    engine.putTarget(writes);
    engine.putTarget(silent);
    engine.start();
    await().atMost(WAIT).until(() -> hostInventory.size() == 1);
    awaitStatus(engine, silent.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(hostInventory.records()).singleElement()
        .satisfies(r -> assertThat(r.target()).isEqualTo("kollect/writes"));
    // The in-memory view holds both targets regardless.
    assertThat(engine.inventory().query(InventoryQuery.all())).extracting(Record::target)
        .containsExactly("kollect/silent", "kollect/writes");
  }

  @Test
  void aRestartWithACheckpointSendsOnlyWhatChangedWhileDown(@TempDir Path checkpoints) {
    api.cluster().namespace("restart");
    api.cluster().deployment("restart", "stays", "s:1", 1);
    api.cluster().deployment("restart", "goes", "g:1", 1);
    TargetSpec spec = target("restart", "restart", "p", "rec");
    RecordingSink first = new RecordingSink("rec");
    try (KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .checkpointStore(new FileCheckpointStore(checkpoints)).build()) {
      engine.putProfile("p", deploymentProfile());
      engine.putSink(first, fastSink());
      engine.putTarget(spec);
      engine.start();
      await().atMost(WAIT).until(() -> first.size() == 2);
      assertThat(engine.awaitIdle(WAIT)).isTrue();
    }

    api.cluster().client().apps().deployments().inNamespace("restart").withName("goes").delete();
    RecordingSink second = new RecordingSink("rec");
    try (KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .checkpointStore(new FileCheckpointStore(checkpoints)).build()) {
      engine.putProfile("p", deploymentProfile());
      engine.putSink(second, fastSink());
      engine.putTarget(spec);
      engine.start();
      await().atMost(WAIT).until(() -> second.size() >= 1);
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      assertThat(second.records()).singleElement().satisfies(r -> {
        assertThat(r.op()).isEqualTo(Op.DELETE);
        assertThat(r.name()).isEqualTo("goes");
      });
    }
  }

  @Test
  void anObjectThatCannotBeExtractedIsSkippedWithoutStoppingItsTarget() {
    api.cluster().namespace("corrupt");
    api.cluster().deployment("corrupt", "fine", "f:1", 1);
    api.cluster().client().secrets().inNamespace("corrupt").resource(new SecretBuilder()
        .withNewMetadata().withName("sh.helm.release.v1.broken.v1").addToLabels("owner", "helm")
        .endMetadata().withType("helm.sh/release.v1")
        .addToData("release", java.util.Base64.getEncoder().encodeToString(
            "this is not a helm release".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .build()).create();
    KollectEngine engine = engine();
    RecordingSink sink = new RecordingSink("rec");
    engine.putProfile("p", new ProfileSpec(List.of(
        deploymentProfile().resources().get(0),
        new ResourceRule("", "v1", "Secret", List.of(FieldRule.of("release", ".release.name")),
            List.of(), List.of(), List.of(), false, true))));
    engine.putSink(sink, fastSink());
    TargetSpec spec = target("corrupt", "corrupt", "p", "rec");
    engine.putTarget(spec);
    engine.start();
    await().atMost(WAIT).until(() -> sink.of("corrupt", "fine").size() == 1);
    TargetStatus status = awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(status.objectCounts())
        .isEqualTo(Map.of("apps/v1/Deployment", 1, "v1/Secret", 0));
    // The failing object is visible in status, not only in the log.
    assertThat(status.extractionErrorCount()).isEqualTo(1);
    assertThat(status.extractionErrors()).singleElement().satisfies(e -> {
      assertThat(e.resource()).isEqualTo("v1/Secret");
      assertThat(e.namespace()).isEqualTo("corrupt");
      assertThat(e.name()).isEqualTo("sh.helm.release.v1.broken.v1");
      assertThat(e.message()).isNotBlank().doesNotContain("this is not a helm release");
    });
    Condition failing = status.condition(Condition.EXTRACTION_ERRORS);
    assertThat(failing.status()).isEqualTo("True");
    assertThat(failing.message()).contains("1 object cannot be extracted",
        "v1/Secret corrupt/sh.helm.release.v1.broken.v1");
    // No retry loop: the target settles.
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    long reconciles = engine.reconcileCount(spec.id());
    // A failing reconcile would be retried after 100 ms, 200 ms, ...: none happens.
    await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
        .until(() -> engine.reconcileCount(spec.id()) == reconciles);
    assertThat(sink.records()).noneMatch(r -> r.resource().kind().equals("Secret"));

    // Once the object is gone, so is the error.
    api.cluster().client().secrets().inNamespace("corrupt").withName("sh.helm.release.v1.broken.v1")
        .delete();
    TargetStatus cleared = awaitStatus(engine, spec.id(), s -> s.extractionErrorCount() == 0);
    assertThat(cleared.extractionErrors()).isEmpty();
    assertThat(cleared.condition(Condition.EXTRACTION_ERRORS).status()).isEqualTo("False");
  }

  @Test
  void steppingDownKeepsTheCheckpointsSoTheNextLeaderSendsOnlyWhatChanged(
      @TempDir Path checkpoints) {
    api.cluster().namespace("failover");
    api.cluster().deployment("failover", "same", "s:1", 1);
    api.cluster().deployment("failover", "scaled", "s:1", 1);
    FileCheckpointStore store = new FileCheckpointStore(checkpoints);
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .checkpointStore(store).build();
    api.closedAfterTest(engine);
    OneTarget arranged = OneTarget.started(engine, "failover", "failover", "p");
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    await().atMost(WAIT).until(() -> sink.size() == 2);
    await().atMost(WAIT).until(() -> store.load("kollect/failover", "rec").size() == 2);

    engine.setExportEnabled(false);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(store.load("kollect/failover", "rec")).hasSize(2);

    scale("failover", "scaled", 2);
    await().atMost(WAIT).until(() -> engine.inventory().query(InventoryQuery.all()).stream()
        .anyMatch(r -> r.name().equals("scaled") && r.fields().get("replicas").asInt() == 2));
    engine.setExportEnabled(true);
    await().atMost(WAIT).until(() -> sink.size() >= 3);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(3);
    assertThat(sink.records().get(2).name()).isEqualTo("scaled");
  }

  @Test
  void concurrentTargetProfileAndClusterChangesConvergeToTheClusterState() throws Exception {
    List<String> namespaces = List.of("conc-0", "conc-1", "conc-2");
    for (String ns : namespaces) {
      api.cluster().namespace(ns);
      for (int d = 0; d < 3; d++) {
        api.cluster().deployment(ns, "d" + d, "img:" + d, 1);
      }
    }
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it").workers(3)
        .lastExportNotifyInterval(Duration.ZERO).build();
    api.closedAfterTest(engine);
    RecordingSink sink = new RecordingSink("rec");
    engine.putProfile("p", deploymentProfile());
    engine.putSink(sink, fastSink());
    List<TargetSpec> specs = new ArrayList<>();
    for (int t = 0; t < 9; t++) {
      specs.add(target("conc-" + t, namespaces.get(t % 3), "p", "rec"));
    }
    specs.forEach(engine::putTarget);
    engine.start();

    java.util.Random random = new java.util.Random(42);
    Thread churnTargets = new Thread(() -> {
      for (int i = 0; i < 30; i++) {
        TargetSpec spec = specs.get(random.nextInt(specs.size()));
        engine.removeTarget(spec.id());
        engine.putTarget(spec);
      }
    }, "test-churn-targets");
    Thread churnProfile = new Thread(() -> {
      for (int i = 0; i < 10; i++) {
        engine.putProfile("p", i % 2 == 0
            ? deploymentProfile(FieldRule.of("name", ".metadata.name")) : deploymentProfile());
      }
    }, "test-churn-profile");
    churnTargets.start();
    churnProfile.start();
    for (int i = 0; i < 12; i++) {
      scale(namespaces.get(i % 3), "d" + (i % 3), 2 + i);
    }
    churnTargets.join();
    churnProfile.join();
    engine.putProfile("p", deploymentProfile());

    // Converged: every target's inventory and last exported record match the api.cluster().
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      for (TargetSpec spec : specs) {
        String ns = spec.scope().namespaces().get(0);
        Map<String, Integer> actual = new java.util.TreeMap<>();
        api.cluster().client().apps().deployments().inNamespace(ns).list().getItems()
            .forEach(d -> actual.put(d.getMetadata().getName(), d.getSpec().getReplicas()));
        Map<String, Integer> inventory = new java.util.TreeMap<>();
        engine.inventory().query(new InventoryQuery(spec.id().toString(), null, null, null, null))
            .forEach(r -> inventory.put(r.name(), r.fields().get("replicas").asInt()));
        assertThat(inventory).as("inventory of %s", spec.id()).isEqualTo(actual);
        Map<String, Integer> lastExported = new java.util.TreeMap<>();
        sink.records().stream().filter(r -> r.target().equals(spec.id().toString()))
            .forEach(r -> {
              if (r.op() == Op.UPSERT) {
                lastExported.put(r.name(), r.fields().get("replicas").asInt());
              } else {
                lastExported.remove(r.name());
              }
            });
        assertThat(lastExported).as("last exported of %s", spec.id()).isEqualTo(actual);
        assertThat(engine.status(spec.id())).hasValueSatisfying(st -> {
          assertThat(st.ready()).isTrue();
          assertThat(st.condition(Condition.DEGRADED).status()).isEqualTo("False");
        });
      }
    });
  }

  private static List<String> liveKollectThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(Thread::getName).filter(n -> n.startsWith("kollect-")).toList();
  }
}

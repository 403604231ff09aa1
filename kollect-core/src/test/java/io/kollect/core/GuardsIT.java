package io.kollect.core;

import static io.kollect.core.EngineIT.WAIT;
import static io.kollect.core.EngineIT.awaitStatus;
import static io.kollect.core.EngineIT.deploymentProfile;
import static io.kollect.core.EngineIT.fastSink;
import static io.kollect.core.EngineIT.is;
import static io.kollect.core.EngineIT.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kollect.extract.FieldRule;
import io.kollect.extract.Op;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.ResourceRule;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The guards of safe change on a real API server: circuit breaker, cardinality warning
 * and cap, target and sink suspend, and the forced full pass.
 */
class GuardsIT {

  @RegisterExtension
  static final PerClassApiServer api = new PerClassApiServer();

  private KollectEngineBuilder builder() {
    return KollectEngine.builder(api.cluster().client()).cluster("it").workers(2)
        .lastExportNotifyInterval(Duration.ZERO)
        .retryRateLimit(Duration.ofMillis(20), Duration.ofMillis(100), 100, 100);
  }

  private KollectEngine track(KollectEngine engine) {
    api.closedAfterTest(engine);
    return engine;
  }

  private static ProfileSpec helmReleases() {
    return new ProfileSpec(List.of(new ResourceRule("", "v1", "Secret",
        List.of(FieldRule.of("release", ".release.name")), List.of(), List.of(), List.of(),
        false, true)));
  }

  private static void corruptRelease(String ns, String name) {
    api.cluster().client().secrets().inNamespace(ns).resource(new SecretBuilder()
        .withNewMetadata().withName("sh.helm.release.v1." + name + ".v1")
        .addToLabels("owner", "helm").endMetadata().withType("helm.sh/release.v1")
        .addToData("release", Base64.getEncoder().encodeToString(
            "not a helm release".getBytes(StandardCharsets.UTF_8)))
        .build()).create();
  }

  private static void touch(String ns, String secret, int n) {
    api.cluster().client().secrets().inNamespace(ns).withName(secret).edit(s -> {
      s.getMetadata().getLabels().put("touch", String.valueOf(n));
      return s;
    });
  }

  private static boolean open(TargetStatus s) {
    return is(s, Condition.CIRCUIT_OPEN, "True", CircuitBreaker.REASON_OPEN);
  }

  @Test
  void aTargetWhoseApiCallsFailOpensItsCircuitIsSkippedAndClosesAfterASuccessfulAttempt() {
    api.cluster().namespace("cb-api");
    api.cluster().deployment("cb-api", "x", "x:1", 1);
    AtomicBoolean reviewsWork = new AtomicBoolean(false);
    AtomicInteger reviews = new AtomicInteger();
    KollectEngine engine = track(builder().circuitBreaker(3, Duration.ofMillis(1600))
        .accessReviewer((saNs, sa, group, resource, ns) -> {
          reviews.incrementAndGet();
          if (!reviewsWork.get()) {
            throw new IllegalStateException("SubjectAccessReview: HTTP 503: unavailable");
          }
          return true;
        }).build());
    OneTarget arranged = OneTarget.started(engine, "api", "cb-api", "p");
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();

    TargetStatus opened = awaitStatus(engine, spec.id(), GuardsIT::open);
    assertThat(opened.ready()).isFalse();
    assertThat(opened.condition(Condition.READY).reason()).isEqualTo(Condition.CIRCUIT_OPEN);
    assertThat(opened.condition(Condition.CIRCUIT_OPEN).message())
        .contains("3 consecutive failed reconciles", "HTTP 503: unavailable", "next attempt at");
    assertThat(engine.openCircuits()).isEqualTo(1);

    // Half-open attempts fail and space out (200 ms, 400 ms, ... up to 1.6 s): far fewer
    // reconciles than the work queue's 20-100 ms retries would make.
    long before = engine.reconcileCount(spec.id());
    await().pollDelay(Duration.ofSeconds(2)).atMost(WAIT).until(() -> true);
    assertThat(engine.reconcileCount(spec.id()) - before).isBetween(1L, 6L);
    assertThat(engine.status(spec.id()).orElseThrow()).matches(GuardsIT::open);

    reviewsWork.set(true);
    TargetStatus closed = awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(closed.condition(Condition.CIRCUIT_OPEN).status()).isEqualTo("False");
    assertThat(engine.openCircuits()).isZero();
    await().atMost(WAIT).until(() -> sink.size() == 1);
  }

  @Test
  void aForcedFullPassGivesAnOpenCircuitOneAttemptAtOnce() {
    api.cluster().namespace("cb-force");
    AtomicBoolean reviewsWork = new AtomicBoolean(false);
    KollectEngine engine = track(builder().circuitBreaker(2, Duration.ofHours(1))
        .accessReviewer((saNs, sa, group, resource, ns) -> {
          if (!reviewsWork.get()) {
            throw new IllegalStateException("SubjectAccessReview: connection refused");
          }
          return true;
        }).build());
    engine.putProfile("p", deploymentProfile());
    TargetSpec spec = target("force", "cb-force", "p");
    engine.putTarget(spec);
    engine.start();
    awaitStatus(engine, spec.id(), GuardsIT::open); // next attempt in 30 s

    reviewsWork.set(true);
    engine.requestFullPass(spec.id());

    TargetStatus closed = awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(closed.condition(Condition.CIRCUIT_OPEN).status()).isEqualTo("False");
  }

  @Test
  void everyObjectFailingExtractionOpensTheCircuitButASingleFailingObjectDoesNot() {
    api.cluster().namespace("cb-all");
    api.cluster().namespace("cb-one");
    for (String name : List.of("a", "b")) {
      corruptRelease("cb-all", name);
    }
    corruptRelease("cb-one", "a");
    for (String name : List.of("w1", "w2", "w3")) {
      api.cluster().deployment("cb-one", name, "w:1", 1);
    }
    // The first cool-down is an eighth of the longest (at most 30 s); awaitIdle below waits it
    // out, since the objects touched while the circuit is open stay dirty until the half-open
    // attempt. 40 s makes that 5 s, and the reopened circuit's 10 s outlasts the last assertion.
    KollectEngine engine = track(builder().circuitBreaker(2, Duration.ofSeconds(40)).build());
    engine.putProfile("helm", helmReleases());
    engine.putProfile("mixed", new ProfileSpec(List.of(deploymentProfile().resources().get(0),
        helmReleases().resources().get(0))));
    TargetSpec all = target("all", "cb-all", "helm");
    TargetSpec one = target("one", "cb-one", "mixed");
    engine.putTarget(all);
    engine.putTarget(one);
    engine.start();
    awaitStatus(engine, all.id(), s -> s.extractionErrorCount() == 2);
    awaitStatus(engine, one.id(), s -> s.extractionErrorCount() == 1 && s.ready());

    // Each change re-extracts the failing object: a reconcile that fails again.
    AtomicInteger n = new AtomicInteger();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
      int i = n.incrementAndGet();
      touch("cb-all", "sh.helm.release.v1.a.v1", i);
      touch("cb-one", "sh.helm.release.v1.a.v1", i);
      return engine.status(all.id()).map(GuardsIT::open).orElse(false) && i >= 4;
    });
    TargetStatus allStatus = engine.status(all.id()).orElseThrow();
    assertThat(allStatus.condition(Condition.CIRCUIT_OPEN).message())
        .contains("2 of 2 objects fail extraction");
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    TargetStatus oneStatus = engine.status(one.id()).orElseThrow();
    assertThat(oneStatus.condition(Condition.CIRCUIT_OPEN)).isNull();
    assertThat(oneStatus.ready()).isTrue();
    assertThat(engine.openCircuits()).isEqualTo(1);
  }

  @Test
  void aTargetOverTheThresholdWarnsAndACapExportsTheFirstKeysEvenAsObjectsComeAndGo() {
    api.cluster().namespace("card");
    for (String name : List.of("b", "c", "d")) {
      api.cluster().deployment("card", name, "n:1", 1);
    }
    KollectEngine engine = track(builder().warnObjectsPerTarget(2).build());
    RecordingSink warned = new RecordingSink("warned");
    RecordingSink capped = new RecordingSink("capped");
    engine.putProfile("p", deploymentProfile());
    engine.putSink(warned, fastSink());
    engine.putSink(capped, fastSink());
    TargetSpec warn = target("warn", "card", "p", "warned");
    TargetSpec cap = target("cap", "card", "p", "capped").toBuilder().maxObjects(2).build();
    engine.putTarget(warn);
    engine.putTarget(cap);
    engine.start();

    TargetStatus w = awaitStatus(engine, warn.id(), s -> s.ready()
        && s.condition(Condition.HIGH_CARDINALITY) != null);
    assertThat(w.condition(Condition.HIGH_CARDINALITY)).satisfies(c -> {
      assertThat(c.status()).isEqualTo("True");
      assertThat(c.reason()).isEqualTo(Cardinality.REASON_TOO_MANY);
      assertThat(c.message()).contains("3 objects in scope", "threshold of 2");
    });
    TargetStatus c = awaitStatus(engine, cap.id(), s -> s.ready()
        && s.condition(Condition.HIGH_CARDINALITY) != null);
    assertThat(c.condition(Condition.HIGH_CARDINALITY).reason())
        .isEqualTo(Cardinality.REASON_CAPPED);
    assertThat(c.condition(Condition.HIGH_CARDINALITY).message()).contains("1 left out");
    assertThat(c.objectCounts()).containsEntry("apps/v1/Deployment", 3); // exact, in scope
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(warned.size()).isEqualTo(3);
    assertThat(endState(capped)).containsOnlyKeys("b", "c");

    // "a" sorts first: it enters the kept set and pushes "c" out.
    api.cluster().deployment("card", "a", "n:1", 1);
    await().atMost(WAIT).until(() -> endState(capped).keySet().equals(java.util.Set.of("a",
        "b")));
    // "a" leaves: "c" comes back.
    api.cluster().client().apps().deployments().inNamespace("card").withName("a").delete();
    await().atMost(WAIT).until(() -> endState(capped).keySet().equals(java.util.Set.of("b",
        "c")));
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(capped.records()).noneMatch(r -> r.name().equals("d"));
    assertThat(engine.inventory().query(io.kollect.export.InventoryQuery.all()).stream()
        .filter(r -> r.target().equals("kollect/cap")).map(Record::name))
        .containsExactlyInAnyOrder("b", "c");
  }

  @Test
  void aSuspendedTargetReadsAndExportsNothingAndResumingSendsOnlyWhatChanged() {
    api.cluster().namespace("susp");
    api.cluster().deployment("susp", "same", "s:1", 1);
    api.cluster().deployment("susp", "changed", "c:1", 1);
    api.cluster().deployment("susp", "gone", "g:1", 1);
    OneTarget arranged = OneTarget.ready(track(builder().build()), "susp", "susp", "p");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    await().atMost(WAIT).until(() -> sink.size() == 3);

    engine.putTarget(spec.toBuilder().generation(2).suspend(true).build());
    TargetStatus suspended = awaitStatus(engine, spec.id(),
        s -> is(s, Condition.READY, "False", TargetSuspension.REASON_SUSPENDED));
    assertThat(suspended.condition(Condition.DEGRADED).status()).isEqualTo("False");
    long reconciles = engine.reconcileCount(spec.id());
    api.cluster().client().apps().deployments().inNamespace("susp").withName("changed")
        .edit(d -> {
          d.getSpec().setReplicas(5);
          return d;
        });
    api.cluster().client().apps().deployments().inNamespace("susp").withName("gone").delete();
    api.cluster().deployment("susp", "new", "n:1", 1);
    await().during(Duration.ofMillis(800)).atMost(WAIT)
        .until(() -> engine.reconcileCount(spec.id()) == reconciles);
    assertThat(sink.size()).isEqualTo(3);

    engine.putTarget(spec.toBuilder().generation(3).suspend(false).build());
    awaitStatus(engine, spec.id(), s -> s.ready() && s.observedGeneration() == 3);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    List<Record> resumed = sink.records().subList(3, sink.size());
    assertThat(resumed).extracting(Record::name, Record::op).containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple("changed", Op.UPSERT),
        org.assertj.core.groups.Tuple.tuple("gone", Op.DELETE),
        org.assertj.core.groups.Tuple.tuple("new", Op.UPSERT));
  }

  @Test
  void aSuspendedSinkReceivesNothingItsTargetsSaySoAndResumingSendsOnlyWhatChanged() {
    api.cluster().namespace("sink-susp");
    api.cluster().deployment("sink-susp", "same", "s:1", 1);
    api.cluster().deployment("sink-susp", "changed", "c:1", 1);
    KollectEngine engine = track(builder().build());
    RecordingSink paused = new RecordingSink("paused");
    RecordingSink other = new RecordingSink("other");
    engine.putProfile("p", deploymentProfile());
    engine.putSink(paused, fastSink());
    engine.putSink(other, fastSink());
    TargetSpec spec = target("sinks", "sink-susp", "p", "paused", "other");
    engine.putTarget(spec);
    engine.start();
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    await().atMost(WAIT).until(() -> paused.size() == 2 && other.size() == 2);

    engine.setSinkSuspended("paused", true);
    TargetStatus s = awaitStatus(engine, spec.id(),
        st -> is(st, Condition.READY, "True", TargetSuspension.REASON_SUSPENDED));
    assertThat(s.condition(Condition.READY).message()).contains("sink paused is suspended");
    assertThat(s.condition(Condition.DEGRADED).status()).isEqualTo("False");
    api.cluster().client().apps().deployments().inNamespace("sink-susp").withName("changed")
        .edit(d -> {
          d.getSpec().setReplicas(4);
          return d;
        });
    api.cluster().deployment("sink-susp", "new", "n:1", 1);
    await().atMost(WAIT).until(() -> other.size() == 4);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(paused.size()).isEqualTo(2);

    engine.setSinkSuspended("paused", false);
    await().atMost(WAIT).until(() -> paused.size() == 4);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(paused.records().subList(2, 4)).extracting(Record::name)
        .containsExactlyInAnyOrder("changed", "new");
    awaitStatus(engine, spec.id(), st -> is(st, Condition.READY, "True", "Reconciled"));
  }

  @Test
  void aForcedFullPassReconcilesTheTargetAgain() {
    api.cluster().namespace("force");
    KollectEngine engine = track(builder().build());
    engine.putProfile("p", deploymentProfile());
    TargetSpec spec = target("force", "force", "p");
    engine.putTarget(spec);
    engine.start();
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    long before = engine.reconcileCount(spec.id());

    engine.requestFullPass(spec.id());

    await().atMost(WAIT).until(() -> engine.reconcileCount(spec.id()) > before);
  }

  /** What a receiver applying every record in order holds, by object name. */
  private static Map<String, Record> endState(RecordingSink sink) {
    Map<String, Record> out = new java.util.TreeMap<>();
    for (Record r : sink.records()) {
      if (r.op() == Op.DELETE) {
        out.remove(r.name());
      } else {
        out.put(r.name(), r);
      }
    }
    return out;
  }
}

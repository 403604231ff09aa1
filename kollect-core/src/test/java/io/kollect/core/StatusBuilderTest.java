package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusBuilderTest {

  private final TargetSpec spec = new TargetSpec(new TargetId("ns", "t"), 7, "p",
      TargetScope.everything(), List.of("s"), false);
  private final TargetRuntime rt =
      new TargetRuntime(TargetRuntime.Definition.of(spec));
  private final Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
  private final Instant t1 = Instant.parse("2026-01-01T00:01:00Z");

  @Test
  void theMostImportantDegradedReasonNamesTheConditionAndTheMessageListsAll() {
    var b = new StatusBuilder(rt, spec, t0);
    b.degraded("NotServed", "x/v1/A is not served");
    b.degraded("SinkNotFound", "sink s not found");
    b.degraded("InvalidProfile", "profile p is invalid: bad");
    b.ready("Reconciled", "ok");
    TargetStatus s = b.build(Map.of("apps/v1/Deployment", 2), null);
    assertThat(s.observedGeneration()).isEqualTo(7);
    assertThat(s.ready()).isTrue();
    Condition degraded = s.condition(Condition.DEGRADED);
    assertThat(degraded.status()).isEqualTo("True");
    assertThat(degraded.reason()).isEqualTo("InvalidProfile");
    assertThat(degraded.message())
        .isEqualTo("profile p is invalid: bad; sink s not found; x/v1/A is not served");
  }

  @Test
  void theFirstNotReadyReasonWinsOverALaterReady() {
    var b = new StatusBuilder(rt, spec, t0);
    b.notReady("NotSynced", "waiting");
    b.ready("Reconciled", "ok");
    TargetStatus s = b.build(Map.of(), null);
    assertThat(s.ready()).isFalse();
    assertThat(s.condition(Condition.READY).reason()).isEqualTo("NotSynced");
    assertThat(s.condition(Condition.DEGRADED).status()).isEqualTo("False");
  }

  @Test
  void lastTransitionTimeMovesOnlyWhenAConditionFlips() {
    var first = new StatusBuilder(rt, spec, t0);
    first.ready("Reconciled", "1 object");
    TargetStatus s0 = first.build(Map.of(), null);

    var second = new StatusBuilder(rt, spec, t1);
    second.ready("Reconciled", "2 objects");
    second.degraded("SinkNotFound", "sink s not found");
    TargetStatus s1 = second.build(Map.of(), s0);

    assertThat(s1.condition(Condition.READY).lastTransitionTime()).isEqualTo(t0);
    assertThat(s1.condition(Condition.DEGRADED).lastTransitionTime()).isEqualTo(t1);
  }

  @Test
  void statusesDifferingOnlyInLastExportCompareEqualWithoutIt() {
    var b = new StatusBuilder(rt, spec, t0);
    b.ready("Reconciled", "ok");
    b.lastExport(t0);
    TargetStatus a = b.build(Map.of("v1/Service", 1), null);
    b.lastExport(t1);
    TargetStatus c = b.build(Map.of("v1/Service", 1), a);
    assertThat(a).isNotEqualTo(c);
    assertThat(StatusBuilder.withoutLastExport(a)).isEqualTo(StatusBuilder.withoutLastExport(c));
  }

  @Test
  void failingObjectsAreCountedAndTheFirstFewNamedInAnExtractionErrorsCondition() {
    var clean = new StatusBuilder(rt, spec, t0);
    clean.ready("Reconciled", "ok");
    TargetStatus s0 = clean.build(Map.of(), null);
    assertThat(s0.extractionErrorCount()).isZero();
    assertThat(s0.condition(Condition.EXTRACTION_ERRORS).status()).isEqualTo("False");

    var b = new StatusBuilder(rt, spec, t1);
    b.ready("Reconciled", "ok");
    List<ExtractionError> errors = new java.util.ArrayList<>();
    for (int i = 0; i < 7; i++) {
      errors.add(new ExtractionError("v1/Secret", "ns", "s" + i, "not a Helm release"));
    }
    b.extractionErrors(errors);
    TargetStatus s1 = b.build(Map.of(), s0);
    assertThat(s1.extractionErrorCount()).isEqualTo(7);
    assertThat(s1.extractionErrors()).hasSize(TargetStatus.EXTRACTION_ERROR_SAMPLES)
        .first().isEqualTo(errors.get(0));
    Condition c = s1.condition(Condition.EXTRACTION_ERRORS);
    assertThat(c.status()).isEqualTo("True");
    assertThat(c.reason()).isEqualTo("ExtractionFailed");
    assertThat(c.lastTransitionTime()).isEqualTo(t1);
    assertThat(c.message()).startsWith("7 objects cannot be extracted and are left out: "
        + "v1/Secret ns/s0: not a Helm release; ").endsWith("; and 2 more");
    assertThat(s1.ready()).isTrue();
  }
}

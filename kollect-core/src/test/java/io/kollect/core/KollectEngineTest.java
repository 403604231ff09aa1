package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine's API contract where no API server is needed (nothing here talks to one). */
class KollectEngineTest {

  // Never contacted: these tests do not start the engine.
  private final KubernetesClient client = new KubernetesClientBuilder()
      .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build()).build();
  private final KollectEngine engine = KollectEngine.builder(client).build();

  @AfterEach
  void close() {
    engine.close();
    client.close();
  }

  private static ProfileSpec profile(String path) {
    return new ProfileSpec(List.of(new ResourceRule("apps", "v1", "Deployment",
        List.of(FieldRule.of("f", path)), List.of(), List.of(), List.of(), false, false)));
  }

  @Test
  void anInvalidProfileIsAcceptedAndItsErrorReported() {
    engine.putProfile("p", profile("{.spec.replicas"));
    assertThat(engine.profileError("p")).hasValueSatisfying(m ->
        assertThat(m).startsWith("profile p is invalid").contains("resources[0].fields[0]"));
    engine.putProfile("p", profile(".spec.replicas"));
    assertThat(engine.profileError("p")).isEmpty();
    assertThat(engine.profileError("unknown")).isEmpty();
  }

  @Test
  void anInvalidTargetIsRejectedNamingTheTargetAndField() {
    TargetSpec bad = new TargetSpec(new TargetId("ns", "t"), 1, "p",
        new TargetScope(List.of(), null, new LabelSelectorBuilder().addNewMatchExpression()
            .withKey("k").withOperator("Sometimes").endMatchExpression().build(), List.of()),
        List.of(), false);
    assertThatThrownBy(() -> engine.putTarget(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("target ns/t: scope.labelSelector.matchExpressions[0].operator");
    assertThatThrownBy(() -> engine.putTarget(new TargetSpec(new TargetId("ns", "t"), 1, " ",
        TargetScope.everything(), List.of(), false)))
        .hasMessage("spec.profileRef: must not be blank");
    assertThatThrownBy(() -> engine.putTarget(new TargetSpec(new TargetId("ns", "t"), 1, "p",
        TargetScope.namespaces(""), List.of(), false)))
        .hasMessage("target ns/t: scope.namespaces[]: must not be blank");
    assertThat(engine.status(new TargetId("ns", "t"))).isEmpty();
  }

  @Test
  void builderRejectsNonsenseSettingsNamingThem() {
    var b = KollectEngine.builder(client);
    assertThatThrownBy(() -> b.workers(0)).hasMessage("workers: must be at least 1, got 0");
    assertThatThrownBy(() -> b.cluster("")).hasMessage("cluster: must not be blank");
    assertThatThrownBy(() -> b.resyncPeriod(Duration.ofSeconds(-1)))
        .hasMessageStartingWith("resyncPeriod: must be zero or positive");
    assertThatThrownBy(() -> b.retryRateLimit(Duration.ZERO, Duration.ofSeconds(1), 1, 1))
        .hasMessageContaining("base delay must be positive");
    assertThatThrownBy(() -> b.accessReviewInterval(Duration.ZERO))
        .hasMessage("accessReviewInterval: must be positive, got PT0S");
    assertThatThrownBy(() -> b.defaultServiceAccount(" "))
        .hasMessage("defaultServiceAccount: must not be blank");
    assertThatThrownBy(() -> b.trustedNamespaces(java.util.Set.of("")))
        .hasMessage("trustedNamespaces[]: must not be blank");
    assertThatThrownBy(() -> b.fullPassInterval(Duration.ofSeconds(-1)))
        .hasMessage("fullPassInterval: must be zero or positive, got PT-1S");
    b.fullPassInterval(Duration.ZERO); // off: only caused full passes
  }

  @Test
  void theInventoryViewNameIsReservedAndAClosedEngineRefusesWork() {
    assertThatThrownBy(() -> engine.putSink(new RecordingSink(KollectEngine.INVENTORY_VIEW),
        io.kollect.export.SinkOptions.defaults())).hasMessageContaining("reserved");
    engine.close();
    assertThatThrownBy(() -> engine.putTarget(new TargetSpec(new TargetId("ns", "t"), 1, "p",
        TargetScope.everything(), List.of(), false))).hasMessage("engine is closed");
    assertThatThrownBy(engine::start).hasMessage("engine is closed");
    engine.removeTarget(new TargetId("ns", "t")); // no-op, no exception
    assertThat(engine.isReady()).isFalse();
  }

  /** A sink that counts how often it was closed. */
  static final class ClosableSink implements io.kollect.export.Sink {
    private final String name;
    final java.util.concurrent.atomic.AtomicInteger closed =
        new java.util.concurrent.atomic.AtomicInteger();

    ClosableSink(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public void write(List<io.kollect.extract.Record> batch) {}

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }

  @Test
  void reapplyingTheSameSinkIsANoOpButChangingItsOptionsNeedsANewInstance() {
    ClosableSink sink = new ClosableSink("s");
    io.kollect.export.SinkOptions options = io.kollect.export.SinkOptions.defaults();
    engine.putSink(sink, options);
    engine.putSink(sink, options);
    // Re-applying did not replace (and so close) the configured instance.
    assertThat(sink.closed).hasValue(0);
    assertThatThrownBy(() -> engine.putSink(sink, options.withMaxBatchSize(7)))
        .hasMessage("sink s: to change its options pass a new sink instance (the replaced "
            + "instance is closed)");
    assertThat(sink.closed).hasValue(0);
    ClosableSink replacement = new ClosableSink("s");
    engine.putSink(replacement, options.withMaxBatchSize(7));
    assertThat(sink.closed).hasValue(1);
    assertThat(replacement.closed).hasValue(0);
    engine.removeSink("s");
    assertThat(replacement.closed).hasValue(1);
    engine.removeSink("s"); // already gone: nothing is closed twice
    assertThat(replacement.closed).hasValue(1);
  }

  @Test
  void theHostsInventorySinkCannotBeReplacedByAnOrdinarySink() {
    try (KollectEngine withInventory = KollectEngine.builder(client)
        .inventorySink(new RecordingSink("inventory")).build()) {
      assertThatThrownBy(() -> withInventory.putSink(new RecordingSink("inventory"),
          io.kollect.export.SinkOptions.defaults()))
          .hasMessage("sink name: inventory is reserved (the engine's inventory)");
    }
  }
}

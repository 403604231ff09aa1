package io.kollect.operator.sink;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.crd.KindWatch;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.status.FeedContext;
import io.kollect.operator.status.ProblemReports;
import io.kollect.operator.status.ResourceStatuses;
import io.kollect.operator.status.SinkChecks;
import io.kollect.operator.targets.CrTranslation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KollectSinks into the engine ({@link SinkTranslation}), and their health back out: problems
 * once in the log and as an Event, and on the leader the sink's status (configuration, recent
 * deliveries, Kafka topic checks, the targets using it). A sink that cannot be built or read is
 * taken out of the engine; a change of {@code suspend} alone keeps the sink instance.
 */
public final class SinkFeed implements AutoCloseable {

  // The operator's logger, as for every problem of a Kollect resource: one name to filter on.
  private static final Logger log = LoggerFactory.getLogger(KollectOperator.class);

  private final FeedContext context;
  private final SinkTranslation translation;
  /** The readable KollectTargets, to count those naming a sink. */
  private final Supplier<List<KollectTarget>> targets;
  /** Per sink, the settings it was last built from (without {@code suspend}). */
  private final Map<String, KollectSinkSpec> applied = new ConcurrentHashMap<>();
  /** Configuration problems of KollectSinks by engine sink name. */
  private final Map<String, String> problems = new ConcurrentHashMap<>();
  /** Warnings (e.g. TLS verification off) of KollectSinks by engine sink name. */
  private final Map<String, List<String>> warnings = new ConcurrentHashMap<>();
  /** The kafka sinks among them: topic checks and producer metrics. */
  private final KafkaSinkChecks kafkaSinks;
  /** The otlp sinks among them: partial successes. */
  private final OtlpSinkReports otlpSinks;
  /** The postgres sinks among them: database checks and writers of the same cluster name. */
  private final PostgresSinkChecks postgresSinks;
  private volatile KindWatch<KollectSink> watch;

  /**
   * @param translation how a KollectSink becomes an engine sink
   * @param targets every readable KollectTarget, for the count of those naming a sink
   */
  public SinkFeed(FeedContext context, SinkTranslation translation,
      Supplier<List<KollectTarget>> targets) {
    this.context = context;
    this.translation = translation;
    this.targets = targets;
    this.postgresSinks = new PostgresSinkChecks(context.clock());
    this.otlpSinks = new OtlpSinkReports(
        context.metrics() == null ? null : context.metrics().registry());
    this.kafkaSinks = new KafkaSinkChecks(name -> {
      KindWatch<KollectSink> w = watch;
      if (w != null) {
        w.list().stream().filter(k -> name.equals(CrTranslation.sinkName(
            k.getMetadata().getNamespace(), k.getMetadata().getName())))
            .findFirst().ifPresent(this::writeStatus);
      }
    }, context.clock());
  }

  /**
   * Starts the watch and waits for its first list.
   *
   * @throws IllegalStateException naming the kind and the cause when the first list fails
   */
  public void start() {
    watch = new KindWatch<>(context.client(), KollectSink.class, KollectSinkSpec.class, true,
        context.resyncMillis(), context.handler(this::onSink, this::onSinkDeleted,
            (before, after) -> { }, this::onUnreadable));
    watch.startAndAwaitListed("KollectSinks");
  }

  /** Whether the first list is in. */
  public boolean listed() {
    KindWatch<KollectSink> w = watch;
    return w != null && w.hasSynced();
  }

  /** Reports every handled sink's known problem and status, for a new leader. */
  public void reportAll() {
    KindWatch<KollectSink> w = watch;
    if (w != null) {
      w.list().stream().filter(k -> context.namespaceFilter().test(k.getMetadata().getNamespace()))
          .forEach(this::report);
    }
  }

  void onSink(KollectSink sink) {
    String ns = sink.getMetadata().getNamespace();
    if (!context.namespaceFilter().test(ns)) {
      return;
    }
    String name = CrTranslation.sinkName(ns, sink.getMetadata().getName());
    boolean suspend = sink.getSpec() != null && Boolean.TRUE.equals(sink.getSpec().suspend());
    KollectSinkSpec settings = SinkSuspend.withoutSuspend(sink.getSpec());
    var engine = context.engine();
    if (settings != null && settings.equals(applied.get(name))
        && engine.isSinkSuspended(name) != suspend) {
      // Only suspend changed: keep the sink (a new instance would be sent everything again).
      engine.setSinkSuspended(name, suspend);
      report(sink);
      return;
    }
    try {
      SinkTranslation.Built built = translation.build(name, sink);
      // Before the sink is put, so a sink created suspended is handed nothing.
      engine.setSinkSuspended(name, suspend);
      engine.putSink(built.sink(), built.options());
      kafkaSinks.put(name, built.sink());
      otlpSinks.put(name, built.sink());
      postgresSinks.put(name, built.sink());
      applied.put(name, settings);
      problems.remove(name);
      warnings.put(name, built.warnings());
      built.warnings().forEach(w -> log.warn("KollectSink {}: {}", name, w));
    } catch (IllegalArgumentException e) {
      problems.put(name,
          "KollectSink " + name + ": " + ProblemReports.firstLine(e.getMessage()));
      engine.removeSink(name);
      kafkaSinks.remove(name);
      otlpSinks.remove(name);
      postgresSinks.remove(name);
      applied.remove(name);
    }
    report(sink);
  }

  /** Logs (once), records as an event and writes to status the sink's known problem. */
  private void report(KollectSink sink) {
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    context.problems().report(sink, "InvalidSink", "KollectSink " + name, problems.get(name));
    writeStatus(sink);
  }

  private void writeStatus(KollectSink sink) {
    KindWatch<KollectSink> w = watch;
    if (!context.leader().getAsBoolean() || w == null) {
      return;
    }
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    w.cached(name).ifPresent(cached -> context.status().write(cached, ResourceStatuses.sink(sink,
        problems.get(name), context.metrics().delivery(name),
        warnings.getOrDefault(name, List.of()), new SinkChecks(kafkaSinks.topicCheck(name),
            postgresSinks.databaseCheck(name), postgresSinks.writerConflicts(name),
            otlpSinks.lastPartialSuccess(name)),
        targetsUsing(sink.getMetadata().getNamespace(), sink.getMetadata().getName()),
        context.clock().instant())));
  }

  /**
   * Re-evaluates every sink's status from its configuration and its recent deliveries; a sink
   * whose problem is a missing Secret is configured again (the Secret may exist now).
   */
  public void recheck() {
    if (context.metrics() != null) {
      kafkaSinks.publish(context.metrics());
    }
    KindWatch<KollectSink> w = watch;
    if (!context.leader().getAsBoolean() || w == null) {
      return;
    }
    kafkaSinks.recheck();
    postgresSinks.recheck();
    for (KollectSink sink : w.list()) {
      if (context.namespaceFilter().test(sink.getMetadata().getNamespace())) {
        String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
            sink.getMetadata().getName());
        String problem = problems.get(name);
        if (problem != null && problem.contains("Secret ")) {
          onSink(sink);
        } else {
          writeStatus(sink);
        }
      }
    }
  }

  private void onSinkDeleted(HasMetadata sink) {
    String name = CrTranslation.sinkName(sink.getMetadata().getNamespace(),
        sink.getMetadata().getName());
    context.engine().removeSink(name);
    kafkaSinks.remove(name);
    otlpSinks.remove(name);
    postgresSinks.remove(name);
    applied.remove(name);
    problems.remove(name);
    warnings.remove(name);
    if (context.metrics() != null) {
      context.metrics().sinkRemoved(name);
    }
  }

  /** A sink this operator cannot read (e.g. a {@code type} from a newer CRD) stops being used. */
  private void onUnreadable(GenericKubernetesResource object, String message) {
    if (context.namespaceFilter().test(object.getMetadata().getNamespace())) {
      String name = CrTranslation.sinkName(object.getMetadata().getNamespace(),
          object.getMetadata().getName());
      context.engine().removeSink(name);
      problems.put(name, message);
    }
  }

  /** How many known targets name this sink. */
  private int targetsUsing(String namespace, String sink) {
    return (int) targets.get().stream()
        .filter(t -> namespace.equals(t.getMetadata().getNamespace()) && t.getSpec() != null
            && t.getSpec().sinkRefs() != null && t.getSpec().sinkRefs().contains(sink))
        .count();
  }

  @Override
  public void close() {
    kafkaSinks.close();
    postgresSinks.close();
    KindWatch<KollectSink> w = watch;
    if (w != null) {
      w.close();
    }
  }
}

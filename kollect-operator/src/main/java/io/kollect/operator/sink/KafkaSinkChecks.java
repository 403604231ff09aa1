package io.kollect.operator.sink;

import io.kollect.export.Sink;
import io.kollect.export.kafka.KafkaSink;
import io.kollect.export.kafka.TopicCheck;
import io.kollect.operator.metrics.OperatorMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The kafka sinks of KollectSinks, for their status and metrics. A topic check asks the brokers
 * and can take up to the sink's delivery timeout (a wrong address), so it runs in the background
 * ({@link BackgroundSinkChecks}); when it is done {@code changed} rewrites that sink's status. A
 * sink is checked when it is (re)built, that is on every reconcile of its KollectSink, and again
 * while its topic is not ready, at most every {@link #RECHECK}; a check its own writes made is
 * reported at the next recheck.
 */
final class KafkaSinkChecks implements AutoCloseable {

  /** How often a topic that is not ready (missing, not compacted, unreachable) is asked again. */
  static final Duration RECHECK = Duration.ofSeconds(30);

  private final BackgroundSinkChecks<KafkaSink> checks;
  /** Sinks whose meters {@link #publish} registered. */
  private final Set<String> published = ConcurrentHashMap.newKeySet();

  public KafkaSinkChecks(Consumer<String> changed, Clock clock) {
    this.checks = BackgroundSinkChecks.of(KafkaSink.class)
        .check(KafkaSink::checkTopic)
        .ready(sink -> sink.topicCheck().status() == TopicCheck.Status.READY)
        // a write that finds the topic not ready checks it again itself
        .outcome(KafkaSink::topicCheck)
        .afterCheck((name, sink) -> changed.accept(name))
        .recheckInterval(RECHECK)
        .clock(clock)
        .threadName("kollect-kafka-topic-check")
        .build();
  }

  /** The engine sink {@code name} is now {@code sink}: a kafka sink is checked at once. */
  public void put(String name, Sink sink) {
    checks.put(name, sink);
  }

  public void remove(String name) {
    checks.remove(name);
  }

  /** The last topic check of the kafka sink {@code name}; {@code null} for other sinks. */
  public TopicCheck topicCheck(String name) {
    KafkaSink sink = checks.sink(name);
    return sink == null ? null : sink.topicCheck();
  }

  /** Checks again every kafka sink whose topic was not ready at its last check. */
  public void recheck() {
    checks.recheck();
  }

  /**
   * Publishes each kafka sink's lag and its producer's own metrics, and drops those of sinks
   * removed since the last call. Removal is done here, not in {@link #remove}, because every way a
   * kafka sink goes (deleted, another type, invalid) ends with it no longer kept, and a publish
   * racing with a removal re-registers the gauges only until the next call.
   */
  public void publish(OperatorMetrics metrics) {
    published.removeIf(name -> {
      if (checks.sink(name) != null) {
        return false;
      }
      metrics.kafkaSinkRemoved(name);
      return true;
    });
    checks.forEach((name, sink) -> {
      metrics.kafkaSink(name, sink.lag(), sink.producerMetrics());
      published.add(name);
    });
  }

  @Override
  public void close() {
    checks.close();
  }
}

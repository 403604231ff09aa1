package io.kollect.operator.sink;

import io.kollect.export.Sink;
import io.kollect.export.kafka.KafkaSink;
import io.kollect.export.kafka.TopicCheck;
import io.kollect.operator.metrics.OperatorMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The kafka sinks of KollectSinks, for their status and metrics. A topic check asks the brokers
 * and can take up to the sink's delivery timeout (a wrong address), so it runs on a thread of its
 * own, never on a watch thread nor on the sink-health loop, and at most one per sink at a time;
 * when it is done {@code changed} rewrites that sink's status. A sink is checked when it is
 * (re)built, that is on every reconcile of its KollectSink, and again while its topic is not
 * ready, at most every {@link #RECHECK}.
 */
final class KafkaSinkChecks implements AutoCloseable {

  /** How often a topic that is not ready (missing, not compacted, unreachable) is asked again. */
  static final Duration RECHECK = Duration.ofSeconds(30);

  private record Entry(KafkaSink sink, Instant lastCheck) {}

  private final Map<String, Entry> sinks = new ConcurrentHashMap<>();
  private final Map<KafkaSink, Boolean> running = new ConcurrentHashMap<>();
  /** Sinks whose meters {@link #publish} registered. */
  private final Set<String> published = ConcurrentHashMap.newKeySet();
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "kollect-kafka-topic-check");
    t.setDaemon(true);
    return t;
  });
  private final Consumer<String> changed;
  private final Clock clock;

  public KafkaSinkChecks(Consumer<String> changed, Clock clock) {
    this.changed = changed;
    this.clock = clock;
  }

  /** The engine sink {@code name} is now {@code sink}: a kafka sink is checked at once. */
  public void put(String name, Sink sink) {
    if (sink instanceof KafkaSink kafka) {
      sinks.put(name, new Entry(kafka, clock.instant()));
      check(name, kafka);
    } else {
      sinks.remove(name);
    }
  }

  public void remove(String name) {
    sinks.remove(name);
  }

  /** The last topic check of the kafka sink {@code name}; {@code null} for other sinks. */
  public TopicCheck topicCheck(String name) {
    Entry e = sinks.get(name);
    return e == null ? null : e.sink().topicCheck();
  }

  /** Checks again every kafka sink whose topic was not ready at its last check. */
  public void recheck() {
    Instant now = clock.instant();
    sinks.forEach((name, e) -> {
      if (e.sink().topicCheck().status() != TopicCheck.Status.READY
          && !now.isBefore(e.lastCheck().plus(RECHECK))
          && sinks.replace(name, e, new Entry(e.sink(), now))) {
        check(name, e.sink());
      }
    });
  }

  /**
   * Publishes each kafka sink's lag and its producer's own metrics, and drops those of sinks
   * removed since the last call. Removal is done here, not in {@link #remove}, because every way a
   * kafka sink goes (deleted, another type, invalid) ends with it missing from {@link #sinks}, and
   * a publish racing with a removal re-registers the gauges only until the next call.
   */
  public void publish(OperatorMetrics metrics) {
    published.removeIf(name -> {
      if (sinks.containsKey(name)) {
        return false;
      }
      metrics.kafkaSinkRemoved(name);
      return true;
    });
    sinks.forEach((name, e) -> {
      metrics.kafkaSink(name, e.sink().lag(), e.sink().producerMetrics());
      published.add(name);
    });
  }

  private void check(String name, KafkaSink sink) {
    if (running.putIfAbsent(sink, Boolean.TRUE) != null) {
      return;
    }
    executor.execute(() -> {
      try {
        sink.checkTopic();
      } finally {
        running.remove(sink);
      }
      Entry current = sinks.get(name);
      if (current != null && current.sink() == sink) {
        changed.accept(name);
      }
    });
  }

  @Override
  public void close() {
    executor.shutdownNow();
    // A check interrupted here still logs its end: let it, so nothing outlives the close.
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sinks.clear();
  }
}

package io.kollect.export;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** An {@link ExportMetrics} that counts, for assertions. */
class CountingMetrics implements ExportMetrics {

  final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
  final Map<String, AtomicLong> maxQueueDepth = new ConcurrentHashMap<>();
  final Map<String, Instant> lastSuccess = new ConcurrentHashMap<>();

  long get(String metric, String sink) {
    AtomicLong v = counters.get(metric + ":" + sink);
    return v == null ? 0 : v.get();
  }

  long maxDepth(String sink) {
    AtomicLong v = maxQueueDepth.get(sink);
    return v == null ? 0 : v.get();
  }

  private void add(String metric, String sink, long n) {
    counters.computeIfAbsent(metric + ":" + sink, k -> new AtomicLong()).addAndGet(n);
  }

  @Override
  public void sent(String sink, int records) {
    add("sent", sink, records);
  }

  @Override
  public void failed(String sink, int records, boolean permanent) {
    add(permanent ? "failedPermanent" : "failedRetryable", sink, records);
  }

  @Override
  public void retried(String sink, int records) {
    add("retried", sink, records);
  }

  @Override
  public void dropped(String sink, int records) {
    add("dropped", sink, records);
  }

  @Override
  public void queueDepth(String sink, int depth) {
    maxQueueDepth.computeIfAbsent(sink, k -> new AtomicLong()).accumulateAndGet(depth, Math::max);
  }

  @Override
  public void lastSuccess(String sink, Instant when) {
    lastSuccess.put(sink, when);
  }
}

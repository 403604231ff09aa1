package io.kollect.informers;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** An {@link InformerMetrics} that keeps counts in memory for assertions. */
final class CountingMetrics implements InformerMetrics {

  final AtomicLong informers = new AtomicLong();
  final Map<ResourceType, Long> cached = new ConcurrentHashMap<>();
  final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();

  @Override
  public void informers(int delta) {
    informers.addAndGet(delta);
  }

  @Override
  public void cachedObjects(ResourceType type, long count) {
    cached.put(type, count);
  }

  @Override
  public void event(ResourceType type, ResourceEvent.Kind kind) {
    count(type + " event " + kind);
  }

  @Override
  public void listWatchError(ResourceType type) {
    count(type + " listWatchError");
  }

  @Override
  public void watchRestart(ResourceType type) {
    count(type + " watchRestart");
  }

  @Override
  public void watchRestarted(ResourceType type, String reason) {
    count(type + " watchRestarted " + reason);
  }

  long get(String key) {
    AtomicLong c = counters.get(key);
    return c == null ? 0 : c.get();
  }

  private void count(String key) {
    counters.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
  }
}

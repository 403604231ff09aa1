package io.kollect.export;

import io.kollect.extract.Record;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * A real {@link Sink} that keeps every record it accepted, in order. Tests can close a gate to
 * make writes block, and install a failure rule to make writes fail.
 */
final class RecordingSink implements Sink {

  private final String name;
  final List<Record> received = new CopyOnWriteArrayList<>();
  final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  private final Semaphore gate = new Semaphore(Integer.MAX_VALUE);
  private volatile Function<List<Record>, SinkException> failure = batch -> null;
  volatile boolean closed;
  volatile int writesStarted;

  RecordingSink(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  /** Makes writes block until {@link #open()}. */
  void block() {
    gate.drainPermits();
  }

  void open() {
    gate.release(Integer.MAX_VALUE - gate.availablePermits());
  }

  void failWith(Function<List<Record>, SinkException> rule) {
    this.failure = rule;
  }

  @Override
  public void write(List<Record> batch) throws SinkException {
    writesStarted++;
    try {
      gate.acquire();
      gate.release();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw SinkException.retryable("interrupted", e);
    }
    SinkException e = failure.apply(batch);
    if (e != null) {
      throw e;
    }
    batchSizes.add(batch.size());
    received.addAll(batch);
  }

  /** Set by tests that model one receiver every shard writes to. */
  volatile boolean sharedByShards;

  @Override
  public boolean destinationSharedByShards() {
    return sharedByShards;
  }

  @Override
  public void close() {
    closed = true;
  }

  /** The last record received per key. */
  Map<String, Record> latestByKey() {
    Map<String, Record> out = new LinkedHashMap<>();
    for (Record r : received) {
      out.put(r.key(), r);
    }
    return out;
  }

  List<String> receivedKeys() {
    List<String> keys = new ArrayList<>();
    for (Record r : received) {
      keys.add(r.key());
    }
    return keys;
  }

  void clear() {
    received.clear();
    batchSizes.clear();
  }
}

package io.kollect.core;

import io.kollect.export.Sink;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.util.ArrayList;
import java.util.List;

/** A real in-process sink that keeps every record it is given, in delivery order. */
public final class RecordingSink implements Sink {

  private final String name;
  private final boolean sharedByShards;
  private final List<Record> records = new ArrayList<>();
  private int batches;

  public RecordingSink(String name) {
    this(name, false);
  }

  private RecordingSink(String name, boolean sharedByShards) {
    this.name = name;
    this.sharedByShards = sharedByShards;
  }

  /**
   * A recording sink standing for one receiver that every shard writes to (an HTTP receiver, a
   * Kafka topic): checkpoint entries move between shards for it.
   */
  public static RecordingSink sharedByShards(String name) {
    return new RecordingSink(name, true);
  }

  @Override
  public boolean destinationSharedByShards() {
    return sharedByShards;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public synchronized void write(List<Record> batch) {
    records.addAll(batch);
    batches++;
  }

  public synchronized List<Record> records() {
    return List.copyOf(records);
  }

  /** Records of one object ({@code namespace/name}), in delivery order. */
  public synchronized List<Record> of(String namespace, String name) {
    return records.stream()
        .filter(r -> namespace.equals(r.namespace()) && name.equals(r.name()))
        .toList();
  }

  public synchronized List<Record> ops(Op op) {
    return records.stream().filter(r -> r.op() == op).toList();
  }

  public synchronized int size() {
    return records.size();
  }

  public synchronized int batches() {
    return batches;
  }
}

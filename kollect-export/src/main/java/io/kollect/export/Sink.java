package io.kollect.export;

import io.kollect.extract.Record;
import java.util.List;

/**
 * A destination for records. Implementations deliver a batch or throw; the {@link Exporter} owns
 * batching, coalescing, retries and ordering.
 *
 * <p>Every batch holds records of <em>one</em> target, and two batches of the same target are
 * never written at the same time, so per-object order holds and one target's slow or failing
 * records never hold up another's. By default {@link #write} is called from one thread at a time,
 * so a sink needs no locking of its own; a sink that returns {@code true} from {@link
 * #concurrentWrites()} is written by up to {@link SinkOptions#concurrency()} threads at once (for
 * different targets), so one target's slow write does not delay the others either.
 */
public interface Sink extends AutoCloseable {

  /** A stable name, unique within an exporter; dedupe state and metrics are kept under it. */
  String name();

  /**
   * Delivers a batch. Returns normally only when every record is delivered.
   *
   * @throws SinkException when the batch was not (fully) delivered; {@link
   *     SinkException#retryable()} tells the exporter whether to try again, and a {@link
   *     RecordsRejectedException} names the records that can never be delivered
   */
  void write(List<Record> batch) throws SinkException;

  /**
   * Whether {@link #write} may be called concurrently for different targets (default {@code
   * false}). Return {@code true} only when the implementation is thread-safe.
   */
  default boolean concurrentWrites() {
    return false;
  }

  /**
   * Whether every shard of a sharded deployment writes to the same destination through its own
   * instance of this sink, e.g. one HTTP receiver or one Kafka topic (default {@code false}: a
   * destination of this instance alone, like stdout, a local file or a shard's own inventory
   * objects). Only for such a sink do checkpoint entries move between shards with their objects
   * ({@link CheckpointStore#loadPeers}): what one shard's instance was acknowledged is then what
   * the destination holds for every shard. For a destination of its own, a shard that inherits an
   * object must send it there, and the entry of an object it lost is simply dropped.
   */
  default boolean destinationSharedByShards() {
    return false;
  }

  @Override
  default void close() {}
}

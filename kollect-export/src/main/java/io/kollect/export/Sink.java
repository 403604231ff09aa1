package io.kollect.export;

import io.kollect.extract.Record;
import java.util.List;

/**
 * A destination for records. Implementations deliver a batch or throw; the {@link Exporter} owns
 * batching, coalescing, retries and ordering, and calls {@link #write} from one thread per sink at a
 * time, so a sink needs no locking of its own.
 */
public interface Sink extends AutoCloseable {

  /** A stable name, unique within an exporter; dedupe state and metrics are kept under it. */
  String name();

  /**
   * Delivers a batch. Returns normally only when every record is delivered.
   *
   * @throws SinkException when the batch was not (fully) delivered; {@link
   *     SinkException#retryable()} tells the exporter whether to try again
   */
  void write(List<Record> batch) throws SinkException;

  @Override
  default void close() {}
}

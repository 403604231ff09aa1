package io.kollect.export;

import io.kollect.extract.Record;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Writes each record as one JSON line (JSONL) to a stream, standard output by default, flushing
 * after every batch. Useful for log shippers that read container output.
 */
public final class StdoutSink implements Sink {

  private final String name;
  private final PrintStream out;
  private final BatchSizeHint batchSize = new BatchSizeHint(512, BatchSizeHint.RECORDS_MAX_BYTES);

  /** A sink writing to {@link System#out}. */
  public StdoutSink(String name) {
    this(name, System.out);
  }

  public StdoutSink(String name, PrintStream out) {
    this.name = Objects.requireNonNull(name, "name");
    this.out = Objects.requireNonNull(out, "out");
  }

  /** A sink writing UTF-8 JSON lines to any stream (wrapped, not closed by {@link #close()}). */
  public static StdoutSink to(String name, OutputStream stream) {
    return new StdoutSink(name, new PrintStream(stream, false, StandardCharsets.UTF_8));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void write(List<Record> batch) throws SinkException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream(batchSize.bytesFor(batch.size()));
    try {
      RecordJson.writeLines(batch, buf);
    } catch (IOException e) {
      // unchecked, as writing each line as text threw it: the batch writer keeps such a batch
      throw new IllegalStateException("records cannot be serialised: " + e.getMessage(), e);
    }
    batchSize.observe(batch.size(), buf.size());
    try {
      // One write per batch: lines from one batch are never interleaved with other output.
      buf.writeTo(out);
    } catch (IOException e) {
      throw SinkException.retryable("sink " + name + ": writing to the output stream failed", e);
    }
    out.flush();
    if (out.checkError()) {
      throw SinkException.retryable("sink " + name + ": writing to the output stream failed", null);
    }
  }
}

package io.kollect.samples;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A {@link PrintStream} target that keeps every complete line, for the operator's stdout sink. */
final class LineCapture extends OutputStream {
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private final List<String> lines = new ArrayList<>();

  PrintStream printStream() {
    return new PrintStream(this, true, StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void write(int b) {
    if (b == '\n') {
      lines.add(pending.toString(StandardCharsets.UTF_8));
      pending.reset();
    } else {
      pending.write(b);
    }
  }

  synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  /** Every captured line parsed as a JSON record. */
  List<JsonNode> records() {
    List<JsonNode> out = new ArrayList<>();
    for (String line : lines()) {
      if (!line.isBlank()) {
        try {
          out.add(Sample.JSON.readTree(line));
        } catch (IOException e) {
          throw new UncheckedIOException("not a JSON record: " + line, e);
        }
      }
    }
    return out;
  }
}

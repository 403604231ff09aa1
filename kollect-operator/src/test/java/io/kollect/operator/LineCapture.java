package io.kollect.operator;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A stream that collects complete lines, safe to write from several threads. */
public final class LineCapture extends OutputStream {

  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private final List<String> lines = new ArrayList<>();

  public PrintStream printStream() {
    return new PrintStream(this, true, StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void write(int b) {
    if (b == '\n') {
      lines.add(partial.toString(StandardCharsets.UTF_8));
      partial.reset();
    } else {
      partial.write(b);
    }
  }

  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  public synchronized String text() {
    return String.join("\n", lines) + (partial.size() > 0 ? "\n" + partial.toString(StandardCharsets.UTF_8) : "");
  }
}

package io.kollect.operator;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

  /**
   * The loopback port the operator logged for {@code listener} ({@code metrics} or {@code
   * probes}) once it is listening: a run given {@code 127.0.0.1:0} binds a port no other test can
   * take between a pick and the bind.
   */
  public int awaitListeningPort(String listener) {
    Pattern logged = Pattern.compile(listener + " listening on /?127\\.0\\.0\\.1:(\\d+)");
    int[] port = new int[1];
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(2))
        .pollInterval(java.time.Duration.ofMillis(100)).until(() -> {
          Matcher m = logged.matcher(text());
          if (m.find()) {
            port[0] = Integer.parseInt(m.group(1));
            return true;
          }
          return false;
        });
    return port[0];
  }
}

package io.kollect.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged operator ({@code java -jar kollect.jar run ...}) as a separate OS process, with its
 * standard output and error in files for the test report.
 *
 * <p>Its listeners bind port 0 and the ports are read back from the operator's log: a port picked
 * free here and bound later by the process could be taken in between by another test JVM.
 */
final class OperatorProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** The line {@code OperatorHttp} logs once a listener is bound (text log format). */
  private static final Pattern LISTENING =
      Pattern.compile("(probes|metrics) listening on /?127\\.0\\.0\\.1:(\\d+)");

  private final Process process;
  private final Path stdout;
  private final Path stderr;
  private volatile Integer metricsPort;
  private volatile Integer probePort;

  private OperatorProcess(Process process, Path stdout, Path stderr) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /** The jar Maven built: {@code -Dkollect.jar}, else the operator module's target directory. */
  static Path jar() {
    String configured = System.getProperty("kollect.jar");
    return configured != null
        ? Path.of(configured)
        : SamplePaths.repoRoot().resolve("kollect-operator/target/kollect.jar");
  }

  /**
   * Starts {@code kollect run} with {@code runArgs} (logging in the text format) plus loopback
   * metrics and probe listeners on ports the system picks; output goes to {@code
   * logDir/<name>.out} and {@code .err}.
   */
  static OperatorProcess start(Path logDir, String name, List<String> runArgs) {
    Path jar = jar();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("packaged operator not found at " + jar
          + ": build it first (./mvnw -pl kollect-operator -am package -DskipTests)");
    }
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m",
        // a process of seconds on two shared cores: no optimising compiler and no GC threads to
        // feed, so its start costs the machine less
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-jar", jar.toString(),
        "run",
        "--metrics-bind-address", "127.0.0.1:0",
        "--health-probe-bind-address", "127.0.0.1:0"));
    command.addAll(runArgs);
    try {
      Files.createDirectories(logDir);
      Path out = logDir.resolve(name + ".out");
      Path err = logDir.resolve(name + ".err");
      Process p = new ProcessBuilder(command)
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .start();
      return new OperatorProcess(p, out, err);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The port a listener logged it is bound to; an {@link UncheckedIOException} (as a refused
   * connection would be) until it has.
   */
  private int port(String listener) {
    Integer known = "probes".equals(listener) ? probePort : metricsPort;
    if (known != null) {
      return known;
    }
    Matcher m = LISTENING.matcher(stderrText());
    while (m.find()) {
      int port = Integer.parseInt(m.group(2));
      if ("probes".equals(m.group(1))) {
        probePort = port;
      } else {
        metricsPort = port;
      }
    }
    known = "probes".equals(listener) ? probePort : metricsPort;
    if (known == null) {
      throw new UncheckedIOException(new IOException(
          "the operator has not logged its " + listener + " listener yet"));
    }
    return known;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** GET on the metrics listener ({@code /metrics}, {@code /inventory}), optionally with a token. */
  HttpResponse<String> getMetricsListener(String pathAndQuery, String bearerToken) {
    return get(port("metrics"), pathAndQuery, bearerToken);
  }

  /** GET on the probe listener ({@code /healthz}, {@code /readyz}). */
  HttpResponse<String> getProbe(String path) {
    return get(port("probes"), path, null);
  }

  private static HttpResponse<String> get(int port, String pathAndQuery, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(10))
        .GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + pathAndQuery + " on port " + port, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The process's standard error so far, for assertion messages. */
  String stderrText() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(cannot read " + stderr + ": " + e + ")";
    }
  }

  /** Kills the process the way an OOM kill or node loss would: no shutdown hooks, no flushing. */
  void killHard() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        killHard();
      }
    }
  }

  Path stdoutFile() {
    return stdout;
  }

  /** The process's standard output so far ({@code --stdout}: one record JSON per line). */
  String stdoutText() {
    try {
      return Files.readString(stdout);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

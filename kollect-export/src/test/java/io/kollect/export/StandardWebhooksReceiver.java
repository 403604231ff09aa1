package io.kollect.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The webhook receiver of {@code src/test/resources/standardwebhooks/receiver.js}: a node HTTP
 * server on loopback that verifies every request with the Standard Webhooks reference library
 * (npm {@code standardwebhooks}, installed once by {@code install.sh} into a cache outside the
 * repository). Without node or npm it fails the test, saying so. Public for kollect-operator's
 * tests (from this module's test-jar).
 */
public final class StandardWebhooksReceiver implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START = Duration.ofSeconds(60);

  private final Process process;
  private final URI uri;
  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();

  private StandardWebhooksReceiver(Process process, int port) {
    this.process = process;
    this.uri = URI.create("http://127.0.0.1:" + port + "/");
  }

  /** Installs the library if needed and starts a receiver that verifies with {@code secret}. */
  public static StandardWebhooksReceiver start(String secret) throws Exception {
    Path scripts = scripts();
    Path modules = Path.of(run(List.of("bash", scripts.resolve("install.sh").toString())))
        .resolve("node_modules");
    ProcessBuilder pb = new ProcessBuilder("node", scripts.resolve("receiver.js").toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("WEBHOOK_SECRET", secret);
    pb.environment().put("NODE_PATH", modules.toString());
    Process p = pb.start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = CompletableFuture.supplyAsync(() -> {
      try {
        return out.readLine();
      } catch (IOException e) {
        return null;
      }
    }).get(START.toSeconds(), TimeUnit.SECONDS);
    if (line == null || !line.startsWith("listening ")) {
      p.destroyForcibly();
      throw new AssertionError("the Standard Webhooks test receiver did not start (node "
          + "receiver.js printed " + line + ")");
    }
    return new StandardWebhooksReceiver(p, Integer.parseInt(line.substring(10).strip()));
  }

  /**
   * The scripts, copied out of the class path into a temporary directory: from another module
   * they are read from this module's test-jar, where they are no files node could run.
   */
  private static Path scripts() throws IOException {
    Path dir = Files.createTempDirectory("standardwebhooks");
    dir.toFile().deleteOnExit();
    for (String name : List.of("install.sh", "receiver.js")) {
      try (InputStream in = StandardWebhooksReceiver.class.getClassLoader()
          .getResourceAsStream("standardwebhooks/" + name)) {
        if (in == null) {
          throw new AssertionError("test resource standardwebhooks/" + name + " is missing");
        }
        Path file = dir.resolve(name);
        Files.copy(in, file);
        file.toFile().deleteOnExit();
      }
    }
    return dir;
  }

  /** Runs a command and returns its last line of output; fails the test with its error output. */
  private static String run(List<String> command) throws Exception {
    Path err = Files.createTempFile("standardwebhooks-install", ".log");
    try {
      Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new AssertionError("cannot install the npm package standardwebhooks, which the "
            + "signed-webhook tests verify with (node and npm are required): "
            + Files.readString(err).strip());
      }
      String[] lines = output.strip().split("\n");
      return lines[lines.length - 1].strip();
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command + " (are bash, node and npm installed?): "
          + e, e);
    } finally {
      Files.deleteIfExists(err);
    }
  }

  public URI uri() {
    return uri;
  }

  /** The next {@code count} new deliveries are recorded, then answered after {@code delay}. */
  public void stall(int count, Duration delay) throws Exception {
    post("stall", "{\"count\":" + count + ",\"ms\":" + delay.toMillis() + "}");
  }

  /** Every request so far, in arrival order. */
  public List<JsonNode> log() throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri.resolve("/log")).build(),
        HttpResponse.BodyHandlers.ofString());
    List<JsonNode> entries = new ArrayList<>();
    JSON.readTree(r.body()).forEach(entries::add);
    return entries;
  }

  /** Posts {@code body} with {@code headers} (name, value, ...) and returns the status. */
  public int post(byte[] body, String contentType, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri)
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /**
   * From now on verifies with {@code secret} alone: a sender still signing with the old key only
   * is refused (401), one signing with both keys during a rotation is accepted.
   */
  public void verifyWith(String secret) throws Exception {
    post("secret", JSON.writeValueAsString(java.util.Map.of("secret", secret)));
  }

  private void post(String path, String json) throws Exception {
    client.send(HttpRequest.newBuilder(uri.resolve("/" + path))
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.discarding());
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}

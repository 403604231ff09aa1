package io.kollect.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * A loopback endpoint for an {@code http} sink that applies records as {@code
 * docs/record-format.md} tells receivers to: per (target, key) it keeps the largest {@code
 * sequence} seen, DELETEs included, and applies a record only when its sequence is larger; a
 * record without a sequence is applied in arrival order (what a receiver ignoring sequences does).
 *
 * <p>Requests are handled concurrently. While {@link #delay} is set, a request is applied only
 * after that delay and then answered, like a slow receiver that still completes requests its
 * client gave up on.
 */
final class DeliveryReceiver implements AutoCloseable {

  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "delivery-receiver");
    t.setDaemon(true);
    return t;
  });
  private final HttpServer server;

  /** How long a request arriving now waits before it is applied and answered. */
  volatile Duration delay = Duration.ZERO;

  private final AtomicInteger inProgress = new AtomicInteger();
  /** Object names of the records in requests being processed now. */
  private final Map<Integer, Set<String>> namesInProgress = new ConcurrentHashMap<>();
  private final AtomicInteger requestIds = new AtomicInteger();

  // guarded by this
  private final Map<String, JsonNode> state = new HashMap<>();
  private final Map<String, Long> maxSequence = new HashMap<>();
  private int unsequenced;
  private int ignoredAsOlder;

  DeliveryReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext("/records", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /** The URL to give the {@code http} sink. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/records";
  }

  private void handle(HttpExchange ex) throws IOException {
    Duration wait = delay;
    int id = requestIds.incrementAndGet();
    inProgress.incrementAndGet();
    try (ex) {
      InputStream body = ex.getRequestBody();
      if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
        body = new GZIPInputStream(body);
      }
      JsonNode batch = Sample.JSON.readTree(body.readAllBytes());
      Set<String> names = new HashSet<>();
      batch.forEach(r -> names.add(r.path("name").asText()));
      namesInProgress.put(id, names);
      if (!wait.isZero()) {
        Thread.sleep(wait.toMillis());
      }
      apply(batch);
      ex.sendResponseHeaders(204, -1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // the client gave up before the answer: the batch was applied all the same
    } finally {
      namesInProgress.remove(id);
      inProgress.decrementAndGet();
    }
  }

  private synchronized void apply(JsonNode batch) {
    for (JsonNode r : batch) {
      String key = r.path("target").asText() + "|" + Sample.key(r);
      JsonNode seq = r.get("sequence");
      if (seq == null || seq.isNull()) {
        unsequenced++;
      } else {
        if (seq.asLong() <= maxSequence.getOrDefault(key, Long.MIN_VALUE)) {
          ignoredAsOlder++;
          continue;
        }
        maxSequence.put(key, seq.asLong());
      }
      if ("DELETE".equals(r.path("op").asText())) {
        state.remove(key);
      } else {
        state.put(key, r);
      }
    }
  }

  /** Requests being processed (received, not yet applied and answered). */
  int inProgress() {
    return inProgress.get();
  }

  /** The object names in the requests being processed now. */
  Set<String> namesInProgress() {
    Set<String> out = new HashSet<>();
    namesInProgress.values().forEach(out::addAll);
    return out;
  }

  /** The live records held, by object name (one target, one namespace). */
  synchronized Map<String, JsonNode> byName() {
    Map<String, JsonNode> out = new HashMap<>();
    state.values().forEach(r -> out.put(r.path("name").asText(), r));
    return out;
  }

  synchronized int unsequenced() {
    return unsequenced;
  }

  synchronized int ignoredAsOlder() {
    return ignoredAsOlder;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

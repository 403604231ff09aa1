package io.kollect.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
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
 * A loopback endpoint for an {@code http} sink that applies records the way {@code
 * docs/record-format.md} tells receivers to: per (cluster, target, record key) it keeps the largest {@code
 * sequence} seen, DELETEs included, and applies a record only when its sequence is larger. A
 * record without a sequence is applied in arrival order, as a receiver that ignores sequences
 * would.
 *
 * <p>Requests are handled concurrently. A slow receiver is modelled faithfully: a request that
 * arrives while {@link #delay(Duration)} is set is applied only after that delay and then answered,
 * so a request the client gave up on (timeout) is still applied, late, possibly after a newer one.
 */
public final class SequencedRecordReceiver implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "sequenced-record-receiver");
    t.setDaemon(true);
    return t;
  });
  private final HttpServer server;
  private volatile Duration delay = Duration.ZERO;
  private final AtomicInteger inProgress = new AtomicInteger();
  private final AtomicInteger requestIds = new AtomicInteger();
  /** Object names of the records in requests being processed now, by request. */
  private final Map<Integer, Set<String>> namesInProgress = new ConcurrentHashMap<>();

  // guarded by this
  private final Map<String, JsonNode> state = new HashMap<>();
  private final Map<String, Long> maxSequence = new HashMap<>();
  private int unsequenced;
  private int ignoredAsOlder;

  /** Starts listening on a free loopback port. */
  public SequencedRecordReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext("/records", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /** The URL to give the {@code http} sink. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/records");
  }

  /** How long a request arriving from now on waits before it is applied and answered. */
  public void delay(Duration d) {
    this.delay = d;
  }

  private void handle(HttpExchange ex) throws IOException {
    Duration wait = delay;
    int id = requestIds.incrementAndGet();
    inProgress.incrementAndGet();
    try (ex) {
      JsonNode batch;
      try (InputStream raw = ex.getRequestBody();
          InputStream in = "gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))
              ? new GZIPInputStream(raw) : raw) {
        batch = JSON.readTree(in);
      }
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

  /** The documented rule: upsert or delete only if newer; remember the largest sequence per key. */
  private synchronized void apply(JsonNode batch) {
    for (JsonNode r : batch) {
      // sequences are per (cluster, target, key): two clusters of one target hold the same keys
      String key = r.path("cluster").asText() + "|" + r.path("target").asText() + "|" + key(r);
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

  /** A record's key as {@code docs/record-format.md} defines it: {@code group/kind/namespace/name}. */
  public static String key(JsonNode record) {
    JsonNode ns = record.path("namespace");
    return record.path("resource").path("group").asText() + "/"
        + record.path("resource").path("kind").asText() + "/"
        + (ns.isNull() || ns.isMissingNode() ? "" : ns.asText()) + "/"
        + record.path("name").asText();
  }

  /** Requests being processed now (received, not yet applied and answered). */
  public int inProgress() {
    return inProgress.get();
  }

  /** The object names in the requests being processed now. */
  public Set<String> namesInProgress() {
    Set<String> out = new HashSet<>();
    namesInProgress.values().forEach(out::addAll);
    return out;
  }

  /** The live records held, by {@code target|key} (for a receiver fed by one cluster). */
  public synchronized Map<String, JsonNode> held() {
    Map<String, JsonNode> out = new HashMap<>();
    state.forEach((k, r) -> out.put(k.substring(k.indexOf('|') + 1), r));
    return out;
  }

  /** The live records held, by {@code cluster|target|key}. */
  public synchronized Map<String, JsonNode> heldByCluster() {
    return new HashMap<>(state);
  }

  /** The live records held, by object name (for a receiver fed by one target and namespace). */
  public synchronized Map<String, JsonNode> byName() {
    Map<String, JsonNode> out = new HashMap<>();
    state.values().forEach(r -> out.put(r.path("name").asText(), r));
    return out;
  }

  /** Records that came without a sequence. */
  public synchronized int unsequenced() {
    return unsequenced;
  }

  /** Records refused because a newer state of their key had been applied already. */
  public synchronized int ignoredAsOlder() {
    return ignoredAsOlder;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

package io.kollect.export;

import com.fasterxml.jackson.core.type.TypeReference;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * A real HTTP receiver on loopback that applies posted record batches to its own inventory and can
 * be told to fail: answer with an error status (optionally with {@code Retry-After}), stall the
 * response past the client's timeout, reject batches containing certain records, or stop listening
 * altogether and come back on the same port.
 *
 * <p>It checks per-key order as records arrive: every record carries a per-key sequence number
 * ({@code fields.seq}) that must never go backwards, and a key must not come back to life with an
 * old state after its DELETE.
 */
final class FaultyReceiver implements AutoCloseable {

  /** What to do with one request. */
  sealed interface Fault permits Status, Stall {}

  /** Answer {@code status} without applying the batch. */
  record Status(int status, String retryAfter) implements Fault {}

  /** Apply the batch, then hold the response for {@code delay}. */
  record Stall(Duration delay) implements Fault {}

  /** One received request. */
  record Request(long nanos, int status, int records, Map<String, String> headers) {}

  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "faulty-receiver");
    t.setDaemon(true);
    return t;
  });
  private HttpServer server;
  private int port;

  private final ConcurrentLinkedDeque<Fault> script = new ConcurrentLinkedDeque<>();
  private volatile Predicate<Record> reject = r -> false;
  private volatile Predicate<Map<String, String>> authorized = h -> true;

  // guarded by this
  final Map<String, Record> state = new HashMap<>();
  private final Map<String, Long> maxSeq = new HashMap<>();
  private final Map<String, Integer> seen = new HashMap<>();
  int applied;
  int duplicates;
  int stalledRecords;

  final List<String> violations = new CopyOnWriteArrayList<>();
  final List<Request> requests = new CopyOnWriteArrayList<>();
  final AtomicInteger stallsInProgress = new AtomicInteger();

  private FaultyReceiver() throws IOException {
    bind(0);
  }

  /** A receiver listening on a free loopback port. */
  static FaultyReceiver start() throws IOException {
    return new FaultyReceiver();
  }

  synchronized URI uri() {
    return URI.create("http://127.0.0.1:" + port + "/records");
  }

  private void bind(int p) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), p), 50);
    server.createContext("/records", this::handle);
    server.setExecutor(executor);
    server.start();
    port = server.getAddress().getPort();
  }

  /** Stops listening: clients now get "connection refused". */
  synchronized void stop() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
  }

  /** Listens again, on the same port as before. */
  synchronized void restart() throws IOException {
    if (server == null) {
      bind(port);
    }
  }

  void script(Fault... faults) {
    script.addAll(List.of(faults));
  }

  /** Requests whose (lower-cased) headers fail the predicate get 401. */
  void authorizeIf(Predicate<Map<String, String>> predicate) {
    this.authorized = predicate;
  }

  void rejectIf(Predicate<Record> predicate) {
    this.reject = predicate;
  }

  private void handle(HttpExchange ex) throws IOException {
    Map<String, String> headers = new HashMap<>();
    ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), String.join(",", v)));
    List<Record> batch;
    try (InputStream raw = ex.getRequestBody();
        InputStream in = "gzip".equals(headers.get("content-encoding"))
            ? new GZIPInputStream(raw) : raw) {
      batch = RecordJson.MAPPER.readValue(in, new TypeReference<List<Record>>() {});
    } catch (IOException e) {
      violations.add("unparseable body: " + e);
      respond(ex, 400, null, "unparseable");
      return;
    }
    if (!authorized.test(headers)) {
      requests.add(new Request(System.nanoTime(), 401, batch.size(), headers));
      respond(ex, 401, null, "unauthorized");
      return;
    }
    Fault fault = script.poll();
    if (fault instanceof Status s) {
      requests.add(new Request(System.nanoTime(), s.status(), batch.size(), headers));
      respond(ex, s.status(), s.retryAfter(), "injected");
      return;
    }
    if (batch.stream().anyMatch(reject)) {
      requests.add(new Request(System.nanoTime(), 400, batch.size(), headers));
      respond(ex, 400, null, "record rejected: schema violation");
      return;
    }
    apply(batch);
    requests.add(new Request(System.nanoTime(), 200, batch.size(), headers));
    if (fault instanceof Stall st) {
      synchronized (this) {
        stalledRecords += batch.size();
      }
      stallsInProgress.incrementAndGet();
      try {
        Thread.sleep(st.delay().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        stallsInProgress.decrementAndGet();
      }
    }
    respond(ex, 200, null, "");
  }

  private synchronized void apply(List<Record> batch) {
    for (Record r : batch) {
      String key = r.target() + "|" + r.key();
      Record prev = state.get(key);
      long max = maxSeq.getOrDefault(key, -1L);
      String id;
      if (r.op() == Op.UPSERT) {
        long seq = TestRecords.seq(r);
        if (seq < max) {
          violations.add(key + ": seq went back from " + max + " to " + seq);
        } else if (prev != null && prev.op() == Op.DELETE && seq <= max) {
          violations.add(key + ": resurrected at seq " + seq + " after its DELETE");
        }
        maxSeq.put(key, Math.max(max, seq));
        id = key + "|U|" + seq;
      } else {
        id = key + "|D|" + max;
      }
      if (seen.merge(id, 1, Integer::sum) > 1) {
        duplicates++;
      }
      state.put(key, r);
      applied++;
    }
  }

  private static void respond(HttpExchange ex, int status, String retryAfter, String body) {
    try (ex) {
      if (retryAfter != null) {
        ex.getResponseHeaders().add("Retry-After", retryAfter);
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        ex.getResponseBody().write(bytes);
      }
    } catch (IOException e) {
      // the client gave up (timeout) before the response; that is the point of a stall
    }
  }

  synchronized Map<String, Record> snapshot() {
    return new HashMap<>(state);
  }

  synchronized int applied() {
    return applied;
  }

  synchronized int duplicates() {
    return duplicates;
  }

  synchronized int stalledRecords() {
    return stalledRecords;
  }

  List<Request> requests() {
    return new ArrayList<>(requests);
  }

  @Override
  public void close() {
    stop();
    executor.shutdownNow();
  }
}

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
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * A loopback HTTP receiver that applies records the way {@code docs/record-format.md} tells
 * receivers to: per (target, key) it keeps the largest {@code sequence} it has seen, DELETEs
 * included, and applies a record only when its sequence is larger. A record without a sequence is
 * applied in arrival order, as a receiver that ignores sequences would.
 *
 * <p>Requests are handled concurrently. A slow receiver is modelled faithfully: a request that
 * arrives while {@link #delay} is set is applied only after that delay, and then answered, so a
 * request the client gave up on (timeout) is still applied, late, possibly after a newer one.
 */
final class SequenceHonouringReceiver implements AutoCloseable {

  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "sequence-receiver");
    t.setDaemon(true);
    return t;
  });
  private final HttpServer server;

  /** How long a request arriving now takes before it is applied and answered. */
  volatile Duration delay = Duration.ZERO;

  final AtomicInteger inProgress = new AtomicInteger();
  final AtomicInteger requests = new AtomicInteger();

  // guarded by this
  private final Map<String, Record> state = new HashMap<>();
  private final Map<String, Long> maxSequence = new HashMap<>();
  private int unsequenced;
  private int ignoredAsOlder;

  SequenceHonouringReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext("/records", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/records");
  }

  private void handle(HttpExchange ex) throws IOException {
    Duration wait = delay;
    inProgress.incrementAndGet();
    requests.incrementAndGet();
    try (ex) {
      List<Record> batch;
      try (InputStream raw = ex.getRequestBody();
          InputStream in = "gzip".equals(ex.getRequestHeaders().getFirst("Content-Encoding"))
              ? new GZIPInputStream(raw) : raw) {
        batch = RecordJson.MAPPER.readValue(in, new TypeReference<List<Record>>() {});
      }
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
      inProgress.decrementAndGet();
    }
  }

  /** The documented rule: upsert or delete only if newer; remember the largest sequence per key. */
  synchronized void apply(List<Record> batch) {
    for (Record r : batch) {
      String key = r.target() + "|" + r.key();
      if (r.sequence() == null) {
        unsequenced++;
      } else {
        long max = maxSequence.getOrDefault(key, Long.MIN_VALUE);
        if (r.sequence() <= max) {
          ignoredAsOlder++;
          continue;
        }
        maxSequence.put(key, r.sequence());
      }
      if (r.op() == Op.DELETE) {
        state.remove(key);
      } else {
        state.put(key, r);
      }
    }
  }

  /** The live objects held, by {@code target|key}. */
  synchronized Map<String, Record> snapshot() {
    return new HashMap<>(state);
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

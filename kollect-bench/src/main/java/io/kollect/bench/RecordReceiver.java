package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

/**
 * The loopback endpoint of the benchmark's http sink: decodes each batch (a JSON array of records)
 * and hands every record to a {@link Channel} with its arrival time, then answers 204. It keeps
 * nothing else, so a 150k-object inventory costs the runner little.
 */
final class RecordReceiver implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
    Thread t = new Thread(r, "record-receiver");
    t.setDaemon(true);
    return t;
  });
  private volatile Channel channel;

  RecordReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    server.createContext("/records", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/records";
  }

  /** Where records go from now on (one channel per operator run). */
  void deliverTo(Channel c) {
    this.channel = c;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      JsonNode batch;
      try (InputStream raw = ex.getRequestBody();
          InputStream in = "gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))
              ? new GZIPInputStream(raw) : raw) {
        batch = PlainApi.JSON.readTree(in);
      }
      long now = System.nanoTime();
      Channel c = channel;
      if (c != null) {
        for (JsonNode r : batch) {
          c.record(r, now);
        }
      }
      ex.sendResponseHeaders(204, -1);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

package io.kollect.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * A loopback HTTP endpoint for an {@code http} KollectSink: keeps every record it is sent, in
 * arrival order, so a test can count deliveries per object.
 */
final class RecordReceiver implements AutoCloseable {
  private final HttpServer server;
  private final List<JsonNode> received = new ArrayList<>();

  RecordReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/records", exchange -> {
      try (exchange) {
        if (!"POST".equals(exchange.getRequestMethod())) {
          exchange.sendResponseHeaders(405, -1);
          return;
        }
        InputStream body = exchange.getRequestBody();
        if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
          body = new GZIPInputStream(body);
        }
        JsonNode batch = Sample.JSON.readTree(body.readAllBytes());
        synchronized (received) {
          batch.forEach(received::add);
        }
        exchange.sendResponseHeaders(204, -1);
      }
    });
    server.start();
  }

  /** The URL to put in the sink's {@code spec.http.url}. */
  String url() {
    InetSocketAddress a = server.getAddress();
    return "http://" + a.getAddress().getHostAddress() + ":" + a.getPort() + "/records";
  }

  List<JsonNode> records() {
    synchronized (received) {
      return List.copyOf(received);
    }
  }

  /** How many records with {@code op} for the object {@code key} of {@code target} arrived. */
  long count(String target, String key, String op) {
    return records().stream()
        .filter(r -> target.equals(r.path("target").asText()))
        .filter(r -> key.equals(Sample.key(r)))
        .filter(r -> op.equals(r.path("op").asText()))
        .count();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

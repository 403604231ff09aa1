package io.kollect.informers;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A plain-HTTP loopback reverse proxy in front of the real API server (it forwards with the admin
 * client's own HTTP client, so it authenticates as the admin and streams watches through). It
 * records the list requests of {@code resource}, can answer the first of them carrying a
 * {@code continue} token with {@code 410 Gone}, as the API server does once etcd compacted past
 * the token's revision, and can silence the watches of one path ({@link #silenceWatchesOf}).
 */
final class ApiServerProxy implements AutoCloseable {

  /** What a 1.20 API server answers for an expired continue token. */
  static final String EXPIRED = """
      {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",\
      "message":"The provided continue parameter is too old to display a consistent list result.",\
      "reason":"Expired","code":410}""";
  private static final Set<String> HOP_BY_HOP = Set.of("host", "content-length", "connection",
      "transfer-encoding", "accept-encoding");

  private final HttpServer server;
  private final HttpClient upstream;
  private final String base;
  private final String resource;
  private final Runnable beforeGone;
  private final AtomicBoolean goneSent;
  /** Watches whose path contains this go silent; {@code null}: none. */
  private volatile String silenced;
  private final CountDownLatch closed = new CountDownLatch(1);
  final List<String> listUris = new CopyOnWriteArrayList<>();

  /**
   * @param beforeGone runs once, just before the 410 is answered (e.g. to change the cluster
   *     while the list is interrupted)
   */
  ApiServerProxy(KubernetesClient admin, String resource, Runnable beforeGone) {
    this(admin, resource, beforeGone, true);
  }

  /** A proxy that only forwards (and records list requests), never answering 410. */
  static ApiServerProxy forwarding(KubernetesClient admin, String resource) {
    return new ApiServerProxy(admin, resource, () -> { }, false);
  }

  private ApiServerProxy(KubernetesClient admin, String resource, Runnable beforeGone, boolean gone) {
    this.goneSent = new AtomicBoolean(!gone);
    this.upstream = admin.getHttpClient();
    this.base = admin.getMasterUrl().toString().replaceAll("/$", "");
    this.resource = resource;
    this.beforeGone = beforeGone;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "api-server-proxy");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/", this::handle);
    server.start();
  }

  /** A client that talks to the API server through this proxy (authenticated by the proxy). */
  KubernetesClient client(KubernetesClient admin) {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder(admin.getConfiguration())
        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
        .withClientCertData(null).withClientKeyData(null)
        .withClientCertFile(null).withClientKeyFile(null)
        .build()).build();
  }

  /**
   * From now on, watches whose path contains {@code pathPart} go silent, as over a network that
   * stopped delivering without closing anything: an open one forwards nothing more, a new one is
   * held unanswered until the proxy closes.
   */
  void silenceWatchesOf(String pathPart) {
    silenced = pathPart;
  }

  private boolean silent(String uri) {
    String part = silenced;
    return part != null && uri.contains("watch=") && uri.split("\\?", 2)[0].contains(part);
  }

  boolean goneSent() {
    return goneSent.get();
  }

  /** List requests (pages) of the resource forwarded or answered so far. */
  int listRequests() {
    return listUris.size();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String uri = exchange.getRequestURI().toString();
    boolean list = "GET".equals(exchange.getRequestMethod()) && uri.contains("/" + resource)
        && !uri.contains("watch=");
    if (list) {
      listUris.add(uri);
    }
    if (list && uri.contains("continue=") && goneSent.compareAndSet(false, true)) {
      beforeGone.run();
      byte[] body = EXPIRED.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(410, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
      return;
    }
    if (silent(uri)) {
      try {
        closed.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.close();
      return;
    }
    byte[] requestBody = exchange.getRequestBody().readAllBytes();
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    HttpRequest.Builder request = upstream.newHttpRequestBuilder().uri(base + uri);
    if (requestBody.length > 0) {
      request.method(exchange.getRequestMethod(), contentType,
          new String(requestBody, StandardCharsets.UTF_8));
    } else {
      request.method(exchange.getRequestMethod(), null, null);
    }
    exchange.getRequestHeaders().forEach((name, values) -> {
      if (!HOP_BY_HOP.contains(name.toLowerCase()) && !name.equalsIgnoreCase("content-type")) {
        values.forEach(v -> request.header(name, v));
      }
    });
    if (uri.contains("watch=")) {
      request.forStreaming();
    }
    OutputStream out = exchange.getResponseBody();
    try {
      HttpResponse<AsyncBody> response = upstream.consumeBytes(request.build(),
          (List<ByteBuffer> buffers, AsyncBody body) -> {
            if (silent(uri)) {
              body.consume(); // read on, pass nothing
              return;
            }
            for (ByteBuffer b : buffers) {
              byte[] bytes = new byte[b.remaining()];
              b.get(bytes);
              out.write(bytes);
            }
            // a watch is a stream: pass each event on at once
            out.flush();
            body.consume();
          }).get();
      response.headers().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase())) {
          values.forEach(v -> exchange.getResponseHeaders().add(name, v));
        }
      });
      exchange.sendResponseHeaders(response.code(), 0);
      response.body().consume();
      response.body().done().get();
    } catch (Exception e) {
      // the client or the upstream went away: end this exchange
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
  }
}

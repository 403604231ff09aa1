package io.kollect.operator.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.kollect.export.InventoryQuery;
import io.kollect.export.InventoryView;
import io.kollect.extract.Record;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's two listeners. The probe address serves {@code /healthz} and {@code /readyz};
 * the metrics address serves {@code /metrics} and the bearer-protected {@code /inventory}.
 */
public final class OperatorHttp implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OperatorHttp.class);
  private static final Set<String> QUERY_KEYS = Set.of("target", "group", "kind", "namespace", "name",
      "cluster");

  private final ObjectMapper mapper;
  private final Supplier<List<String>> unready;
  private final Supplier<String> metrics;
  private final Supplier<InventoryView> inventory;
  private final InventoryAuth auth;
  private final ExecutorService executor;
  /** A profile's experiment view for {@code /experiments/{profile}}, empty when unknown. */
  private final Function<String, Optional<?>> experiments;
  private HttpServer probeServer;
  private HttpServer metricsServer;

  public OperatorHttp(ObjectMapper mapper, BooleanSupplier ready, Supplier<String> metrics,
      Supplier<InventoryView> inventory, InventoryAuth auth) {
    this(mapper, () -> ready.getAsBoolean() ? List.of() : List.of("informers not synced"),
        metrics, inventory, auth);
  }

  /**
   * @param unready why the operator is not ready (one short line each); empty when it is
   */
  public OperatorHttp(ObjectMapper mapper, Supplier<List<String>> unready, Supplier<String> metrics,
      Supplier<InventoryView> inventory, InventoryAuth auth) {
    this(mapper, unready, metrics, inventory, auth, profile -> Optional.empty());
  }

  /**
   * The same, answering {@code GET /experiments/{profile}} with {@code experiments}' view (empty:
   * 404).
   */
  public OperatorHttp(ObjectMapper mapper, Supplier<List<String>> unready, Supplier<String> metrics,
      Supplier<InventoryView> inventory, InventoryAuth auth,
      Function<String, Optional<?>> experiments) {
    this.experiments = experiments;
    this.mapper = mapper;
    this.unready = unready;
    this.metrics = metrics;
    this.inventory = inventory;
    this.auth = auth;
    this.executor = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "kollect-http");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts the listeners that have an address; fails when a port is taken. */
  public void start(BindAddress probes, BindAddress metricsAddress) throws IOException {
    if (probes.address().isPresent()) {
      probeServer = listen(probes.address().get());
      probeServer.createContext("/healthz", get(ex -> send(ex, 200, "text/plain", "ok\n")));
      probeServer.createContext("/readyz", get(ex -> {
        List<String> reasons = unready.get();
        send(ex, reasons.isEmpty() ? 200 : 503, "text/plain",
            reasons.isEmpty() ? "ok\n" : "not ready: " + String.join("; ", reasons) + "\n");
      }));
      probeServer.start();
      log.info("probes listening on {} (/healthz, /readyz)", probeServer.getAddress());
    }
    if (metricsAddress.address().isPresent()) {
      metricsServer = listen(metricsAddress.address().get());
      metricsServer.createContext("/metrics", get(ex ->
          send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.get())));
      metricsServer.createContext("/inventory", get(this::inventory));
      metricsServer.createContext("/experiments/", get(this::experiment));
      metricsServer.start();
      log.info("metrics listening on {} (/metrics, /inventory, /experiments/)",
          metricsServer.getAddress());
    }
  }

  /** The probe listener's bound address (with the real port when 0 was asked for). */
  public Optional<InetSocketAddress> probeAddress() {
    return Optional.ofNullable(probeServer).map(HttpServer::getAddress);
  }

  /** The metrics listener's bound address. */
  public Optional<InetSocketAddress> metricsAddress() {
    return Optional.ofNullable(metricsServer).map(HttpServer::getAddress);
  }

  private HttpServer listen(InetSocketAddress address) throws IOException {
    HttpServer server = HttpServer.create(address, 16);
    server.setExecutor(executor);
    return server;
  }

  private void inventory(HttpExchange ex) throws IOException {
    if (!allowed(ex, "/inventory")) {
      return;
    }
    Map<String, String> params;
    try {
      params = query(ex.getRequestURI().getRawQuery());
    } catch (IllegalArgumentException e) {
      send(ex, 400, "text/plain", e.getMessage() + "\n");
      return;
    }
    InventoryQuery q = new InventoryQuery(params.get("target"), params.get("group"),
        params.get("kind"), params.get("namespace"), params.get("name"), params.get("cluster"));
    List<Record> records = inventory.get().query(q);
    send(ex, 200, "application/json", mapper.writeValueAsString(records));
  }

  /** Answers 401/403/404 and returns false unless the request may read {@code what}. */
  private boolean allowed(HttpExchange ex, String what) throws IOException {
    switch (auth.check(ex.getRequestHeaders().getFirst("Authorization"))) {
      case UNAUTHENTICATED -> {
        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"kollect\"");
        send(ex, 401, "text/plain", "a bearer token is required\n");
        return false;
      }
      case FORBIDDEN -> {
        send(ex, 403, "text/plain", "the token is not valid\n");
        return false;
      }
      case DISABLED -> {
        send(ex, 404, "text/plain", what
            + " is off: start with --inventory-token-file FILE or --inventory-auth=none\n");
        return false;
      }
      case ALLOWED -> {
        return true;
      }
      default -> throw new IllegalStateException();
    }
  }

  /** {@code GET /experiments/{profile}}: the profile's revisions, experiment and diff samples. */
  private void experiment(HttpExchange ex) throws IOException {
    if (!allowed(ex, "/experiments")) {
      return;
    }
    String profile = URLDecoder.decode(
        ex.getRequestURI().getRawPath().substring("/experiments/".length()),
        StandardCharsets.UTF_8);
    if (profile.isEmpty() || profile.contains("/")) {
      send(ex, 400, "text/plain", "use /experiments/{profile}\n");
      return;
    }
    Optional<?> view = experiments.apply(profile);
    if (view.isEmpty()) {
      send(ex, 404, "text/plain", "no KollectProfile " + profile + "\n");
      return;
    }
    send(ex, 200, "application/json", mapper.writeValueAsString(view.get()));
  }

  /** Parses the query string; unknown or repeated keys are errors so typos do not go unnoticed. */
  static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      if (!QUERY_KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "unknown query parameter '" + key + "': use target, group, kind, namespace, name, cluster");
      }
      if (out.put(key, value) != null) {
        throw new IllegalArgumentException("query parameter '" + key + "' given twice");
      }
    }
    return out;
  }

  private interface Handler {
    void handle(HttpExchange ex) throws IOException;
  }

  private static HttpHandler get(Handler handler) {
    return ex -> {
      try (ex) {
        if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
          ex.getResponseHeaders().set("Allow", "GET, HEAD");
          send(ex, 405, "text/plain", "method not allowed\n");
          return;
        }
        handler.handle(ex);
      } catch (RuntimeException | IOException e) {
        log.warn("{} {} failed: {}", ex.getRequestMethod(), ex.getRequestURI().getPath(), e.toString());
        try {
          send(ex, 500, "text/plain", "internal error\n");
        } catch (IOException | RuntimeException ignored) {
          // The response was already started; the client sees a truncated body.
        }
      }
    };
  }

  private static void send(HttpExchange ex, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    boolean head = "HEAD".equals(ex.getRequestMethod());
    ex.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    if (probeServer != null) {
      probeServer.stop(0);
    }
    if (metricsServer != null) {
      metricsServer.stop(0);
    }
    executor.shutdownNow();
  }
}

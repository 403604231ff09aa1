package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A plain Kubernetes API client on {@code java.net.http} and Jackson trees: the baseline a
 * paginated LIST is timed with, and the runner's own requests (creates, patches, the raw watch,
 * {@code /metrics}). No rate limit: the runner creates objects as fast as the API server takes them.
 * Authenticates with a static bearer token the test API server knows.
 */
final class PlainApi {

  static final ObjectMapper JSON = new ObjectMapper();

  private final URI server;
  private final String token;
  private final HttpClient http;

  PlainApi(String masterUrl, byte[] caPem, String token) {
    this.server = URI.create(masterUrl.endsWith("/") ? masterUrl.substring(0, masterUrl.length() - 1) : masterUrl);
    this.token = token;
    this.http = HttpClient.newBuilder()
        .sslContext(trusting(caPem))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static SSLContext trusting(byte[] caPem) {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509")
          .generateCertificates(new ByteArrayInputStream(caPem))) {
        store.setCertificateEntry("ca" + i++, c);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException("cannot trust the API server's CA", e);
    }
  }

  private HttpRequest.Builder request(String pathAndQuery) {
    return HttpRequest.newBuilder(URI.create(server + pathAndQuery))
        .header("Authorization", "Bearer " + token)
        .header("Accept", "application/json")
        .timeout(Duration.ofSeconds(60));
  }

  CompletableFuture<HttpResponse<String>> postAsync(String path, String json) {
    return http.sendAsync(request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
  }

  CompletableFuture<HttpResponse<String>> mergePatchAsync(String path, String json) {
    return http.sendAsync(request(path).header("Content-Type", "application/merge-patch+json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> delete(String path) throws IOException, InterruptedException {
    return http.send(request(path).DELETE().build(), HttpResponse.BodyHandlers.ofString());
  }

  String getText(String pathAndQuery) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request(pathAndQuery).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET " + pathAndQuery + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  /** What a paginated LIST gave: items, pages, and the resourceVersion of the list. */
  record ListResult(int items, int pages, String resourceVersion) {}

  /**
   * Lists {@code path} (e.g. {@code /api/v1/configmaps}) in pages of {@code limit}, following
   * {@code continue} tokens, decoding each page into a Jackson tree as a plain client would.
   */
  ListResult listAll(String path, int limit) throws IOException, InterruptedException {
    String cont = null;
    int items = 0;
    int pages = 0;
    String rv = null;
    do {
      String q = path + "?limit=" + limit
          + (cont == null ? "" : "&continue=" + URLEncoder.encode(cont, StandardCharsets.UTF_8));
      HttpResponse<InputStream> r = http.send(request(q).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
      JsonNode page;
      try (InputStream in = r.body()) {
        page = JSON.readTree(in);
      }
      if (r.statusCode() != 200) {
        throw new IOException("LIST " + q + ": HTTP " + r.statusCode() + " " + page);
      }
      items += page.path("items").size();
      pages++;
      rv = page.path("metadata").path("resourceVersion").asText();
      cont = page.path("metadata").path("continue").asText("");
      if (cont.isEmpty()) {
        cont = null;
      }
    } while (cont != null);
    return new ListResult(items, pages, rv);
  }

  /**
   * Watches {@code path} from {@code resourceVersion} on a daemon thread, handing each event
   * (one JSON line) to {@code onEvent}. The thread is a daemon: it ends with the runner.
   */
  Thread watch(String path, String resourceVersion, Consumer<JsonNode> onEvent) {
    Thread t = new Thread(() -> {
      try {
        HttpResponse<InputStream> r = http.send(
            request(path + "?watch=true&resourceVersion=" + resourceVersion)
                .timeout(Duration.ofHours(2)).GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = in.readLine()) != null) {
            if (!line.isBlank()) {
              onEvent.accept(JSON.readTree(line));
            }
          }
        }
      } catch (IOException e) {
        // The API server went away (the runner is closing): the watch simply ends.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "raw-watch");
    t.setDaemon(true);
    t.start();
    return t;
  }
}

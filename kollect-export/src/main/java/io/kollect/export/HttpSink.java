package io.kollect.export;

import io.kollect.export.HttpSinkConfig.BasicCredentials;
import io.kollect.extract.Record;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/**
 * Posts batches of records to an HTTP endpoint with the JDK {@link HttpClient}.
 *
 * <p>The request body is a JSON array of records in the documented record format ({@code
 * Content-Type: application/json}, optionally {@code Content-Encoding: gzip}). Outcomes:
 *
 * <ul>
 *   <li>2xx: delivered.
 *   <li>408, 429, 5xx, timeouts and connection errors: retryable; a {@code Retry-After} header
 *       (seconds or an HTTP date) tells the exporter when to retry.
 *   <li>401 and 403: retryable too. They reject the credentials, not the records; dropping would
 *       lose state until the next heartbeat, while retrying recovers as soon as a rotated secret
 *       reaches the credential supplier.
 *   <li>any other status (other 4xx, redirects, which are not followed): permanent; the records
 *       are dropped and counted.
 * </ul>
 */
public final class HttpSink implements Sink {

  private static final int ERROR_BODY_CHARS = 200;

  private final String name;
  private final HttpSinkConfig config;
  private final Clock clock;
  private final HttpClient client;

  public HttpSink(String name, HttpSinkConfig config) {
    this(name, config, Clock.systemUTC());
  }

  /** With a clock for turning an HTTP-date {@code Retry-After} into a delay. */
  public HttpSink(String name, HttpSinkConfig config, Clock clock) {
    this.name = Objects.requireNonNull(name, "name");
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
    HttpClient.Builder b = HttpClient.newBuilder()
        .connectTimeout(config.timeout())
        .followRedirects(HttpClient.Redirect.NEVER);
    if ("http".equalsIgnoreCase(config.url().getScheme())) {
      // no h2c upgrade attempt on plain HTTP: many receivers mishandle it
      b.version(HttpClient.Version.HTTP_1_1);
    }
    this.client = b.build();
  }

  @Override
  public String name() {
    return name;
  }

  public HttpSinkConfig config() {
    return config;
  }

  @Override
  public void write(List<Record> batch) throws SinkException {
    HttpRequest request = request(body(batch));
    HttpResponse<InputStream> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException e) {
      throw SinkException.retryable(prefix() + "connect timed out after " + config.timeout(), e);
    } catch (HttpTimeoutException e) {
      throw SinkException.retryable(prefix() + "no response within " + config.timeout(), e);
    } catch (ConnectException e) {
      throw SinkException.retryable(prefix() + "cannot connect: " + e.getMessage(), e);
    } catch (IOException e) {
      throw SinkException.retryable(prefix() + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw SinkException.retryable(prefix() + "interrupted", e);
    }
    int status = response.statusCode();
    String snippet = readSnippet(response.body());
    if (status >= 200 && status < 300) {
      return;
    }
    String message = prefix() + "HTTP " + status + (snippet.isEmpty() ? "" : ": " + snippet);
    if (status == 408 || status == 429 || status >= 500 || status == 401 || status == 403) {
      Duration retryAfter = response.headers().firstValue("Retry-After")
          .flatMap(v -> parseRetryAfter(v, clock)).orElse(null);
      throw new SinkException(message, true, retryAfter, null);
    }
    if (status >= 300 && status < 400) {
      message += " (redirects are not followed; point the sink at the final URL)";
    }
    throw SinkException.permanent(message, null);
  }

  private String prefix() {
    return "POST " + config.url() + ": ";
  }

  private byte[] body(List<Record> batch) throws SinkException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(batch.size() * 400 + 2);
    try (OutputStream out = config.gzip() ? new GZIPOutputStream(bytes, 8192) : bytes) {
      RecordJson.writeArray(batch, out);
    } catch (IOException | RuntimeException e) {
      throw SinkException.permanent("sink " + name + ": cannot serialise batch: " + e, e);
    }
    return bytes.toByteArray();
  }

  private HttpRequest request(byte[] body) throws SinkException {
    HttpRequest.Builder b = HttpRequest.newBuilder(config.url())
        .timeout(config.timeout())
        .header("Content-Type", "application/json")
        .header("User-Agent", "kollect-export")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (config.gzip()) {
      b.header("Content-Encoding", "gzip");
    }
    for (Map.Entry<String, String> h : config.headers().entrySet()) {
      b.header(h.getKey(), h.getValue());
    }
    if (config.bearerToken() != null) {
      String token = credential(() -> config.bearerToken().get(), "bearer token");
      if (token == null || token.isBlank()) {
        throw SinkException.retryable("sink " + name + ": bearer token is not available", null);
      }
      b.header("Authorization", "Bearer " + token.strip());
    } else if (config.basicAuth() != null) {
      BasicCredentials c = credential(() -> config.basicAuth().get(), "basic auth credentials");
      if (c == null) {
        throw SinkException.retryable("sink " + name + ": basic auth credentials are not available",
            null);
      }
      String pair = c.username() + ":" + c.password();
      b.header("Authorization",
          "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
    return b.build();
  }

  private interface CredentialRead<T> {
    T get();
  }

  /** Asks a credential supplier; a failing one (e.g. Secret not found yet) is worth a retry. */
  private <T> T credential(CredentialRead<T> read, String what) throws SinkException {
    try {
      return read.get();
    } catch (RuntimeException e) {
      // the exception's message could quote the secret's source; keep only its type
      throw SinkException.retryable("sink " + name + ": cannot read " + what + " ("
          + e.getClass().getSimpleName() + ")", null);
    }
  }

  private static String readSnippet(InputStream body) {
    try (InputStream in = body) {
      byte[] head = in.readNBytes(ERROR_BODY_CHARS * 2);
      String s = new String(head, StandardCharsets.UTF_8).strip().replaceAll("\\s+", " ");
      return s.length() > ERROR_BODY_CHARS ? s.substring(0, ERROR_BODY_CHARS) + "..." : s;
    } catch (IOException e) {
      return "";
    }
  }

  /** Parses {@code Retry-After}: delay seconds or an HTTP date (RFC 1123); empty when neither. */
  static Optional<Duration> parseRetryAfter(String value, Clock clock) {
    String v = value.strip();
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (v.chars().allMatch(Character::isDigit)) {
      try {
        return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
      } catch (NumberFormatException e) {
        return Optional.of(Backoff.MAX_RETRY_AFTER);
      }
    }
    try {
      ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
      Duration d = Duration.between(clock.instant(), at.toInstant());
      return Optional.of(d.isNegative() ? Duration.ZERO : d);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}

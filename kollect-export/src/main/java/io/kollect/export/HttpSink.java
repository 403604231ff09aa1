package io.kollect.export;

import io.cloudevents.CloudEvent;
import io.kollect.export.HttpSinkConfig.BasicCredentials;
import io.kollect.extract.Record;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts batches of records to an HTTP endpoint with the JDK {@link HttpClient}.
 *
 * <p>The request body is a JSON array of records in the documented record format ({@code
 * Content-Type: application/json}, optionally {@code Content-Encoding: gzip}); with {@link
 * HttpSinkConfig.Format#CLOUDEVENTS_BATCH} a JSON array of CloudEvents, with {@link
 * HttpSinkConfig.Format#CLOUDEVENTS_BINARY} one request per record in the CloudEvents binary
 * content mode. With {@link HttpSinkConfig#signing()} every request is signed the Standard Webhooks
 * way ({@link WebhookSigning}), with a timestamp taken afresh for every attempt. Outcomes:
 *
 * <ul>
 *   <li>2xx: delivered.
 *   <li>408, 429, 5xx, timeouts and connection errors: retryable; a {@code Retry-After} header
 *       (seconds or an HTTP date) tells the exporter when to retry.
 *   <li>401 and 403: retryable too. They reject the credentials, not the records; dropping would
 *       lose state until the next heartbeat, while retrying recovers as soon as a rotated secret
 *       reaches the credential supplier.
 *   <li>413 (Payload Too Large): permanent, so the exporter bisects the batch; a single record the
 *       receiver still refuses is a {@link RecordsRejectedException}: reported, not retried until
 *       its content changes, and the rest keeps flowing.
 *   <li>any other status (other 4xx, redirects, which are not followed): permanent; the records
 *       are dropped and counted.
 * </ul>
 *
 * <p>For an {@code https} URL the server is verified as {@link TlsConfig} says (by default
 * against the JDK's trust store, always with hostname verification). The TLS suppliers are read
 * before every request; when what they return changes, the sink builds a new TLS context and
 * client, so a rotated CA or client certificate takes effect without a restart. A rejected server
 * certificate, unreadable or invalid PEM and a client certificate the server refuses are
 * retryable failures whose message names the endpoint and the cause: like a 401, they reject the
 * configuration, not the records, and a rotated Secret fixes them.
 *
 * <p>Every error message starts with {@code POST <url>: } and names the cause, also for exceptions
 * the JDK leaves without a message.
 */
public final class HttpSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(HttpSink.class);
  private static final int ERROR_BODY_CHARS = 200;

  private final String name;
  private final HttpSinkConfig config;
  /** Sizes each batch's body from the one before (compressed bytes when the sink compresses). */
  private final BatchSizeHint bodySize = new BatchSizeHint(400, BatchSizeHint.RECORDS_MAX_BYTES);
  private final Clock clock;
  private final boolean https;
  /** {@code https://host:port}, for TLS error messages. */
  private final String origin;

  // The client and the TLS material it was built from; replaced when the material changes.
  // Guarded by this (the exporter calls write from one thread, a direct caller may not).
  private HttpClient client;
  private TlsConfig.Material clientMaterial;
  private TlsConfig.ClientIdentity identity;

  public HttpSink(String name, HttpSinkConfig config) {
    this(name, config, Clock.systemUTC());
  }

  /** With a clock for turning an HTTP-date {@code Retry-After} into a delay. */
  public HttpSink(String name, HttpSinkConfig config, Clock clock) {
    this.name = Objects.requireNonNull(name, "name");
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
    URI url = config.url();
    this.https = "https".equalsIgnoreCase(url.getScheme());
    this.origin = "https://" + url.getHost() + ":" + (url.getPort() > 0 ? url.getPort() : 443);
    if (!https) {
      // no h2c upgrade attempt on plain HTTP: many receivers mishandle it
      this.client = clientBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }
  }

  private HttpClient.Builder clientBuilder() {
    return HttpClient.newBuilder()
        .connectTimeout(config.timeout())
        .followRedirects(HttpClient.Redirect.NEVER);
  }

  /**
   * The client for the next request: for {@code https}, rebuilt when the TLS suppliers return
   * something else than last time (compared as strings, so an unchanged Secret costs nothing).
   */
  private synchronized HttpClient client() throws SinkException {
    if (!https) {
      return client;
    }
    if (identity != null) {
      identity.reset();
    }
    TlsConfig tls = config.tls() != null ? config.tls() : TlsConfig.defaults();
    TlsConfig.Material material;
    SSLContext context;
    try {
      material = tls.read();
      if (material.equals(clientMaterial)) {
        return client;
      }
      clientMaterial = null; // until a client for the new material exists
      TlsConfig.Context built = TlsConfig.sslContext(material, origin);
      context = built.ssl();
      identity = built.identity();
    } catch (TlsConfig.InvalidMaterial e) {
      throw SinkException.retryable(prefix() + "TLS configuration: " + e.getMessage(), null);
    }
    SSLParameters parameters = context.getDefaultSSLParameters();
    // hostname verification for this client, whatever the JDK-wide
    // jdk.internal.httpclient.disableHostnameVerification property says
    parameters.setEndpointIdentificationAlgorithm(material.insecure() ? null : "HTTPS");
    boolean rotated = clientMaterial != null;
    client = clientBuilder().sslContext(context).sslParameters(parameters).build();
    clientMaterial = material;
    if (material.insecure()) {
      LOG.warn("sink {}: TLS server verification is OFF for {} (insecureSkipVerify): anyone on "
          + "the network path can read and change what the sink sends", name, origin);
    }
    if (rotated) {
      LOG.info("sink {}: TLS material changed; new connections to {} use it", name, origin);
    }
    return client;
  }

  /** Every shard posts to the same receiver (one KollectSink). */
  @Override
  public boolean destinationSharedByShards() {
    return true;
  }

  /** Thread-safe: the JDK client and the TLS context swap are safe for concurrent batches. */
  @Override
  public boolean concurrentWrites() {
    return true;
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
    switch (config.format()) {
      case RECORDS -> post(batch, new Message(body(batch), "application/json", Map.of(), null));
      case CLOUDEVENTS_BATCH -> post(batch, eventBatch(batch));
      case CLOUDEVENTS_BINARY -> {
        // One request per record. A failure ends the write: a retryable one is retried for the
        // whole batch (a receiver de-duplicates the records already taken by their webhook-id
        // or event id), and a 413 names this record alone.
        for (Record record : batch) {
          post(List.of(record), binaryEvent(record));
        }
      }
    }
  }

  /**
   * One request's content before signing and compression.
   *
   * @param body the body, compressed already when {@code gzip} is on
   * @param webhookId the Standard Webhooks message id; {@code null}: a hash of the body
   */
  private record Message(byte[] body, String contentType, Map<String, String> headers,
      String webhookId) {}

  private Message eventBatch(List<Record> batch) throws SinkException {
    List<CloudEvent> events = new ArrayList<>(batch.size());
    StringBuilder ids = new StringBuilder(batch.size() * 33);
    try {
      for (Record r : batch) {
        CloudEvent event = CloudEventRecords.event(r);
        events.add(event);
        ids.append(event.getId()).append('\n');
      }
      // the id is a hash of the event ids: a retry or heartbeat of the same states repeats it
      return new Message(compressed(CloudEventRecords.batch(events)),
          CloudEventRecords.BATCH_CONTENT_TYPE, Map.of(), CloudEventRecords.hash(ids.toString()));
    } catch (IOException | RuntimeException e) {
      throw SinkException.permanent("sink " + name + ": cannot serialise batch: " + e, e);
    }
  }

  private Message binaryEvent(Record record) throws SinkException {
    try {
      CloudEvent event = CloudEventRecords.event(record);
      CloudEventRecords.Binary binary = CloudEventRecords.binary(event);
      Map<String, String> headers = new TreeMap<>(binary.headers());
      String contentType = headers.remove("content-type");
      return new Message(compressed(binary.body()),
          contentType == null ? CloudEventRecords.DATA_CONTENT_TYPE : contentType, headers,
          event.getId());
    } catch (IOException | RuntimeException e) {
      throw SinkException.permanent("sink " + name + ": cannot serialise record " + record.key()
          + ": " + e, e);
    }
  }

  private byte[] compressed(byte[] raw) throws IOException {
    if (!config.gzip()) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length / 4 + 64);
    try (OutputStream out = new GZIPOutputStream(bytes, 8192)) {
      out.write(raw);
    }
    return bytes.toByteArray();
  }

  private void post(List<Record> batch, Message content) throws SinkException {
    byte[] body = content.body();
    HttpRequest request = request(content);
    HttpClient current = client();
    HttpResponse<InputStream> response;
    try {
      response = current.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException e) {
      throw SinkException.retryable(prefix() + "connect timed out after " + config.timeout(), e);
    } catch (HttpTimeoutException e) {
      throw SinkException.retryable(prefix() + "no response within " + config.timeout(), e);
    } catch (IOException e) {
      throw SinkException.retryable(prefix() + failure(e), e);
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
    if (status == 413) {
      String size = body.length + " bytes" + (config.gzip() ? " gzip-compressed" : "");
      if (batch.size() == 1) {
        // one record the receiver can never take: refused for good (until its content changes),
        // reported in the target's delivery status, and it no longer holds up the others
        throw new RecordsRejectedException(List.of(new Rejection(batch.get(0).key(),
            message + " (payload too large: record of " + size + " exceeds the receiver's limit)")));
      }
      // permanent: the exporter bisects the batch down to the single records the receiver refuses
      message += " (payload too large: the receiver refused " + batch.size() + " records in "
          + size + ")";
    }
    throw SinkException.permanent(message, null);
  }

  /**
   * Names the cause of a failed exchange, never just "null": the JDK leaves many exceptions
   * without a message ({@code ConnectException}, {@code UnresolvedAddressException}).
   */
  private String failure(IOException e) {
    for (Throwable t : chain(e)) {
      if (t instanceof TlsConfig.ServerCertificateRejected) {
        return t.getMessage();
      }
      if (t instanceof UnresolvedAddressException) {
        return "cannot connect: cannot resolve host " + config.url().getHost();
      }
    }
    if (e instanceof ConnectException) {
      boolean silent = chain(e).stream().allMatch(t -> t.getMessage() == null);
      return "cannot connect to " + config.url().getHost() + ":" + port()
          + (silent ? ": the connection was refused or closed" : "") + " (" + causes(e) + ")";
    }
    // Under TLS 1.3 a server that refuses the client certificate closes the connection after
    // the handshake: the client sees an EOF, and only the key manager knows it was asked for one.
    String request = lastCertificateRequest();
    if (request != null) {
      return "TLS connection to " + origin + " failed: " + request + " (" + causes(e) + ")";
    }
    for (Throwable t : chain(e)) {
      if (t instanceof SSLException) {
        return "TLS handshake with " + origin + " failed (" + causes(e) + ")";
      }
    }
    return causes(e);
  }

  private synchronized String lastCertificateRequest() {
    return identity == null ? null : identity.lastRequest();
  }

  private int port() {
    int p = config.url().getPort();
    return p > 0 ? p : https ? 443 : 80;
  }

  private static List<Throwable> chain(Throwable e) {
    List<Throwable> chain = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = e; t != null && seen.add(t) && chain.size() < 8; t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  /** "ConnectException: Connection refused", the chain's types and distinct messages. */
  static String causes(Throwable e) {
    List<String> parts = new ArrayList<>();
    String lastMessage = null;
    String lastPart = null;
    for (Throwable t : chain(e)) {
      String m = t.getMessage();
      String part = t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
      if ((m != null && m.equals(lastMessage)) || part.equals(lastPart)) {
        continue; // the JDK client re-wraps with the same message or type
      }
      parts.add(part);
      lastPart = part;
      if (m != null) {
        lastMessage = m;
      }
    }
    return String.join(", caused by ", parts);
  }

  private String prefix() {
    return "POST " + config.url() + ": ";
  }

  private byte[] body(List<Record> batch) throws SinkException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(bodySize.bytesFor(batch.size()));
    try (OutputStream out = config.gzip() ? new GZIPOutputStream(bytes, 8192) : bytes) {
      RecordJson.writeArray(batch, out);
    } catch (IOException | RuntimeException e) {
      throw SinkException.permanent("sink " + name + ": cannot serialise batch: " + e, e);
    }
    bodySize.observe(batch.size(), bytes.size());
    return bytes.toByteArray();
  }

  private HttpRequest request(Message message) throws SinkException {
    byte[] body = message.body();
    HttpRequest.Builder b = HttpRequest.newBuilder(config.url())
        .timeout(config.timeout())
        .header("Content-Type", message.contentType())
        .header("User-Agent", "kollect-export")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (config.gzip()) {
      b.header("Content-Encoding", "gzip");
    }
    for (Map.Entry<String, String> h : config.headers().entrySet()) {
      b.header(h.getKey(), h.getValue());
    }
    for (Map.Entry<String, String> h : message.headers().entrySet()) {
      b.header(h.getKey(), h.getValue());
    }
    if (config.signing() != null) {
      sign(b, message);
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

  /**
   * Adds the Standard Webhooks headers. Called for every attempt, so the timestamp is fresh and a
   * retry after a timeout is inside the receiver's tolerance, while the id stays that of the body.
   */
  private void sign(HttpRequest.Builder b, Message message) throws SinkException {
    List<byte[]> keys;
    try {
      keys = config.signing().read();
    } catch (IllegalArgumentException e) {
      // names the field and the key's position, never its value; a rotated Secret fixes it
      throw SinkException.retryable("sink " + name + ": " + e.getMessage(), null);
    }
    String id = message.webhookId() != null ? message.webhookId()
        : CloudEventRecords.hash(message.body());
    long timestamp = clock.instant().getEpochSecond();
    b.header("webhook-id", id)
        .header("webhook-timestamp", Long.toString(timestamp))
        .header("webhook-signature",
            WebhookSigning.signatures(keys, id, timestamp, message.body()));
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

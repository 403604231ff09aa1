package io.kollect.export;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Where and how an {@link HttpSink} posts.
 *
 * <p>Credentials are suppliers, asked before every request, so a host can resolve them from a
 * Kubernetes Secret and rotate them without rebuilding the sink; their values are never logged.
 *
 * @param url endpoint receiving {@code POST}s ({@code http} or {@code https})
 * @param timeout connect and response timeout of one request
 * @param gzip compress request bodies ({@code Content-Encoding: gzip})
 * @param headers extra request headers (values are redacted from {@link #toString()})
 * @param bearerToken supplies the token for {@code Authorization: Bearer}, or {@code null}
 * @param basicAuth supplies credentials for {@code Authorization: Basic}, or {@code null}
 * @param tls server verification and client certificate for an {@code https} URL, or {@code
 *     null} for the defaults (the JDK's trust store, hostname verification, no client certificate)
 * @param format what a request carries: {@link Format#RECORDS} (the default, a JSON array of
 *     records) or CloudEvents; {@code null} means the default
 * @param signing signs every request the Standard Webhooks way, or {@code null} for unsigned
 *     requests; not together with {@code gzip}
 */
public record HttpSinkConfig(
    URI url,
    Duration timeout,
    boolean gzip,
    Map<String, String> headers,
    Supplier<String> bearerToken,
    Supplier<BasicCredentials> basicAuth,
    TlsConfig tls,
    Format format,
    WebhookSigning signing) {

  /** Headers the sink sets itself or the JDK client manages. */
  private static final Set<String> RESERVED = Set.of("authorization", "content-type",
      "content-encoding", "content-length", "connection", "expect", "host", "upgrade");

  /** What one request carries. */
  public enum Format {
    /** A JSON array of records ({@code application/json}): the default. */
    RECORDS,
    /**
     * The CloudEvents batched content mode: one JSON array of structured events ({@code
     * application/cloudevents-batch+json}) per batch.
     */
    CLOUDEVENTS_BATCH,
    /**
     * The CloudEvents binary content mode: one request per record, the attributes as {@code ce-*}
     * headers and the record's JSON as the body.
     */
    CLOUDEVENTS_BINARY
  }

  /** A user name and password for HTTP basic authentication. */
  public record BasicCredentials(String username, String password) {
    public BasicCredentials {
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
      if (username.indexOf(':') >= 0) {
        throw new IllegalArgumentException("username: must not contain ':'");
      }
    }

    @Override
    public String toString() {
      return "BasicCredentials[username=" + username + ", password=***]";
    }
  }

  public HttpSinkConfig {
    if (url == null) {
      throw new IllegalArgumentException("url: must be set");
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("url: must be an http or https URL, got " + url);
    }
    if (url.getHost() == null) {
      // URI falls back to a registry authority when the port does not parse as a number
      String authority = url.getRawAuthority();
      if (authority != null && authority.matches(".*:[0-9]+")) {
        throw new IllegalArgumentException("url: port must be between 1 and 65535, got "
            + authority.substring(authority.lastIndexOf(':') + 1) + " in " + url);
      }
      throw new IllegalArgumentException("url: has no host: " + url);
    }
    if (url.getPort() == 0 || url.getPort() > 65535) {
      throw new IllegalArgumentException("url: port must be between 1 and 65535, got "
          + url.getPort() + " in " + url);
    }
    if (tls != null && !scheme.equals("https")) {
      throw new IllegalArgumentException("tls: applies only to an https url, got " + url);
    }
    if (timeout == null || timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout: must be positive, got " + timeout);
    }
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    for (Map.Entry<String, String> h : headers.entrySet()) {
      String n = h.getKey();
      if (n.isEmpty() || !n.chars().allMatch(HttpSinkConfig::isTokenChar)) {
        throw new IllegalArgumentException("headers: invalid header name '" + n + "'");
      }
      if (RESERVED.contains(n.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException("headers: '" + n + "' is set by the sink itself"
            + (n.equalsIgnoreCase("authorization") ? "; use bearerToken or basicAuth" : ""));
      }
      if (h.getValue() == null || h.getValue().indexOf('\n') >= 0 || h.getValue().indexOf('\r') >= 0) {
        throw new IllegalArgumentException("headers: value of '" + n + "' must be one line");
      }
    }
    if (bearerToken != null && basicAuth != null) {
      throw new IllegalArgumentException("bearerToken, basicAuth: set at most one of them");
    }
    format = format == null ? Format.RECORDS : format;
    if (signing != null && gzip) {
      // the Standard Webhooks libraries verify the body as text, before any decompression
      throw new IllegalArgumentException("signing, gzip: a signed body is sent uncompressed; set "
          + "at most one of them");
    }
    for (String n : headers.keySet()) {
      String lower = n.toLowerCase(Locale.ROOT);
      if (signing != null && lower.startsWith("webhook-")) {
        throw new IllegalArgumentException("headers: '" + n + "' is set by the sink when signing");
      }
      if (format != Format.RECORDS && lower.startsWith("ce-")) {
        throw new IllegalArgumentException("headers: '" + n + "' is set by the sink for "
            + "CloudEvents");
      }
    }
  }

  /** Unsigned, in the default format (kept for source compatibility). */
  public HttpSinkConfig(URI url, Duration timeout, boolean gzip, Map<String, String> headers,
      Supplier<String> bearerToken, Supplier<BasicCredentials> basicAuth, TlsConfig tls) {
    this(url, timeout, gzip, headers, bearerToken, basicAuth, tls, Format.RECORDS, null);
  }

  /** Without a TLS block: the defaults for {@code https} (kept for source compatibility). */
  public HttpSinkConfig(URI url, Duration timeout, boolean gzip, Map<String, String> headers,
      Supplier<String> bearerToken, Supplier<BasicCredentials> basicAuth) {
    this(url, timeout, gzip, headers, bearerToken, basicAuth, null, Format.RECORDS, null);
  }

  /** Posts to {@code url} with a 10 s timeout, no compression, no extra headers, no auth. */
  public static HttpSinkConfig of(URI url) {
    return new HttpSinkConfig(url, Duration.ofSeconds(10), false, Map.of(), null, null, null,
        Format.RECORDS, null);
  }

  public HttpSinkConfig withTimeout(Duration d) {
    return new HttpSinkConfig(url, d, gzip, headers, bearerToken, basicAuth, tls, format, signing);
  }

  public HttpSinkConfig withGzip(boolean on) {
    return new HttpSinkConfig(url, timeout, on, headers, bearerToken, basicAuth, tls, format,
        signing);
  }

  public HttpSinkConfig withHeaders(Map<String, String> h) {
    return new HttpSinkConfig(url, timeout, gzip, h, bearerToken, basicAuth, tls, format, signing);
  }

  public HttpSinkConfig withBearerToken(Supplier<String> token) {
    return new HttpSinkConfig(url, timeout, gzip, headers, token, null, tls, format, signing);
  }

  public HttpSinkConfig withBasicAuth(Supplier<BasicCredentials> credentials) {
    return new HttpSinkConfig(url, timeout, gzip, headers, null, credentials, tls, format, signing);
  }

  /** Verifies the server and presents a client certificate as {@code t} says ({@code https} only). */
  public HttpSinkConfig withTls(TlsConfig t) {
    return new HttpSinkConfig(url, timeout, gzip, headers, bearerToken, basicAuth, t, format,
        signing);
  }

  /** Sends records in format {@code f} ({@code null}: the default, {@link Format#RECORDS}). */
  public HttpSinkConfig withFormat(Format f) {
    return new HttpSinkConfig(url, timeout, gzip, headers, bearerToken, basicAuth, tls, f, signing);
  }

  /** Signs every request as {@code s} says ({@code null}: unsigned). */
  public HttpSinkConfig withSigning(WebhookSigning s) {
    return new HttpSinkConfig(url, timeout, gzip, headers, bearerToken, basicAuth, tls, format, s);
  }

  @Override
  public String toString() {
    Map<String, String> redacted = new TreeMap<>();
    headers.keySet().forEach(k -> redacted.put(k, "***"));
    return "HttpSinkConfig[url=" + url + ", timeout=" + timeout + ", gzip=" + gzip + ", headers="
        + redacted + ", auth=" + (bearerToken != null ? "bearer" : basicAuth != null ? "basic" : "none")
        + (tls != null ? ", tls=" + tls : "") + ", format=" + format
        + (signing != null ? ", signing=standard-webhooks" : "") + "]";
  }

  private static boolean isTokenChar(int c) {
    return c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
  }
}

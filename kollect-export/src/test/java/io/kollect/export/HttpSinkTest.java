package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static io.kollect.export.TestRecords.records;
import static io.kollect.export.TestRecords.seq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kollect.export.FaultyReceiver.Request;
import io.kollect.export.FaultyReceiver.Stall;
import io.kollect.export.FaultyReceiver.Status;
import io.kollect.export.HttpSinkConfig.BasicCredentials;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The HTTP sink against a real loopback receiver that injects faults. */
class HttpSinkTest {

  static final Duration WAIT = Duration.ofSeconds(20);
  static final SinkOptions OPTIONS = SinkOptions.defaults()
      .withMaxBatchSize(25)
      .withLinger(Duration.ofMillis(5))
      .withHeartbeatInterval(Duration.ZERO)
      .withBackoff(Duration.ofMillis(20), Duration.ofMillis(200));

  FaultyReceiver receiver;
  final CountingMetrics metrics = new CountingMetrics();
  Exporter exporter;

  @BeforeEach
  void start() throws Exception {
    receiver = FaultyReceiver.start();
    exporter = Exporter.builder().metrics(metrics).closeTimeout(Duration.ofMillis(200)).build();
  }

  @AfterEach
  void stop() {
    exporter.close();
    receiver.close();
  }

  private HttpSinkConfig config() {
    return HttpSinkConfig.of(receiver.uri()).withTimeout(Duration.ofMillis(400));
  }

  /** Desired state of target "t": live objects and their current sequence numbers. */
  private final Map<String, Long> live = new HashMap<>();
  private final Set<String> removed = new java.util.HashSet<>();

  private void set(int from, int to, long seq) {
    for (int i = from; i < to; i++) {
      live.put("obj-" + i, seq);
      removed.remove("obj-" + i);
    }
  }

  private void remove(int from, int to) {
    for (int i = from; i < to; i++) {
      if (live.remove("obj-" + i) != null) {
        removed.add("obj-" + i);
      }
    }
  }

  private void converge() {
    List<Record> desired = new ArrayList<>();
    live.forEach((name, seq) -> desired.add(record("t", name, seq)));
    exporter.converge("t", Set.of("http"), desired);
  }

  @Test
  void afterEveryKindOfFaultTheReceiverHoldsExactlyTheFinalStateInOrder() throws Exception {
    exporter.addSink(new HttpSink("http", config().withGzip(true)), OPTIONS);

    receiver.script(new Status(500, null), new Status(503, null), new Status(500, null));
    set(0, 100, 1);
    converge();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();

    receiver.script(new Status(429, "1"));
    set(0, 50, 2);
    converge();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();

    receiver.script(new Stall(Duration.ofMillis(1200)), new Stall(Duration.ofMillis(1200)));
    set(0, 30, 3);
    remove(90, 100);
    converge();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();

    receiver.stop();
    long failedBefore = metrics.get("failedRetryable", "http");
    set(30, 60, 4);
    remove(80, 90);
    converge();
    set(30, 40, 5);
    set(95, 97, 5); // deleted, then back
    converge();
    await().atMost(WAIT).until(() -> metrics.get("failedRetryable", "http") > failedBefore + 25);
    receiver.restart();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();

    Map<String, Record> held = receiver.snapshot();
    for (Map.Entry<String, Long> e : live.entrySet()) {
      Record r = held.get("t|" + TestRecords.key(e.getKey()));
      assertThat(r).as(e.getKey()).isNotNull();
      assertThat(r.op()).as(e.getKey()).isEqualTo(Op.UPSERT);
      assertThat(seq(r)).as(e.getKey()).isEqualTo(e.getValue());
    }
    for (String name : removed) {
      assertThat(held.get("t|" + TestRecords.key(name)).op()).as(name).isEqualTo(Op.DELETE);
    }
    assertThat(held).hasSize(100);
    assertThat(receiver.violations).isEmpty();
    // only a request whose response never arrived (the stalls) can cause a duplicate
    assertThat(receiver.duplicates()).isLessThanOrEqualTo(receiver.stalledRecords());
    assertThat(receiver.stalledRecords()).isPositive();

    // the request after the 429 waited for its Retry-After (1 s)
    List<Request> requests = receiver.requests();
    for (int i = 0; i < requests.size() - 1; i++) {
      if (requests.get(i).status() == 429) {
        long gap = requests.get(i + 1).nanos() - requests.get(i).nanos();
        assertThat(Duration.ofNanos(gap)).isGreaterThanOrEqualTo(Duration.ofMillis(950));
      }
    }
    assertThat(requests).anyMatch(r -> r.status() == 429);
    assertThat(metrics.get("dropped", "http")).isZero();
    assertThat(metrics.get("retried", "http")).isPositive();
  }

  @Test
  void tenThousandChangesToAThousandObjectsWhileDownDeliverAThousandRecords() throws Exception {
    receiver.stop();
    // a generous timeout: a response that is merely slow would cause a (legitimate) re-send
    exporter.addSink(new HttpSink("http", config().withTimeout(Duration.ofSeconds(10))),
        OPTIONS.withMaxBatchSize(500));
    for (int seq = 1; seq <= 10; seq++) {
      exporter.converge("t", Set.of("http"), records("t", 1000, seq));
      assertThat(exporter.queueDepth("http")).isLessThanOrEqualTo(1000);
    }
    await().atMost(WAIT).until(() -> metrics.get("failedRetryable", "http") > 0);
    assertThat(metrics.maxDepth("http")).isLessThanOrEqualTo(1000);
    receiver.restart();
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    assertThat(receiver.applied()).isEqualTo(1000);
    assertThat(receiver.duplicates()).isZero();
    assertThat(receiver.snapshot().values()).hasSize(1000).allMatch(r -> seq(r) == 10);
    assertThat(metrics.get("sent", "http")).isEqualTo(1000);
  }

  @Test
  void permanentRejectionDropsOnlyTheRejectedRecordsAndLogsTheReasonOnce() {
    Logger log = (Logger) LoggerFactory.getLogger(DeliveryChannel.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    log.addAppender(appender);
    try {
      receiver.rejectIf(r -> r.name().startsWith("poison"));
      exporter.addSink(new HttpSink("http", config()), OPTIONS.withMaxBatchSize(20));
      List<Record> desired = new ArrayList<>(records("t", 60, 1));
      for (int i = 0; i < 6; i++) {
        desired.add(10 * i, record("t", "poison-" + i, 1));
      }
      exporter.converge("t", Set.of("http"), desired);
      assertThat(exporter.awaitIdle(WAIT)).isTrue();

      assertThat(receiver.snapshot()).hasSize(60);
      assertThat(metrics.get("dropped", "http")).isEqualTo(6);
      assertThat(metrics.get("failedPermanent", "http")).isEqualTo(6);
      assertThat(appender.list)
          .filteredOn(e -> e.getFormattedMessage().contains("permanently rejected"))
          .hasSize(1)
          .allMatch(e -> e.getFormattedMessage().contains("HTTP 400"));
    } finally {
      log.detachAppender(appender);
    }
  }

  @Test
  void bearerTokenIsAskedForEveryRequestSoARotatedTokenRecoversFrom401() throws Exception {
    AtomicReference<String> token = new AtomicReference<>("old");
    receiver.authorizeIf(h -> "Bearer new".equals(h.get("authorization")));
    exporter.addSink(new HttpSink("http", config().withBearerToken(token::get)
        .withHeaders(Map.of("X-Tenant", "blue"))), OPTIONS);
    exporter.converge("t", Set.of("http"), records("t", 3, 1));
    await().atMost(WAIT).until(() -> receiver.requests().size() >= 2);
    assertThat(receiver.snapshot()).isEmpty();
    assertThat(metrics.get("dropped", "http")).isZero();
    token.set("new");
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    List<Request> requests = receiver.requests();
    assertThat(requests.get(0).headers()).containsEntry("authorization", "Bearer old");
    Request last = requests.get(requests.size() - 1);
    assertThat(last.headers()).containsEntry("authorization", "Bearer new")
        .containsEntry("x-tenant", "blue")
        .containsEntry("content-type", "application/json")
        .doesNotContainKey("content-encoding");
    assertThat(receiver.snapshot()).hasSize(3);
  }

  @Test
  void basicAuthSendsEncodedCredentialsAndGzipCompressesTheBody() throws Exception {
    exporter.addSink(new HttpSink("http", config().withGzip(true)
        .withBasicAuth(() -> new BasicCredentials("kollect", "s3cret:x"))), OPTIONS);
    exporter.converge("t", Set.of("http"), records("t", 2, 1));
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
    Request r = receiver.requests().get(0);
    assertThat(r.headers().get("authorization")).isEqualTo("Basic "
        + Base64.getEncoder().encodeToString("kollect:s3cret:x".getBytes(StandardCharsets.UTF_8)));
    assertThat(r.headers()).containsEntry("content-encoding", "gzip");
    assertThat(receiver.snapshot()).hasSize(2);
  }

  @Test
  void statusesAreClassifiedRetryableOrPermanent() throws Exception {
    HttpSink sink = new HttpSink("http", config());
    for (int status : new int[] {408, 429, 500, 502, 503, 401, 403}) {
      receiver.script(new Status(status, "7"));
      assertThatThrownBy(() -> sink.write(List.of(record("t", "a", 1))))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).as("status " + status).isTrue();
            assertThat(e.retryAfter()).contains(Duration.ofSeconds(7));
            assertThat(e.getMessage()).contains("HTTP " + status);
          });
    }
    for (int status : new int[] {400, 404, 409, 413, 422, 302}) {
      receiver.script(new Status(status, null));
      assertThatThrownBy(() -> sink.write(List.of(record("t", "a", 1))))
          .isInstanceOfSatisfying(SinkException.class,
              e -> assertThat(e.retryable()).as("status " + status).isFalse());
    }
    receiver.stop();
    assertThatThrownBy(() -> sink.write(List.of(record("t", "a", 1))))
        .isInstanceOfSatisfying(SinkException.class, e -> assertThat(e.retryable()).isTrue());
  }

  @Test
  void connectionRefusedNamesTheEndpointAndTheCauseNotNull() throws Exception {
    HttpSink sink = new HttpSink("http", config());
    receiver.stop();
    assertThatThrownBy(() -> sink.write(List.of(record("t", "a", 1))))
        .isInstanceOfSatisfying(SinkException.class, e -> {
          assertThat(e.retryable()).isTrue();
          assertThat(e.getMessage())
              .startsWith("POST " + receiver.uri() + ": cannot connect to 127.0.0.1:"
                  + receiver.uri().getPort() + ": the connection was refused or closed "
                  + "(ConnectException")
              .doesNotContain("null");
        });
  }

  @Test
  void unresolvableHostIsNamedInTheError() {
    HttpSink sink = new HttpSink("http",
        HttpSinkConfig.of(URI.create("http://kollect-no-such-host.invalid:8080/records")));
    assertThatThrownBy(() -> sink.write(List.of(record("t", "a", 1))))
        .isInstanceOfSatisfying(SinkException.class, e -> {
          assertThat(e.retryable()).isTrue();
          assertThat(e.getMessage()).isEqualTo("POST http://kollect-no-such-host.invalid:8080/"
              + "records: cannot connect: cannot resolve host kollect-no-such-host.invalid");
        });
  }

  @Test
  void payloadTooLargeIsPermanentAndSaysHowMuchWasRefused() throws Exception {
    HttpSink sink = new HttpSink("http", config());
    receiver.script(new Status(413, null));
    assertThatThrownBy(() -> sink.write(records("t", 3, 1)))
        .isInstanceOfSatisfying(SinkException.class, e -> {
          assertThat(e.retryable()).isFalse();
          assertThat(e.getMessage()).startsWith("POST " + receiver.uri() + ": HTTP 413")
              .containsPattern("\\(payload too large: the receiver refused 3 records in "
                  + "[0-9]+ bytes\\)$");
        });
  }

  @Test
  void aSingleRecordRefusedAsTooLargeIsRejectedByKeyNotRetried() throws Exception {
    HttpSink sink = new HttpSink("http", config());
    receiver.script(new Status(413, null));
    List<Record> one = records("t", 1, 1);
    assertThatThrownBy(() -> sink.write(one))
        .isInstanceOfSatisfying(RecordsRejectedException.class, e -> {
          assertThat(e.retryable()).isFalse();
          assertThat(e.rejections()).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo(one.get(0).key());
            assertThat(r.reason()).contains("HTTP 413").contains("exceeds the receiver's limit");
          });
        });
  }

  @Test
  void retryAfterAcceptsSecondsAndHttpDates() {
    Clock clock = Clock.fixed(Instant.parse("2026-11-22T03:00:00Z"), ZoneOffset.UTC);
    assertThat(HttpSink.parseRetryAfter("120", clock)).contains(Duration.ofSeconds(120));
    assertThat(HttpSink.parseRetryAfter("Sun, 22 Nov 2026 03:00:30 GMT", clock))
        .contains(Duration.ofSeconds(30));
    assertThat(HttpSink.parseRetryAfter("Sun, 22 Nov 2026 02:00:00 GMT", clock))
        .contains(Duration.ZERO);
    assertThat(HttpSink.parseRetryAfter("soon", clock)).isEqualTo(Optional.empty());
    assertThat(HttpSink.parseRetryAfter("99999999999999999999999", clock))
        .contains(Backoff.MAX_RETRY_AFTER);
  }

  @Test
  void badConfigurationIsRejectedNamingTheField() {
    URI ok = URI.create("http://localhost/x");
    assertThatThrownBy(() -> HttpSinkConfig.of(URI.create("ftp://x/y")))
        .hasMessageStartingWith("url:");
    for (String port : new String[] {"0", "65536", "70000", "99999999999"}) {
      assertThatThrownBy(() -> HttpSinkConfig.of(URI.create("http://localhost:" + port + "/x")))
          .as(port)
          .hasMessage("url: port must be between 1 and 65535, got " + port
              + " in http://localhost:" + port + "/x");
    }
    assertThat(HttpSinkConfig.of(URI.create("https://localhost:65535/x")).url().getPort())
        .isEqualTo(65535);
    assertThatThrownBy(() -> HttpSinkConfig.of(ok).withTimeout(Duration.ZERO))
        .hasMessageStartingWith("timeout:");
    assertThatThrownBy(() -> HttpSinkConfig.of(ok).withHeaders(Map.of("Authorization", "x")))
        .hasMessageStartingWith("headers:").hasMessageContaining("bearerToken");
    assertThatThrownBy(() -> HttpSinkConfig.of(ok).withHeaders(Map.of("bad name", "x")))
        .hasMessageStartingWith("headers:");
    assertThatThrownBy(() -> new HttpSinkConfig(ok, Duration.ofSeconds(1), false, Map.of(),
        () -> "t", () -> new BasicCredentials("u", "p")))
        .hasMessageStartingWith("bearerToken, basicAuth:");
    assertThat(HttpSinkConfig.of(ok).withHeaders(Map.of("X-Api-Key", "secret")).toString())
        .doesNotContain("secret");
  }
}

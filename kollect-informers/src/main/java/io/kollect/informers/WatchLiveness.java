package io.kollect.informers;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The liveness rule of one informer's watch, and what its requests show of the connection.
 *
 * <p>The rule (window {@code W}, {@link InformerOptions#watchLiveness()}): every watch request asks
 * the API server to end it after {@code W} ({@code timeoutSeconds}), and the client gives up on a
 * watch that stays silent (no byte received) for {@code W + grace}: a healthy watch, however
 * quiet, ends by itself and is re-opened from its last resourceVersion (one request per window, no
 * relist, no event re-sent); a watch on a connection that died without FIN or RST (a partitioned
 * load balancer, a lost NAT entry) is abandoned after {@code W + grace}: its request is reset,
 * which closes its HTTP/1.1 connection, and fabric8 opens a new one from the same
 * resourceVersion. Giving up client-side is the only thing that notices a half-open connection:
 * TCP itself never does while nothing is sent, and watch bookmarks are best-effort.
 *
 * <p>Giving up is done in two places, because the HTTP client's own timeout (Vert.x: an idle
 * timeout) stops at the response head: a request still waiting for its answer times out there
 * ({@link #before} sets the timeout); an answered watch that goes silent is closed by
 * {@link #enforce(Instant)}, which the registry calls every second.
 *
 * <p>This class is the fabric8 {@link Interceptor} of the watch's own HTTP client, so it sees each
 * request start, answer, byte and end. From these it counts restarts by reason and knows when the
 * watch last showed it was alive; a watch silent for more than {@code W + 2 grace} is
 * {@linkplain #stalled(Instant) stalled}.
 *
 * <p>Thread-safety: called on HTTP client threads; state is a few volatile fields, each written
 * whole, and a stale read only delays a report by one check.
 */
final class WatchLiveness implements Interceptor {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WatchLiveness.class);

  /** A watch that is not delivering: since when, and why. */
  record Stall(Instant silentSince, String reason) {}

  private final Clock clock;
  private final long windowMillis;
  private final long giveUpMillis;
  private final long stallMillis;
  private final Consumer<String> restarts;
  /** A watch the server ended sooner than this is re-opened after fabric8's backoff, not at once. */
  static final long REOPEN_AT_ONCE_AFTER_MILLIS = 1_000;

  private volatile long lastAliveMillis;
  private volatile long requestStartMillis;
  /** The end of the current request's answered body; {@code null} before it is answered. */
  private volatile CompletableFuture<Void> answeredBody;
  /** The informer's current watch, and whether its request has been answered and not ended. */
  private volatile AbstractWatchManager<?> watch;
  private volatile boolean answered;
  /** Why the last request did not deliver; {@code null} while it is healthy. */
  private volatile String problem;
  /** The HTTP status of the last failed request ({@code 0}: none, or no answer at all). */
  private volatile int failureCode;

  /**
   * @param window the liveness window (whole seconds, at least one)
   * @param clock time source
   * @param restarts told the reason of every watch restart ({@link InformerMetrics} constants)
   */
  WatchLiveness(Duration window, Clock clock, Consumer<String> restarts) {
    this.clock = clock;
    this.windowMillis = window.toMillis();
    long grace = grace(window).toMillis();
    this.giveUpMillis = windowMillis + grace;
    this.stallMillis = windowMillis + 2 * grace;
    this.restarts = restarts;
    this.lastAliveMillis = clock.millis();
  }

  /** How much longer than the window the client waits for a silent watch: a fifth, at least 2 s. */
  static Duration grace(Duration window) {
    return Duration.ofMillis(Math.max(2_000, window.toMillis() / 5));
  }

  /** The {@code timeoutSeconds} each watch request asks for. */
  long serverTimeoutSeconds() {
    return Math.max(1, windowMillis / 1000);
  }

  /** How long the client waits on a silent watch request before abandoning it. */
  Duration clientTimeout() {
    return Duration.ofMillis(giveUpMillis);
  }

  /** The watch is stalled when nothing arrived for longer than this. */
  Duration stallAfter() {
    return Duration.ofMillis(stallMillis);
  }

  // ------------------------------------------------------------ fabric8 interceptor (watch client)

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    requestStartMillis = clock.millis();
    answered = false;
    answeredBody = null;
    // a watch's connection is not kept for reuse: the API server closes it when the watch ends at
    // its timeout, and a request sent on it as it closes fails ("Connection was closed")
    builder.setHeader("Connection", "close");
    if (builder instanceof HttpRequest.Builder b) {
      // the HTTP client's timeout is on silence (Vert.x: idle timeout, reset by every byte):
      // a quiet healthy watch ends at the server's timeoutSeconds first
      b.timeout(giveUpMillis, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void after(HttpRequest request, HttpResponse<?> response,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    int code = response.code();
    if (code >= 200 && code < 300) {
      alive();
      answered = true;
      if (response.body() instanceof AsyncBody body) {
        answeredBody = body.done();
        body.done().whenComplete((v, t) -> ended(t));
      }
    } else if (code != 410) {
      // 410 reaches the watcher as "gone" and is counted there
      failureCode = code;
      failed("error: HTTP " + code + " from the watch request", InformerMetrics.RESTART_ERROR);
    } else {
      alive();
    }
  }

  @Override
  public AsyncBody.Consumer<List<ByteBuffer>> consumer(AsyncBody.Consumer<List<ByteBuffer>> consumer,
      HttpRequest request) {
    return (buffers, body) -> {
      lastAliveMillis = clock.millis();
      consumer.consume(buffers, body);
    };
  }

  @Override
  public void afterConnectionFailure(HttpRequest request, Throwable failure) {
    Throwable t = unwrap(failure);
    if (closedByClient(t)) {
      return;
    }
    failureCode = 0;
    if (t instanceof TimeoutException) {
      failed("liveness: no answer to the watch request for " + seconds(giveUpMillis),
          InformerMetrics.RESTART_LIVENESS);
    } else if (connectionClosed(t)) {
      // typically a kept-alive connection the server had just closed: fabric8 opens another
      failed("closed: " + describe(t), InformerMetrics.RESTART_CLOSED);
    } else {
      failed("error: " + describe(t), InformerMetrics.RESTART_ERROR);
    }
  }

  // ------------------------------------------------------------ lister-watcher callbacks

  /** The watch the informer now runs (fabric8 re-opens its requests itself). */
  void watching(AbstractWatchManager<?> manager) {
    watch = manager;
  }

  /**
   * Gives up on an answered watch request that has been silent for {@code W + grace}: resets it,
   * which closes its connection, and fabric8 re-opens the watch from its last resourceVersion.
   */
  void enforce(Instant now) {
    AbstractWatchManager<?> w = watch;
    if (w == null || !answered || now.toEpochMilli() - lastAliveMillis <= giveUpMillis) {
      return;
    }
    answered = false;
    failed("liveness: no data for " + seconds(now.toEpochMilli() - lastAliveMillis)
        + ", connection abandoned", InformerMetrics.RESTART_LIVENESS);
    w.closeRequest();
  }

  /** A page of the informer's list arrived. */
  void listed() {
    alive();
  }

  /** The informer's list failed (fabric8 retries it with backoff). */
  void listFailed(Throwable failure) {
    Throwable t = unwrap(failure);
    failureCode = t instanceof io.fabric8.kubernetes.client.KubernetesClientException k ? k.getCode() : 0;
    problem = t instanceof TimeoutException ? "liveness: list timed out" : "error: list failed: " + describe(t);
  }

  /** Wraps the informer's watcher to see the ends fabric8 reports to it (410 Gone, errors). */
  <T> Watcher<T> observe(Watcher<T> watcher) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, T resource) {
        watcher.eventReceived(action, resource);
      }

      @Override
      public void onClose(WatcherException cause) {
        if (cause.isHttpGone()) {
          // the API server answered: the connection is fine, the informer relists
          alive();
          restarts.accept(InformerMetrics.RESTART_GONE);
        } else {
          failed("error: " + describe(cause), InformerMetrics.RESTART_ERROR);
        }
        watcher.onClose(cause);
      }

      @Override
      public void onClose() {
        watcher.onClose();
      }

      @Override
      public boolean reconnecting() {
        return watcher.reconnecting();
      }
    };
  }

  // ------------------------------------------------------------ state

  /** Why the last request did not deliver, {@code null} while healthy. */
  String problem() {
    return problem;
  }

  /** The HTTP status of the last failed request, {@code 0} while healthy or when none came. */
  int failureCode() {
    return failureCode;
  }

  /** Whether a watch request is answered and streaming now. */
  boolean streaming() {
    return answered;
  }

  /** When the watch or its list last showed the connection alive (epoch millis). */
  long lastAliveMillis() {
    return lastAliveMillis;
  }

  /**
   * Whether the connection failed without an answer (refused, reset, timed out, silent past the
   * window) and nothing arrived for longer than the client waits on a silent watch: one window
   * plus its grace, so a blackholed cluster is noticed well within two windows.
   */
  boolean unreachable(Instant now) {
    return problem != null && failureCode == 0 && now.toEpochMilli() - lastAliveMillis > giveUpMillis;
  }

  /** The stall at {@code now}, or {@code null} when the watch showed life recently enough. */
  Stall stalled(Instant now) {
    long last = lastAliveMillis;
    long silent = now.toEpochMilli() - last;
    if (silent <= stallMillis) {
      return null;
    }
    String why = problem;
    return new Stall(Instant.ofEpochMilli(last),
        why != null ? why : "liveness: nothing received for " + seconds(silent));
  }

  /** The answered watch request ended ({@code failure} null: the server ended the response). */
  void ended(Throwable failure) {
    answered = false;
    Throwable t = unwrap(failure);
    long lived = clock.millis() - requestStartMillis;
    if (log.isTraceEnabled()) {
      log.trace("Watch request ended after {} ms: {}", lived, t == null ? "end of response" : describe(t));
    }
    if (closedByClient(t)) {
      // closed by the client on purpose (informer stopped, given up by enforce, fabric8's own
      // periodic close, or an ERROR event such as 410 that the watcher reports itself)
    } else if (endedByServer(t, lived)) {
      // the server ended the response: at the requested timeout (normal; the server may close
      // the connection with it) or earlier
      alive();
      restarts.accept(lived >= windowMillis - 1_000
          ? InformerMetrics.RESTART_TIMEOUT : InformerMetrics.RESTART_CLOSED);
    } else if (t instanceof TimeoutException) {
      failed("liveness: no data for " + seconds(giveUpMillis) + ", connection abandoned",
          InformerMetrics.RESTART_LIVENESS);
    } else if (connectionClosed(t)) {
      failed("closed: " + describe(t) + " after " + seconds(lived), InformerMetrics.RESTART_CLOSED);
    } else {
      failed("error: " + describe(t) + " after " + seconds(lived), InformerMetrics.RESTART_ERROR);
    }
  }

  /**
   * Whether the server ended the response: at the requested timeout (normal; the server may close
   * the connection with it, which some clients report as a failure) or earlier.
   */
  private boolean endedByServer(Throwable t, long lived) {
    return t == null || (lived >= windowMillis - 1_000 && !(t instanceof TimeoutException)
        && !closedByClient(t));
  }

  /**
   * Whether the watch request that just ended is to be re-opened at once: the server ended it, as
   * it ends every healthy watch once per window, after it had run for at least
   * {@link #REOPEN_AT_ONCE_AFTER_MILLIS}. fabric8 waits its reconnect interval (1 s, doubling on
   * failures) before re-opening any ended watch, so every change made during that second reached
   * the informer up to a second late: about 1-2 % of changes under a steady rate, which was the
   * whole p99 of change-to-record latency. client-go's reflector re-opens such a watch at once.
   * A request that failed, was given up, or ended sooner keeps fabric8's backoff, so a server that
   * ends every watch at once is not asked more than once a second.
   */
  boolean reopenAtOnce() {
    CompletableFuture<Void> body = answeredBody;
    if (body == null || !body.isDone()) {
      return false;
    }
    long lived = clock.millis() - requestStartMillis;
    Throwable t = unwrap(body.handle((v, failure) -> failure).getNow(null));
    return lived >= REOPEN_AT_ONCE_AFTER_MILLIS && endedByServer(t, lived);
  }

  private void alive() {
    lastAliveMillis = clock.millis();
    problem = null;
    failureCode = 0;
  }

  private void failed(String why, String reason) {
    problem = why;
    restarts.accept(reason);
  }

  /**
   * The client ended the request itself: fabric8 cancels the body and the HTTP client resets the
   * stream (Vert.x reports the reset it was asked for as {@code StreamResetException}).
   */
  private static boolean closedByClient(Throwable t) {
    return t instanceof CancellationException
        || (t != null && t.getClass().getSimpleName().equals("StreamResetException"));
  }

  /** A connection closed under the request (the HTTP clients' "closed" exceptions). */
  private static boolean connectionClosed(Throwable t) {
    return t.getClass().getSimpleName().contains("Closed");
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The exception's type and message, for status and logs. A message that may quote a watch
   * event (JSON: an unscrubbed object) is left out.
   */
  static String describe(Throwable t) {
    String message = t.getMessage();
    if (message == null || message.isBlank() || message.indexOf('{') >= 0) {
      return t.getClass().getSimpleName();
    }
    return t.getClass().getSimpleName() + ": "
        + (message.length() > 200 ? message.substring(0, 200) + "..." : message);
  }

  private static String seconds(long millis) {
    return (millis + 500) / 1000 + " s";
  }
}

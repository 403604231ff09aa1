package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import org.junit.jupiter.api.Test;

/** The liveness rule's arithmetic and how request outcomes are classified, on a settable clock. */
class WatchLivenessTest {

  /** A clock the test moves by hand. */
  private static final class SettableClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final SettableClock clock = new SettableClock();
  private final List<String> restarts = new CopyOnWriteArrayList<>();
  private final WatchLiveness liveness = new WatchLiveness(Duration.ofSeconds(60), clock, restarts::add);

  @Test
  void theServerEndsEachWatchAfterTheWindowAndTheClientWaitsAFifthLongerBeforeGivingUp() {
    assertThat(liveness.serverTimeoutSeconds()).isEqualTo(60);
    assertThat(liveness.clientTimeout()).isEqualTo(Duration.ofSeconds(72));
    assertThat(liveness.stallAfter()).isEqualTo(Duration.ofSeconds(84));
    // short windows keep a grace of at least 2 s
    assertThat(WatchLiveness.grace(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aWatchIsStalledOnlyWhenNothingArrivedForLongerThanTheStallBoundAndSaysWhy() {
    Instant start = clock.now;
    clock.now = start.plusSeconds(84);
    assertThat(liveness.stalled(clock.now)).isNull();
    clock.now = start.plusSeconds(85);
    WatchLiveness.Stall stall = liveness.stalled(clock.now);
    assertThat(stall.silentSince()).isEqualTo(start);
    assertThat(stall.reason()).isEqualTo("liveness: nothing received for 85 s");

    liveness.afterConnectionFailure(null, new ConnectException("Connection refused"));
    assertThat(liveness.stalled(clock.now).reason())
        .isEqualTo("error: ConnectException: Connection refused");
    assertThat(restarts).containsExactly(InformerMetrics.RESTART_ERROR);

    // a list page is proof of life
    liveness.listed();
    assertThat(liveness.stalled(clock.now)).isNull();
  }

  @Test
  void requestOutcomesAreCountedByReason() {
    liveness.afterConnectionFailure(null, new TimeoutException("idle"));
    liveness.afterConnectionFailure(null, new IOException("Connection was closed") {});
    liveness.afterConnectionFailure(null, new java.util.concurrent.CancellationException());
    assertThat(restarts).containsExactly(InformerMetrics.RESTART_LIVENESS, InformerMetrics.RESTART_ERROR);
    assertThat(liveness.problem()).startsWith("error:");
  }

  @Test
  void anExceptionMessageThatMayQuoteAnObjectIsLeftOutOfStatusAndLogs() {
    assertThat(WatchLiveness.describe(new IllegalStateException(
        "Couldn't deserialize watch event: {\"object\":{\"data\":{\"password\":\"x\"}}}")))
        .isEqualTo("IllegalStateException");
    assertThat(WatchLiveness.describe(new ConnectException("Connection refused")))
        .isEqualTo("ConnectException: Connection refused");
  }

  @Test
  void aWatchRequestAsksNotToBeKeptAliveAndItsEndIsATimeoutOnlyAtTheEndOfTheWindow() {
    StandardHttpRequest.Builder builder = new StandardHttpRequest.Builder();
    builder.uri("https://127.0.0.1:6443/api/v1/configmaps?watch=true");
    liveness.before(builder, null, null);
    StandardHttpRequest request = builder.build();
    assertThat(request.getTimeout()).isEqualTo(Duration.ofSeconds(72));
    assertThat(request.header("Connection")).isEqualTo("close");

    clock.now = clock.now.plusSeconds(60);
    liveness.ended(null);
    liveness.before(new StandardHttpRequest.Builder(), null, null);
    clock.now = clock.now.plusSeconds(3);
    liveness.ended(null);
    liveness.ended(new java.util.concurrent.CancellationException());
    liveness.ended(new java.util.concurrent.CompletionException(new TimeoutException()));
    assertThat(restarts).containsExactly(InformerMetrics.RESTART_TIMEOUT,
        InformerMetrics.RESTART_CLOSED, InformerMetrics.RESTART_LIVENESS);
  }

  @Test
  void aConnectionThatFailedWithoutAnAnswerIsUnreachableOnceSilentPastTheClientTimeout() {
    Instant start = clock.now;
    liveness.afterConnectionFailure(null, new TimeoutException("idle"));
    clock.now = start.plusSeconds(72);
    assertThat(liveness.unreachable(clock.now)).isFalse();
    clock.now = start.plusSeconds(73);
    // well within two windows (120 s), before the watch counts as stalled (84 s)
    assertThat(liveness.unreachable(clock.now)).isTrue();
    assertThat(liveness.stalled(clock.now)).isNull();

    liveness.listed();
    assertThat(liveness.unreachable(clock.now)).isFalse();
    assertThat(liveness.failureCode()).isZero();
  }

  @Test
  void anAnsweredFailureIsRememberedByItsStatusUntilTheConnectionShowsLife() {
    liveness.listFailed(new io.fabric8.kubernetes.client.KubernetesClientException("Unauthorized",
        401, null));
    clock.now = clock.now.plusSeconds(100);
    assertThat(liveness.failureCode()).isEqualTo(401);
    // an answer, however unwelcome, is not an unreachable cluster
    assertThat(liveness.unreachable(clock.now)).isFalse();
    liveness.listed();
    assertThat(liveness.failureCode()).isZero();
  }

  /** An answered watch response (status 200) whose body ends when the test completes it. */
  private static io.fabric8.kubernetes.client.http.HttpResponse<io.fabric8.kubernetes.client.http.AsyncBody>
      answered(java.util.concurrent.CompletableFuture<Void> done) {
    io.fabric8.kubernetes.client.http.AsyncBody body = new io.fabric8.kubernetes.client.http.AsyncBody() {
      @Override
      public void consume() {}

      @Override
      public java.util.concurrent.CompletableFuture<Void> done() {
        return done;
      }

      @Override
      public void cancel() {
        done.cancel(false);
      }
    };
    return new io.fabric8.kubernetes.client.http.HttpResponse<>() {
      @Override
      public int code() {
        return 200;
      }

      @Override
      public io.fabric8.kubernetes.client.http.AsyncBody body() {
        return body;
      }

      @Override
      public io.fabric8.kubernetes.client.http.HttpRequest request() {
        return null;
      }

      @Override
      public java.util.Optional<io.fabric8.kubernetes.client.http.HttpResponse<?>> previousResponse() {
        return java.util.Optional.empty();
      }

      @Override
      public List<String> headers(String key) {
        return List.of();
      }

      @Override
      public java.util.Map<String, List<String>> headers() {
        return java.util.Map.of();
      }
    };
  }

  /** Starts a watch request, answers it, lets it run {@code lived}, ends it with {@code end}. */
  private boolean reopenAtOnceAfter(Duration lived, Throwable end) {
    liveness.before(new StandardHttpRequest.Builder(), null, null);
    var done = new java.util.concurrent.CompletableFuture<Void>();
    liveness.after(null, answered(done), null);
    clock.now = clock.now.plus(lived);
    boolean before = liveness.reopenAtOnce();
    if (end == null) {
      done.complete(null);
    } else if (end instanceof java.util.concurrent.CancellationException) {
      done.cancel(false);
    } else {
      done.completeExceptionally(end);
    }
    assertThat(before).as("a request still streaming is not re-opened").isFalse();
    return liveness.reopenAtOnce();
  }

  @Test
  void aWatchTheServerEndedIsReopenedAtOnceAndEveryOtherEndKeepsTheBackoff() {
    // the server ended the response at the end of its window, or earlier but after a second
    assertThat(reopenAtOnceAfter(Duration.ofSeconds(60), null)).isTrue();
    assertThat(reopenAtOnceAfter(Duration.ofSeconds(5), null)).isTrue();
    // ... also when the client reports the connection the server closed with it as a failure
    assertThat(reopenAtOnceAfter(Duration.ofSeconds(60),
        new IOException("Connection was closed") {})).isTrue();
    // a server that ends watches at once is not asked faster than fabric8's interval
    assertThat(reopenAtOnceAfter(Duration.ofMillis(999), null)).isFalse();
    // failures, give-ups and the client's own closes keep fabric8's backoff
    assertThat(reopenAtOnceAfter(Duration.ofSeconds(30),
        new IOException("Connection reset") {})).isFalse();
    assertThat(reopenAtOnceAfter(Duration.ofSeconds(72), new TimeoutException("idle"))).isFalse();
    assertThat(reopenAtOnceAfter(Duration.ofSeconds(60),
        new java.util.concurrent.CancellationException())).isFalse();
    // a request that was never answered (refused, failed) keeps it too
    liveness.before(new StandardHttpRequest.Builder(), null, null);
    liveness.afterConnectionFailure(null, new ConnectException("Connection refused"));
    assertThat(liveness.reopenAtOnce()).isFalse();
  }
}

package io.kollect.operator.cli;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Optional;

/**
 * Starts the demo's local API servers past kube-api-test's midnight wrap. kube-api-test 7.5.2
 * bounds each of its waits for readiness by the local time of day ({@code LocalTime.now()} plus the
 * start-up timeout, compared with {@code isAfter}): a wait that begins less than the timeout before
 * midnight ends at its first poll that finds the process not yet ready, because its end wraps into
 * the small hours and every time before midnight is "after" it. A demo started in the last minute
 * of the day failed with "Kube API Server did not start properly"; it now waits for midnight and
 * starts again. (The test servers of {@code kollect-testing} follow the same rule; that module
 * ships nothing, so the demo cannot use it.)
 */
final class LocalApiServer {

  /** So that the new start's clock reads the new day even if a coarse clock ends the sleep early. */
  static final Duration PAST_MIDNIGHT = Duration.ofMillis(200);

  private LocalApiServer() {}

  /** Starts an API server of {@code config}; {@code err} hears of a wait for midnight. */
  static KubeAPIServer start(KubeAPIServerConfig config, PrintStream err) {
    Duration bound = Duration.ofMillis(config.getStartupTimeout());
    for (boolean again = false; ; again = true) {
      KubeAPIServer server = new KubeAPIServer(config);
      LocalTime began = LocalTime.now();
      long beganNanos = System.nanoTime();
      try {
        server.start();
        return server;
      } catch (RuntimeException e) {
        Optional<Duration> hold = again ? Optional.empty()
            : retryAfter(began, Duration.ofNanos(System.nanoTime() - beganNanos), bound);
        // kube-api-test leaves etcd running when the API server fails to start
        stopQuietly(server, e);
        if (hold.isEmpty()) {
          throw e;
        }
        err.println("kollect demo: the API server's start-up clock wrapped at midnight;"
            + " starting it again " + (hold.get().isZero() ? "now" : "at midnight"));
        sleep(hold.get(), e);
      }
    }
  }

  /**
   * Whether a start that began at local time {@code began} and failed {@code elapsed} later was
   * cut short by the wrap, and if so how long to wait before starting again (zero once midnight
   * has passed); empty when the failure was not the wrap. A wait that really ran out took the whole
   * {@code bound}, so a failure sooner than that, from a start whose waits could end past midnight,
   * is the wrap.
   */
  static Optional<Duration> retryAfter(LocalTime began, Duration elapsed, Duration bound) {
    if (elapsed.compareTo(bound) >= 0 || !nextDay(began, elapsed.plus(bound))) {
      return Optional.empty();
    }
    if (nextDay(began, elapsed)) {
      return Optional.of(Duration.ZERO);
    }
    LocalTime now = began.plus(elapsed);
    return Optional.of(Duration.ofNanos(LocalTime.MAX.toNanoOfDay() - now.toNanoOfDay() + 1)
        .plus(PAST_MIDNIGHT));
  }

  private static boolean nextDay(LocalTime start, Duration span) {
    return start.plus(span).isBefore(start);
  }

  private static void stopQuietly(KubeAPIServer server, RuntimeException failure) {
    try {
      server.stop();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private static void sleep(Duration hold, RuntimeException failure) {
    try {
      Thread.sleep(hold.toMillis() + 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure;
    }
  }
}

package io.kollect.operator.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C or SIGTERM as something a long-running command can wait for. The JVM's shutdown hook
 * holds the exit (up to 30 s) until the command has closed what it runs, so a signal stops it
 * cleanly instead of killing it half way.
 */
final class StopSignal implements AutoCloseable {

  private final CountDownLatch requested = new CountDownLatch(1);
  private final CountDownLatch done = new CountDownLatch(1);
  private final Thread hook;

  StopSignal(String threadName) {
    hook = new Thread(() -> {
      requested.countDown();
      try {
        done.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, threadName);
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Waits up to {@code timeout} for a stop signal; returns whether one came. */
  boolean await(Duration timeout) throws InterruptedException {
    return requested.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Waits for a stop signal. */
  void await() throws InterruptedException {
    requested.await();
  }

  /** The command has stopped: lets a pending JVM exit go on, or drops the hook. */
  @Override
  public void close() {
    done.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the JVM is exiting: the hook is what brought us here
    }
  }
}

package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.internal.SerialExecutor;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChainingExecutorTest {

  /** The client's kind of pool: a cached pool hands each submission to an idle or new thread. */
  private final ExecutorService cached = Executors.newCachedThreadPool();
  private final AtomicInteger poolSubmissions = new AtomicInteger();

  @AfterEach
  void stopPool() {
    cached.shutdownNow();
  }

  private void countingPool(Runnable task) {
    poolSubmissions.incrementAndGet();
    cached.execute(task);
  }

  /**
   * fabric8's informer dispatch over the executor, a burst of notifications queued while the first
   * is running, as a list page's are: returns the threads that ran them, after checking the order.
   */
  private Set<Thread> dispatchBurst(SerialExecutor dispatch, int notifications)
      throws InterruptedException {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(notifications);
    List<Integer> order = new CopyOnWriteArrayList<>();
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < notifications; i++) {
      int n = i;
      dispatch.execute(() -> {
        if (n == 0) {
          firstRunning.countDown();
          await(release);
        }
        order.add(n);
        threads.add(Thread.currentThread());
        done.countDown();
      });
    }
    assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
    release.countDown();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(order).containsExactlyElementsOf(IntStream.range(0, notifications).boxed().toList());
    return threads;
  }

  @Test
  void aBurstOfSerialNotificationsRunsOnOneThreadWithOneHandOverToThePool() throws Exception {
    SerialExecutor dispatch = new SerialExecutor(new ChainingExecutor(this::countingPool));

    Set<Thread> threads = dispatchBurst(dispatch, 1_000);

    assertThat(poolSubmissions).hasValue(1);
    assertThat(threads).hasSize(1);
  }

  @Test
  void withoutTheChainTheSamePoolGetsOneHandOverPerNotification() throws Exception {
    // the baseline the chain removes: fabric8's serial dispatch straight on the pool
    SerialExecutor dispatch = new SerialExecutor(this::countingPool);

    dispatchBurst(dispatch, 1_000);

    assertThat(poolSubmissions).hasValue(1_000);
  }

  @Test
  void aTaskThatThrowsEndsOnlyItselfAndTheChainGoesOn() throws Exception {
    ChainingExecutor executor = new ChainingExecutor(this::countingPool);
    List<Throwable> reported = new CopyOnWriteArrayList<>();
    CountDownLatch continued = new CountDownLatch(1);

    executor.execute(() -> {
      Thread.currentThread().setUncaughtExceptionHandler((t, e) -> reported.add(e));
      executor.execute(continued::countDown);
      throw new IllegalStateException("handler failed");
    });

    assertThat(continued.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(reported).singleElement().extracting(Throwable::getMessage)
        .isEqualTo("handler failed");
    assertThat(poolSubmissions).hasValue(1);
  }

  @Test
  void tasksSubmittedFromOutsideAChainStillRunConcurrentlyOnThePool() throws Exception {
    ChainingExecutor executor = new ChainingExecutor(this::countingPool);
    CountDownLatch bothRunning = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    Runnable meetThenWait = () -> {
      bothRunning.countDown();
      await(release);
    };

    executor.execute(meetThenWait);
    executor.execute(meetThenWait);

    // a busy chain does not hold back work submitted by other threads (a second informer scope)
    assertThat(bothRunning.await(10, TimeUnit.SECONDS)).isTrue();
    release.countDown();
    assertThat(poolSubmissions).hasValue(2);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

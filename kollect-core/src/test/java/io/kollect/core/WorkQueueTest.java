package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  private final List<Thread> threads = new ArrayList<>();
  private WorkQueue<String> queue = newQueue();

  private static WorkQueue<String> newQueue() {
    return new WorkQueue<>(
        RateLimiter.controllerDefault(Duration.ofMillis(50), Duration.ofSeconds(5), 1000, 1000,
            RateLimiter.Ticker.SYSTEM),
        RateLimiter.Ticker.SYSTEM);
  }

  @AfterEach
  void stopThreads() throws InterruptedException {
    queue.shutDown();
    for (Thread t : threads) {
      t.join(5000);
      assertThat(t.isAlive()).as("worker %s stopped", t.getName()).isFalse();
    }
  }

  private String take() throws InterruptedException {
    Optional<String> key = queue.get();
    assertThat(key).isPresent();
    return key.get();
  }

  @Test
  void aKeyAddedTwiceWhileQueuedIsHandedOutOnce() throws InterruptedException {
    queue.add("a");
    queue.add("b");
    queue.add("a");
    assertThat(queue.length()).isEqualTo(2);
    assertThat(take()).isEqualTo("a");
    assertThat(take()).isEqualTo("b");
    queue.done("a");
    queue.done("b");
    assertThat(queue.isIdle()).isTrue();
  }

  @Test
  void aKeyAddedWhileProcessingIsNotHandedOutAgainUntilDoneThenRunsOnceMore() throws InterruptedException {
    queue.add("a");
    assertThat(take()).isEqualTo("a");
    queue.add("a");
    queue.add("a");
    // Not available to another worker while the first one holds it.
    assertThat(queue.length()).isZero();
    queue.done("a");
    assertThat(queue.length()).isEqualTo(1);
    assertThat(take()).isEqualTo("a");
    queue.done("a");
    assertThat(queue.isIdle()).isTrue();
  }

  @Test
  void keysAreHandedOutInArrivalOrderAndAHotKeyGoesToTheBack() throws InterruptedException {
    queue.add("hot");
    queue.add("x");
    queue.add("y");
    assertThat(take()).isEqualTo("hot");
    queue.add("hot"); // re-added while processing
    queue.done("hot");
    assertThat(take()).isEqualTo("x");
    queue.done("x");
    assertThat(take()).isEqualTo("y");
    queue.done("y");
    assertThat(take()).isEqualTo("hot");
    queue.done("hot");
  }

  @Test
  void aHotKeyReAddedConstantlyDoesNotStarveOthersWithOneWorker() throws InterruptedException {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    queue.add("hot");
    for (int i = 0; i < 5; i++) {
      queue.add("k" + i);
    }
    for (int round = 0; round < 20; round++) {
      String key = take();
      order.add(key);
      if (key.equals("hot")) {
        queue.add("hot");
      }
      queue.done(key);
    }
    // Every cold key got its turn within the first 6 + (hot re-queues) hand-outs.
    assertThat(order.subList(0, 6)).containsExactly("hot", "k0", "k1", "k2", "k3", "k4");
    assertThat(order.subList(6, 20)).containsOnly("hot");
  }

  @Test
  void neverProcessesOneKeyOnTwoWorkersAtOnceAndLosesNoAddUnderContention() throws Exception {
    int workers = 4;
    int producers = 4;
    int addsPerProducer = 2000;
    String[] keys = {"a", "b", "c", "d", "e"};
    Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    Map<String, Integer> lastSeenVersion = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> version = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    for (String k : keys) {
      inFlight.put(k, new AtomicInteger());
      version.put(k, new AtomicInteger());
    }
    for (int w = 0; w < workers; w++) {
      Thread t = new Thread(() -> {
        try {
          Optional<String> key;
          while ((key = queue.get()).isPresent()) {
            String k = key.get();
            if (inFlight.get(k).incrementAndGet() > 1) {
              overlaps.incrementAndGet();
            }
            // Level-based processing: read the latest state of the key.
            lastSeenVersion.put(k, version.get(k).get());
            Thread.onSpinWait();
            inFlight.get(k).decrementAndGet();
            queue.done(k);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "test-worker-" + w);
      threads.add(t);
      t.start();
    }
    CountDownLatch producersDone = new CountDownLatch(producers);
    for (int p = 0; p < producers; p++) {
      int seed = p;
      Thread t = new Thread(() -> {
        for (int i = 0; i < addsPerProducer; i++) {
          String k = keys[(seed + i) % keys.length];
          version.get(k).incrementAndGet(); // state changes, then the key is enqueued
          queue.add(k);
        }
        producersDone.countDown();
      }, "test-producer-" + p);
      threads.add(t);
      t.start();
    }
    assertThat(producersDone.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(queue.awaitIdle(Duration.ofSeconds(30))).isTrue();
    assertThat(overlaps.get()).isZero();
    // Every key's final state was processed after its last change: no add was lost.
    for (String k : keys) {
      assertThat(lastSeenVersion.get(k)).as(k).isEqualTo(version.get(k).get());
    }
  }

  @Test
  void addAfterHoldsTheKeyBackUntilItIsDue() throws InterruptedException {
    long start = System.nanoTime();
    queue.addAfter("a", Duration.ofMillis(150));
    assertThat(queue.length()).isZero();
    // Parked work is future work: the queue counts as idle meanwhile.
    assertThat(queue.isIdle()).isTrue();
    assertThat(take()).isEqualTo("a");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
    queue.done("a");
  }

  @Test
  void addAfterTwiceKeepsTheEarlierTime() throws InterruptedException {
    queue.addAfter("a", Duration.ofMillis(100));
    queue.addAfter("a", Duration.ofHours(1));
    queue.addAfter("b", Duration.ofHours(1));
    queue.addAfter("b", Duration.ofMillis(150));
    assertThat(take()).isEqualTo("a");
    assertThat(take()).isEqualTo("b");
    queue.done("a");
    queue.done("b");
    assertThat(queue.isIdle()).isTrue();
  }

  @Test
  void aParkedKeyThatIsAlsoAddedNowIsHandedOutOnceNowAndOnceWhenDue() throws InterruptedException {
    queue.addAfter("a", Duration.ofMillis(100));
    queue.add("a");
    assertThat(take()).isEqualTo("a");
    queue.done("a");
    // The parked entry still fires later (client-go does the same); processing it twice is harmless
    // for a level-based consumer.
    assertThat(take()).isEqualTo("a");
    queue.done("a");
  }

  @Test
  void addRateLimitedBacksOffExponentiallyPerKeyAndForgetResets() throws InterruptedException {
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    assertThat(queue.numRequeues("a")).isEqualTo(2);
    queue.addRateLimited("a"); // third failure: 50 * 4 = 200 ms; the earlier 50 ms parking wins
    assertThat(take()).isEqualTo("a");
    queue.done("a");
    queue.forget("a");
    assertThat(queue.numRequeues("a")).isZero();
    long start = System.nanoTime();
    queue.addRateLimited("a");
    assertThat(take()).isEqualTo("a");
    long waited = System.nanoTime() - start;
    assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(Duration.ofMillis(45));
    queue.done("a");
  }

  @Test
  void workersBlockedInGetWakeUpWhenAParkedKeyBecomesDue() throws Exception {
    List<String> got = Collections.synchronizedList(new ArrayList<>());
    Thread t = new Thread(() -> {
      try {
        queue.get().ifPresent(k -> {
          got.add(k);
          queue.done(k);
        });
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "test-worker");
    threads.add(t);
    t.start();
    await().until(() -> t.getState() == Thread.State.WAITING);
    queue.addAfter("a", Duration.ofMillis(100));
    await().atMost(Duration.ofSeconds(5)).until(() -> got.contains("a"));
  }

  @Test
  void shutDownReleasesBlockedWorkersDropsQueuedKeysAndIgnoresLaterAdds() throws Exception {
    List<Optional<String>> results = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < 3; i++) {
      Thread t = new Thread(() -> {
        try {
          results.add(queue.get());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "test-worker-" + i);
      threads.add(t);
      t.start();
    }
    await().until(() -> threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING));
    queue.shutDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> results.size() == 3);
    assertThat(results).containsOnly(Optional.empty());
    queue.add("late");
    queue.addAfter("later", Duration.ofMillis(1));
    assertThat(queue.length()).isZero();
    assertThat(queue.get()).isEmpty();
    assertThat(queue.isShuttingDown()).isTrue();
  }

  @Test
  void awaitIdleWaitsForTheKeyInProcessingAndTimesOutWhileItIsHeld() throws InterruptedException {
    queue.add("a");
    String key = take();
    assertThat(queue.awaitIdle(Duration.ofMillis(100))).isFalse();
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      queue.done(key);
    }, "test-finisher");
    threads.add(t);
    t.start();
    assertThat(queue.awaitIdle(Duration.ofSeconds(10))).isTrue();
  }
}

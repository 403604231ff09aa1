package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The queue against a reference model of client-go's semantics, over random interleavings of
 * add / get / done on a few keys (single-threaded, so every step is checked exactly).
 */
class WorkQueuePropertiesTest {

  /** One step: {@code op} 0 = add, 1 = get (if anything is queued), 2 = done (if processing). */
  record Step(int op, int key) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Arbitraries.integers().between(0, 2)
        .flatMap(op -> Arbitraries.integers().between(0, 3).map(k -> new Step(op, k)))
        .list().ofMaxSize(80);
  }

  @Property(tries = 300)
  void behavesLikeTheReferenceModel(@ForAll("steps") List<Step> steps) throws Exception {
    WorkQueue<String> queue = new WorkQueue<>(RateLimiter.controllerDefault(Duration.ofMillis(1),
        Duration.ofSeconds(1), 100, 100, RateLimiter.Ticker.SYSTEM), RateLimiter.Ticker.SYSTEM);
    ArrayDeque<String> modelQueue = new ArrayDeque<>();
    Set<String> dirty = new HashSet<>();
    Set<String> processing = new LinkedHashSet<>();
    for (Step step : steps) {
      String key = "k" + step.key();
      switch (step.op()) {
        case 0 -> {
          queue.add(key);
          if (dirty.add(key) && !processing.contains(key)) {
            modelQueue.addLast(key);
          }
        }
        case 1 -> {
          if (!modelQueue.isEmpty()) {
            String expected = modelQueue.pollFirst();
            dirty.remove(expected);
            processing.add(expected);
            assertThat(queue.get()).contains(expected);
          }
        }
        default -> {
          if (!processing.isEmpty()) {
            String done = processing.iterator().next();
            processing.remove(done);
            queue.done(done);
            if (dirty.contains(done)) {
              modelQueue.addLast(done);
            }
          }
        }
      }
      assertThat(queue.length()).isEqualTo(modelQueue.size());
      assertThat(queue.isIdle()).isEqualTo(modelQueue.isEmpty() && processing.isEmpty());
      // The model itself: never a key queued twice, never one queued while it is processed.
      assertThat(modelQueue).doesNotHaveDuplicates().noneMatch(processing::contains);
    }
    queue.shutDown();
  }
}

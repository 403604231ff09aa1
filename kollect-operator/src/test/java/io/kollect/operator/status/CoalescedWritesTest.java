package io.kollect.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CoalescedWritesTest {

  private record Scheduled(Runnable task, long delayNanos) {}

  private final List<Scheduled> scheduled = new ArrayList<>();
  private final AtomicLong now = new AtomicLong(1_000);
  private final CoalescedWrites<String> writes = new CoalescedWrites<>(Duration.ofSeconds(10),
      (task, delay) -> scheduled.add(new Scheduled(task, delay)), now::get);

  private void runScheduled() {
    List<Scheduled> due = List.copyOf(scheduled);
    scheduled.clear();
    due.forEach(s -> s.task().run());
  }

  @Test
  void theFirstWriteRunsAtOnceAndLaterOnesWaitForTheIntervalCoalesced() {
    AtomicInteger runs = new AtomicInteger();
    writes.request("t", runs::incrementAndGet);
    assertThat(scheduled).singleElement().extracting(Scheduled::delayNanos).isEqualTo(0L);
    runScheduled();
    assertThat(runs).hasValue(1);

    now.addAndGet(Duration.ofSeconds(2).toNanos());
    for (int i = 0; i < 50; i++) {
      writes.request("t", runs::incrementAndGet);
    }
    assertThat(scheduled).singleElement().extracting(Scheduled::delayNanos)
        .isEqualTo(Duration.ofSeconds(8).toNanos());
    runScheduled();
    assertThat(runs).as("50 requests in one interval are one write").hasValue(2);
  }

  @Test
  void keysAreIndependent() {
    AtomicInteger a = new AtomicInteger();
    AtomicInteger b = new AtomicInteger();
    writes.request("a", a::incrementAndGet);
    runScheduled();
    writes.request("a", a::incrementAndGet);
    writes.request("b", b::incrementAndGet);
    assertThat(scheduled).extracting(Scheduled::delayNanos)
        .containsExactlyInAnyOrder(Duration.ofSeconds(10).toNanos(), 0L);
  }

  @Test
  void aForgottenKeyDoesNotWrite() {
    AtomicInteger runs = new AtomicInteger();
    writes.request("t", runs::incrementAndGet);
    writes.forget("t");
    runScheduled();
    assertThat(runs).hasValue(0);
  }

  @Test
  void aDeferredFirstWriteWaitsOneIntervalAndASettledRequestMeanwhileRunsAtOnceInstead() {
    List<String> written = new ArrayList<>();
    writes.requestDeferred("t", () -> written.add("syncing"));
    assertThat(scheduled).singleElement().extracting(Scheduled::delayNanos)
        .isEqualTo(Duration.ofSeconds(10).toNanos());
    Scheduled deferred = scheduled.remove(0);

    writes.request("t", () -> written.add("ready"));
    assertThat(scheduled).singleElement().extracting(Scheduled::delayNanos).isEqualTo(0L);
    runScheduled();
    deferred.task().run();
    assertThat(written).as("one write, of the settled state; the deferred run is void")
        .containsExactly("ready");
  }

  @Test
  void aDeferredStateThatLastsIsWrittenAfterOneInterval() {
    List<String> written = new ArrayList<>();
    writes.requestDeferred("t", () -> written.add("syncing"));
    writes.requestDeferred("t", () -> written.add("still syncing"));
    assertThat(scheduled).hasSize(1);
    runScheduled();
    assertThat(written).containsExactly("still syncing");
  }

  @Test
  void aDeferredRequestAfterAWriteWaitsOnlyForTheInterval() {
    AtomicInteger runs = new AtomicInteger();
    writes.request("t", runs::incrementAndGet);
    runScheduled();
    now.addAndGet(Duration.ofSeconds(4).toNanos());
    writes.requestDeferred("t", runs::incrementAndGet);
    assertThat(scheduled).singleElement().extracting(Scheduled::delayNanos)
        .isEqualTo(Duration.ofSeconds(6).toNanos());
  }
}

package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.export.Sink;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The recheck rules, each check run inline so that what was checked is known at once. */
class BackgroundSinkChecksTest {

  private static final Duration RECHECK = Duration.ofSeconds(30);

  /** A sink whose check counts and finds it ready once {@link #readyAtNextCheck} is set. */
  private static final class CheckedSink implements Sink {
    int checks;
    boolean ready;
    boolean readyAtNextCheck;

    void check() {
      checks++;
      ready = readyAtNextCheck;
    }

    @Override
    public String name() {
      return "checked";
    }

    @Override
    public void write(List<Record> batch) {}
  }

  private static final class SettableClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  /** Runs each task on the caller's thread. */
  private static final class InlineExecutor extends AbstractExecutorService {
    private boolean shutdown;

    @Override
    public void execute(Runnable command) {
      command.run();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown = true;
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }

  private final SettableClock clock = new SettableClock();
  private final List<String> reported = new ArrayList<>();

  private BackgroundSinkChecks<CheckedSink> checks() {
    return BackgroundSinkChecks.of(CheckedSink.class).check(CheckedSink::check)
        .ready(s -> s.ready).outcome(s -> s.ready).afterCheck((name, sink) -> reported.add(name))
        .recheckInterval(RECHECK).clock(clock).threadName("test-check")
        .executor(new InlineExecutor()).build();
  }

  @Test
  void aSinkIsCheckedWhenPutAndReportedAfterItsCheck() {
    try (var checks = checks()) {
      CheckedSink sink = new CheckedSink();
      checks.put("a", sink);
      assertThat(sink.checks).isEqualTo(1);
      assertThat(reported).containsExactly("a");
      assertThat(checks.sink("a")).isSameAs(sink);
    }
  }

  @Test
  void aSinkNotReadyIsCheckedAgainOnceTheRecheckIntervalHasPassedAndNotBefore() {
    try (var checks = checks()) {
      CheckedSink sink = new CheckedSink();
      checks.put("a", sink);

      clock.now = clock.now.plus(RECHECK).minusSeconds(1);
      checks.recheck();
      assertThat(sink.checks).as("a second before the interval").isEqualTo(1);
      clock.now = clock.now.plusSeconds(1);
      checks.recheck();
      assertThat(sink.checks).as("at the interval").isEqualTo(2);
      checks.recheck();
      assertThat(sink.checks).as("the interval counts from the last check").isEqualTo(2);
    }
  }

  @Test
  void aSinkFoundReadyIsNotCheckedAgain() {
    try (var checks = checks()) {
      CheckedSink sink = new CheckedSink();
      sink.readyAtNextCheck = true;
      checks.put("a", sink);
      clock.now = clock.now.plus(RECHECK.multipliedBy(3));
      checks.recheck();
      assertThat(sink.checks).isEqualTo(1);
    }
  }

  @Test
  void aSinkThatCheckedAgainOnItsOwnIsReportedAtTheNextRecheckOnceWithoutACheckOfOurs() {
    try (var checks = checks()) {
      CheckedSink sink = new CheckedSink();
      checks.put("a", sink);
      assertThat(reported).containsExactly("a");
      checks.recheck();
      assertThat(reported).as("nothing changed").containsExactly("a");

      // a write found the destination ready (a kafka sink's write checks its topic again)
      sink.ready = true;
      checks.recheck();
      assertThat(reported).containsExactly("a", "a");
      assertThat(sink.checks).isEqualTo(1);
      clock.now = clock.now.plus(RECHECK);
      checks.recheck();
      assertThat(reported).as("reported once").containsExactly("a", "a");
      assertThat(sink.checks).as("ready: not checked again").isEqualTo(1);
    }
  }

  @Test
  void aSinkOfAnotherTypeIsNotKeptAndARemovedSinkIsNotRechecked() {
    try (var checks = checks()) {
      CheckedSink removed = new CheckedSink();
      checks.put("a", new CheckedSink());
      checks.put("a", new Sink() {
        @Override
        public String name() {
          return "other";
        }

        @Override
        public void write(List<Record> batch) {}
      });
      checks.put("b", removed);
      checks.remove("b");
      clock.now = clock.now.plus(RECHECK);
      checks.recheck();

      assertThat(checks.sink("a")).isNull();
      assertThat(checks.sink("b")).isNull();
      assertThat(removed.checks).isEqualTo(1);
      List<String> names = new ArrayList<>();
      checks.forEach((name, sink) -> names.add(name));
      assertThat(names).isEmpty();
    }
  }
}

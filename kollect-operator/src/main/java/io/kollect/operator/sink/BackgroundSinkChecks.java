package io.kollect.operator.sink;

import io.kollect.export.Sink;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The destination checks of one sink type's engine sinks (a kafka topic, a postgres database).
 * A check talks to the destination and can take up to the sink's own timeout (an address that
 * does not answer), so it runs on a thread of its own, never on a watch thread nor on the
 * sink-health loop, and at most one per sink at a time. A sink is checked when it is (re)built,
 * and again by {@link #recheck} while its last check found it not ready, at most once per recheck
 * interval. What a check found is the sink's own state; its owner reads it through {@link #sink}.
 *
 * <p>A sink may check again on its own (a write that finds its destination not ready asks once
 * more before it gives up): {@link #recheck} then reports the sink when its {@link
 * Builder#outcome} is no longer the one last reported, so its status does not keep an outcome
 * the sink has left.
 *
 * @param <S> the sink type checked; engine sinks of other types are not kept
 */
final class BackgroundSinkChecks<S extends Sink> implements AutoCloseable {

  /**
   * @param reported the sink's outcome when it was last reported ({@code null} before its first
   *     check ends)
   */
  private record Entry<S>(S sink, Instant lastCheck, Object reported) {
    Entry<S> reporting(Object outcome) {
      return new Entry<>(sink, lastCheck, outcome);
    }
  }

  private final Class<S> type;
  private final Consumer<S> check;
  private final Predicate<S> ready;
  private final Function<S, ?> outcome;
  private final BiConsumer<String, S> afterCheck;
  private final Duration recheckInterval;
  private final Clock clock;
  private final Map<String, Entry<S>> sinks = new ConcurrentHashMap<>();
  private final Map<S, Boolean> running = new ConcurrentHashMap<>();
  private final ExecutorService executor;

  private BackgroundSinkChecks(Builder<S> b) {
    this.type = b.type;
    this.check = Objects.requireNonNull(b.check, "check");
    this.ready = Objects.requireNonNull(b.ready, "ready");
    this.outcome = b.outcome;
    this.afterCheck = b.afterCheck;
    this.recheckInterval = Objects.requireNonNull(b.recheckInterval, "recheckInterval");
    this.clock = Objects.requireNonNull(b.clock, "clock");
    String threadName = Objects.requireNonNull(b.threadName, "threadName");
    this.executor = b.executor != null ? b.executor : Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** Checks of the engine sinks of {@code type}. */
  static <S extends Sink> Builder<S> of(Class<S> type) {
    return new Builder<>(type);
  }

  /** The engine sink {@code name} is now {@code sink}: one of the type is checked at once. */
  void put(String name, Sink sink) {
    if (type.isInstance(sink)) {
      S typed = type.cast(sink);
      sinks.put(name, new Entry<>(typed, clock.instant(), null));
      check(name, typed);
    } else {
      sinks.remove(name);
    }
  }

  void remove(String name) {
    sinks.remove(name);
  }

  /** The sink {@code name} if it is of the type; {@code null} otherwise. */
  S sink(String name) {
    Entry<S> e = sinks.get(name);
    return e == null ? null : e.sink();
  }

  /** Each sink of the type, by engine sink name. */
  void forEach(BiConsumer<String, S> action) {
    sinks.forEach((name, e) -> action.accept(name, e.sink()));
  }

  /**
   * Reports every sink whose outcome changed since it was last reported (it checked again on its
   * own), and checks again every sink that was not ready at its last check, once per recheck
   * interval.
   */
  void recheck() {
    Instant now = clock.instant();
    sinks.forEach((name, e) -> {
      if (outcome != null && e.reported() != null && afterCheck != null) {
        Object current = outcome.apply(e.sink());
        if (!Objects.equals(current, e.reported())) {
          Entry<S> reporting = e.reporting(current);
          if (sinks.replace(name, e, reporting)) {
            afterCheck.accept(name, e.sink());
          }
          e = reporting;
        }
      }
      if (!ready.test(e.sink()) && !now.isBefore(e.lastCheck().plus(recheckInterval))
          && sinks.replace(name, e, new Entry<>(e.sink(), now, e.reported()))) {
        check(name, e.sink());
      }
    });
  }

  private void check(String name, S sink) {
    if (running.putIfAbsent(sink, Boolean.TRUE) != null) {
      return;
    }
    executor.execute(() -> {
      try {
        check.accept(sink);
      } finally {
        running.remove(sink);
      }
      Entry<S> current = sinks.get(name);
      if (afterCheck != null && current != null && current.sink() == sink) {
        if (outcome != null) {
          // what this report shows; a later change is the sink's own (see recheck)
          sinks.replace(name, current, current.reporting(outcome.apply(sink)));
        }
        afterCheck.accept(name, sink);
      }
    });
  }

  @Override
  public void close() {
    executor.shutdownNow();
    // A check interrupted here still logs its end: let it, so nothing outlives the close.
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sinks.clear();
  }

  /** What a sink type's checks are; every value but {@link #afterCheck} is required. */
  static final class Builder<S extends Sink> {
    private final Class<S> type;
    private Consumer<S> check;
    private Predicate<S> ready;
    private Function<S, ?> outcome;
    private BiConsumer<String, S> afterCheck;
    private Duration recheckInterval;
    private Clock clock;
    private String threadName;
    private ExecutorService executor;

    private Builder(Class<S> type) {
      this.type = Objects.requireNonNull(type, "type");
    }

    /** The check itself, blocking; it records what it found in the sink. */
    Builder<S> check(Consumer<S> check) {
      this.check = check;
      return this;
    }

    /** Whether the sink's last check found it ready; a sink that is not is checked again. */
    Builder<S> ready(Predicate<S> ready) {
      this.ready = ready;
      return this;
    }

    /**
     * What of the sink's state its status shows (non-null, with {@code equals}): when it changes
     * without a check of these (the sink checked again on its own), {@link #recheck} reports the
     * sink through {@link #afterCheck}. Unset: only these checks report.
     */
    Builder<S> outcome(Function<S, ?> outcome) {
      this.outcome = outcome;
      return this;
    }

    /** Called after a check of a sink still current under its name (not one replaced since). */
    Builder<S> afterCheck(BiConsumer<String, S> afterCheck) {
      this.afterCheck = afterCheck;
      return this;
    }

    Builder<S> recheckInterval(Duration recheckInterval) {
      this.recheckInterval = recheckInterval;
      return this;
    }

    Builder<S> clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** The name of the threads the checks run on. */
    Builder<S> threadName(String threadName) {
      this.threadName = threadName;
      return this;
    }

    /**
     * Runs the checks on {@code executor} instead of threads named {@link #threadName} (a test
     * that wants each check to run inline).
     */
    Builder<S> executor(ExecutorService executor) {
      this.executor = executor;
      return this;
    }

    BackgroundSinkChecks<S> build() {
      return new BackgroundSinkChecks<>(this);
    }
  }
}

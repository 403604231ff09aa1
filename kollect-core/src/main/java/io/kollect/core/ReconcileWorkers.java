package io.kollect.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's reconcile workers: {@code kollect-reconcile-N} threads that take targets off the
 * rate-limited {@link WorkQueue}, skip the ones whose {@link CircuitBreaker circuit} is open,
 * reconcile the others ({@link TargetReconciler}), put the circuit's condition on the status and
 * hand it to the {@link StatusPublisher}. A reconcile that throws is retried with the queue's
 * per-target backoff, or after the circuit's cool-down once the circuit opens.
 *
 * <p>It is also where a full pass is asked for ({@link #fullPass}): a changed input may be the
 * fix of what kept failing, so asking gives an open circuit its attempt at once.
 */
final class ReconcileWorkers {

  private static final Logger LOG = LoggerFactory.getLogger(ReconcileWorkers.class);

  /**
   * What the workers work with.
   *
   * @param queue the targets to reconcile
   * @param targets the engine's target of an id, {@code null} when it was removed
   * @param reconciler brings one target up to date
   * @param circuits skips targets whose reconciles keep failing
   * @param publisher where each reconcile's status goes
   * @param reconciled told after each reconcile of a target (shadow evaluation listens)
   */
  record Parts(WorkQueue<TargetId> queue, Function<TargetId, TargetRuntime> targets,
      TargetReconciler reconciler, CircuitBreaker circuits, StatusPublisher publisher,
      Consumer<TargetRuntime> reconciled) {}

  private final WorkQueue<TargetId> queue;
  private final Function<TargetId, TargetRuntime> targets;
  private final TargetReconciler reconciler;
  private final CircuitBreaker circuits;
  private final StatusPublisher publisher;
  private final Consumer<TargetRuntime> reconciled;
  private final List<Thread> threads = new ArrayList<>();

  ReconcileWorkers(Parts parts) {
    this.queue = parts.queue();
    this.targets = parts.targets();
    this.reconciler = parts.reconciler();
    this.circuits = parts.circuits();
    this.publisher = parts.publisher();
    this.reconciled = parts.reconciled();
  }

  /** Starts {@code count} workers. */
  void start(int count) {
    for (int i = 1; i <= count; i++) {
      Thread t = new Thread(this::work, "kollect-reconcile-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Shuts the queue down and waits for the workers (a reconcile in progress finishes). */
  void stop() {
    queue.shutDown();
    for (Thread t : threads) {
      try {
        t.join(Duration.ofSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (t.isAlive()) {
        LOG.warn("reconcile worker {} did not stop within 30 s", t.getName());
      }
    }
  }

  /**
   * Queues a full pass of the target: what changed (a spec, profile, sink, access answer, the
   * export flag) is an input of every object's record, not of one object.
   */
  void fullPass(TargetId id) {
    // A changed input may be the fix of what kept failing: an open circuit tries it at once.
    circuits.grantAttempt(id, Instant.now());
    TargetRuntime rt = targets.apply(id);
    if (rt != null) {
      rt.requestFullPass();
    }
    queue.add(id);
  }

  /** Forgets a removed target's circuit. */
  void forget(TargetId id) {
    circuits.forget(id);
  }

  /** How many targets' circuits are open now. */
  int openCircuits() {
    return circuits.openCount();
  }

  private void work() {
    while (true) {
      Optional<TargetId> next;
      try {
        next = queue.get();
      } catch (InterruptedException e) {
        return;
      }
      if (next.isEmpty()) {
        return;
      }
      TargetId id = next.get();
      try {
        reconcile(id);
        queue.forget(id);
      } catch (RuntimeException e) {
        failed(id, e);
      } finally {
        queue.done(id);
      }
    }
  }

  /** One turn of a target: skipped while its circuit is open, else reconciled and published. */
  private void reconcile(TargetId id) {
    TargetRuntime rt = targets.apply(id);
    if (rt == null) {
      return;
    }
    Duration wait = circuits.untilAttempt(id, Instant.now());
    if (wait != null) {
      queue.addAfter(id, wait); // skipped while open; an earlier wake-up took its place
      return;
    }
    TargetStatus status = reconciler.reconcile(rt);
    Instant now = Instant.now();
    String failure = CircuitBreaker.extractionFailure(status);
    Duration open = circuits.record(id, failure, now);
    if (status != null) {
      publisher.publish(rt, circuits.decorate(status, rt.status, now));
    }
    if (open != null) {
      LOG.warn("target {}: circuit open for {} ({})", id, open, failure);
      rt.requestFullPass();
      queue.addAfter(id, open);
    }
    reconciled.accept(rt);
  }

  /** A reconcile threw: report it and retry with backoff, or after the circuit's cool-down. */
  private void failed(TargetId id, RuntimeException e) {
    int attempt = queue.numRequeues(id) + 1;
    Instant now = Instant.now();
    Duration open = circuits.record(id, StatusBuilder.firstLine(e), now);
    LOG.warn("reconcile of target {} failed (attempt {}), {}", id, attempt,
        open == null ? "retrying with backoff" : "circuit open for " + open, e);
    TargetRuntime rt = targets.apply(id);
    if (rt != null) {
      try {
        publisher.publish(rt, circuits.decorate(StatusBuilder.failed(rt, e, now), rt.status,
            now));
      } catch (RuntimeException statusFailure) {
        LOG.warn("cannot report the failed reconcile of target {}", id, statusFailure);
      }
    }
    if (open == null) {
      queue.addRateLimited(id);
    } else {
      queue.forget(id);
      queue.addAfter(id, open);
    }
  }
}

package io.kollect.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link AccessReviewer}'s answers, cached and re-checked on a fixed interval.
 *
 * <p>Why this shape: reconciles run on every informer event, and asking the API server a
 * SubjectAccessReview per event would turn each ConfigMap patch into two API requests per tenant.
 * So a reconcile only reads this cache (asking once for a question never seen), and one background
 * thread re-asks every cached question each interval. When an answer changes, or a question leaves
 * the cache (unused for a long time, or the cache is full), {@code onChange} is told, and the
 * engine re-enqueues the targets of that ServiceAccount: a granted or revoked RoleBinding takes
 * effect within one interval, and a quiet target whose question expired is reconciled and asks
 * afresh rather than keep an answer nobody re-checks.
 */
final class AccessDecisions implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AccessDecisions.class);
  private static final long MAX_QUESTIONS = 100_000;

  /**
   * One question to the reviewer.
   *
   * @param saNamespace the ServiceAccount's namespace
   * @param saName the ServiceAccount's name
   * @param group API group
   * @param resource plural resource name
   * @param namespace namespace, or {@code null} for cluster-wide
   */
  record Question(String saNamespace, String saName, String group, String resource,
      String namespace) {}

  private final AccessReviewer reviewer;
  private final Consumer<Question> onChange;
  private final Cache<Question, Boolean> answers;
  private final ScheduledExecutorService recheck;

  /**
   * Creates the cache; with {@code recheckEvery} non-null a daemon thread re-asks every cached
   * question at that interval.
   */
  AccessDecisions(AccessReviewer reviewer, Duration recheckEvery, Consumer<Question> onChange) {
    this.reviewer = Objects.requireNonNull(reviewer, "reviewer");
    this.onChange = Objects.requireNonNull(onChange, "onChange");
    Duration idle = recheckEvery == null ? Duration.ofHours(1)
        : max(Duration.ofHours(1), recheckEvery.multipliedBy(10));
    this.answers = Caffeine.newBuilder()
        .maximumSize(MAX_QUESTIONS)
        .expireAfterAccess(idle)
        .scheduler(Scheduler.systemScheduler())
        .removalListener((Question q, Boolean answer, com.github.benmanes.caffeine.cache
            .RemovalCause cause) -> {
          if (q != null && cause.wasEvicted()) {
            onChange.accept(q);
          }
        })
        .build();
    if (recheckEvery == null) {
      this.recheck = null;
    } else {
      this.recheck = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kollect-access-review");
        t.setDaemon(true);
        return t;
      });
      long millis = recheckEvery.toMillis();
      recheck.scheduleWithFixedDelay(this::recheckAll, millis, millis, TimeUnit.MILLISECONDS);
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * The cached answer, or the reviewer's when the question is new.
   *
   * @throws RuntimeException when the reviewer fails (nothing is cached then)
   */
  boolean mayListWatch(Question q) {
    return answers.get(q, this::ask);
  }

  private boolean ask(Question q) {
    return reviewer.mayListWatch(q.saNamespace(), q.saName(), q.group(), q.resource(),
        q.namespace());
  }

  /** Re-asks every cached question and reports those whose answer changed. */
  void recheckAll() {
    for (Question q : List.copyOf(answers.asMap().keySet())) {
      Boolean before = answers.policy().getIfPresentQuietly(q);
      if (before == null) {
        continue;
      }
      boolean now;
      try {
        now = ask(q);
      } catch (RuntimeException e) {
        // Keep the last answer: an API hiccup must neither grant nor revoke access.
        LOG.warn("re-checking access of ServiceAccount {}/{} failed, keeping the last answer: {}",
            q.saNamespace(), q.saName(), e.getMessage());
        continue;
      }
      if (now != before && answers.asMap().replace(q, before, now)) {
        LOG.info("ServiceAccount {}/{} may {} list/watch {}{} {}", q.saNamespace(), q.saName(),
            now ? "now" : "no longer", q.resource(), q.group().isEmpty() ? "" : "." + q.group(),
            q.namespace() == null ? "cluster-wide" : "in namespace " + q.namespace());
        onChange.accept(q);
      }
    }
  }

  @Override
  public void close() {
    if (recheck != null) {
      recheck.shutdownNow();
      try {
        // A re-check in flight ends with its current access review (bounded by client timeouts).
        if (!recheck.awaitTermination(10, TimeUnit.SECONDS)) {
          LOG.warn("the access re-check thread did not stop within 10 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

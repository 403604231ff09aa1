package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AccessDecisionsTest {

  /** A policy the test edits, counting the questions it is asked. */
  static final class Policy implements AccessReviewer {
    final Map<String, Boolean> allowed = new ConcurrentHashMap<>();
    final AtomicInteger asked = new AtomicInteger();
    volatile RuntimeException failure;

    static String key(String saNamespace, String saName, String resource, String namespace) {
      return saNamespace + "/" + saName + " " + resource + " " + namespace;
    }

    void allow(String saNamespace, String saName, String resource, String namespace,
        boolean yes) {
      allowed.put(key(saNamespace, saName, resource, namespace), yes);
    }

    @Override
    public boolean mayListWatch(String saNamespace, String saName, String group, String resource,
        String namespace) {
      asked.incrementAndGet();
      if (failure != null) {
        throw failure;
      }
      return allowed.getOrDefault(key(saNamespace, saName, resource, namespace), false);
    }
  }

  private final Policy policy = new Policy();
  private final List<AccessDecisions.Question> changed = new CopyOnWriteArrayList<>();
  // No background re-check: the test calls recheckAll() itself.
  private final AccessDecisions decisions = new AccessDecisions(policy, null, changed::add);

  private static AccessDecisions.Question q(String namespace) {
    return new AccessDecisions.Question("tenant-a", "reader", "", "configmaps", namespace);
  }

  @AfterEach
  void close() {
    decisions.close();
  }

  @Test
  void aQuestionIsAskedOnceAndThenAnsweredFromTheCache() {
    policy.allow("tenant-a", "reader", "configmaps", "tenant-a", true);
    for (int i = 0; i < 10; i++) {
      assertThat(decisions.mayListWatch(q("tenant-a"))).isTrue();
      assertThat(decisions.mayListWatch(q("payments"))).isFalse();
    }
    assertThat(policy.asked).hasValue(2);
  }

  @Test
  void aRecheckReportsExactlyTheQuestionsWhoseAnswerChanged() {
    policy.allow("tenant-a", "reader", "configmaps", "tenant-a", true);
    decisions.mayListWatch(q("tenant-a"));
    decisions.mayListWatch(q("payments"));

    decisions.recheckAll();
    assertThat(changed).isEmpty();

    policy.allow("tenant-a", "reader", "configmaps", "payments", true);
    decisions.recheckAll();
    assertThat(changed).containsExactly(q("payments"));
    assertThat(decisions.mayListWatch(q("payments"))).isTrue();
    assertThat(decisions.mayListWatch(q("tenant-a"))).isTrue();
  }

  @Test
  void aFailingRecheckKeepsTheLastAnswerAndAFailingFirstQuestionCachesNothing() {
    policy.allow("tenant-a", "reader", "configmaps", "tenant-a", true);
    decisions.mayListWatch(q("tenant-a"));
    policy.failure = new IllegalStateException("SubjectAccessReview at https://x failed: 503");
    decisions.recheckAll();
    assertThat(changed).isEmpty();
    assertThat(decisions.mayListWatch(q("tenant-a"))).isTrue();

    assertThatThrownBy(() -> decisions.mayListWatch(q("payments")))
        .hasMessageContaining("503");
    policy.failure = null;
    policy.allow("tenant-a", "reader", "configmaps", "payments", true);
    assertThat(decisions.mayListWatch(q("payments"))).isTrue();
  }
}

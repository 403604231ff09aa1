package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ThrottledCredentialsTest {

  @Test
  void suppliersAreAskedOncePerIntervalAndAChangeIsToldOnce() throws Exception {
    AtomicReference<String> secret = new AtomicReference<>("a");
    AtomicInteger reads = new AtomicInteger();
    List<String> changes = new ArrayList<>();
    ThrottledCredentials<String> slow = new ThrottledCredentials<>(() -> {
      reads.incrementAndGet();
      return secret.get();
    }, Duration.ofHours(1), (before, after) -> changes.add(before + "->" + after));

    assertThat(slow.latest()).isNull();
    assertThat(slow.get()).isEqualTo("a");
    secret.set("b");
    assertThat(slow.get()).as("within the interval").isEqualTo("a");
    assertThat(reads).hasValue(1);

    ThrottledCredentials<String> eager = new ThrottledCredentials<>(secret::get, Duration.ZERO,
        (before, after) -> changes.add(before + "->" + after));
    secret.set("a");
    eager.get();
    eager.get();
    secret.set("b");
    assertThat(eager.get()).isEqualTo("b");
    assertThat(eager.latest()).isEqualTo("b");
    assertThat(changes).containsExactly("a->b");
  }

  @Test
  void aFailedReadIsNotRememberedAndKeepsTheLastCredentials() throws Exception {
    AtomicReference<String> secret = new AtomicReference<>("a");
    ThrottledCredentials<String> c = new ThrottledCredentials<>(() -> {
      String s = secret.get();
      if (s == null) {
        throw new SuppliedSecret.UnavailableException("password is missing (empty)");
      }
      return s;
    }, Duration.ZERO, (before, after) -> { });
    c.get();
    secret.set(null);

    assertThatThrownBy(c::get).hasMessage("password is missing (empty)");
    assertThat(c.latest()).isEqualTo("a");
    secret.set("a");
    assertThat(c.get()).isEqualTo("a");
  }
}

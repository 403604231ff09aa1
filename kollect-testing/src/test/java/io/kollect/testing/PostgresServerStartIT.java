package io.kollect.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link TestPostgresServer}: a start that cannot be handed its socket still starts. */
class PostgresServerStartIT {

  @Test
  void aPortTakenBetweenItsPickAndTheServersStartIsLeftForAnotherPort() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AtomicInteger picks = new AtomicInteger();
      // the first pick is a port another process holds, as a parallel test JVM would
      try (TestPostgresServer server = TestPostgresServer.start(null,
          () -> picks.incrementAndGet() == 1 ? taken.getLocalPort() : freePort())) {
        assertThat(picks).hasValueGreaterThanOrEqualTo(2);
        assertThat(server.port()).isNotEqualTo(taken.getLocalPort());
        try (Connection c = server.connect()) {
          assertThat(c.isValid(10)).isTrue();
        }
      }
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

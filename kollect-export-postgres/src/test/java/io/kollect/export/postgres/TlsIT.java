package io.kollect.export.postgres;

import static io.kollect.export.postgres.Fixtures.CONFIG_MAP;
import static io.kollect.export.postgres.Fixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.SinkException;
import io.kollect.testing.TestCertificateAuthority;
import io.kollect.testing.TestCertificateAuthority.Issued;
import io.kollect.testing.TestPostgresServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS from PEM text: the server verified by the configured CA and host name ({@code
 * verify-full}), a client certificate presented, and a rotated client certificate taken by the
 * same sink.
 */
class TlsIT {

  private static final TestCertificateAuthority CA = TestCertificateAuthority.create("pg-ca");
  private static final TestCertificateAuthority OTHER = TestCertificateAuthority.create("other");
  private static final Issued CLIENT = CA.client("tls_writer");
  private static TestPostgresServer server;

  @BeforeAll
  static void startServer() {
    Issued serverCert = CA.server("127.0.0.1");
    server = TestPostgresServer.start(new TestPostgresServer.ServerTls(
        serverCert.certificatePem(), serverCert.pkcs8KeyPem(), CA.certificatePem()));
    server.execute("CREATE ROLE tls_writer LOGIN PASSWORD 'pw'",
        "GRANT CREATE ON DATABASE " + TestPostgresServer.DATABASE + " TO tls_writer");
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private static PostgresSinkConfig.Builder config(String url, String caPem,
      AtomicReference<Issued> client) {
    return PostgresSinkConfig.builder().url(url).credentials("tls_writer", "pw")
        // the pool retries a refused handshake until this timeout, so each refusal case takes it
        // (about 12 s for the class); 1 s timed a slow handshake out on a loaded machine, which
        // read as Unreachable instead of TlsFailed
        .connectTimeout(Duration.ofSeconds(5)).credentialsCheckInterval(Duration.ZERO)
        .tls(new PostgresSinkConfig.Tls(() -> caPem, () -> client.get().certificatePem(),
            () -> client.get().pkcs8KeyPem()));
  }

  @Test
  void writesOverVerifiedTlsPresentingTheClientCertificate() throws Exception {
    try (PostgresSink sink = new PostgresSink("a", config(server.jdbcUrl(),
        CA.certificatePem(), new AtomicReference<>(CLIENT)).build())) {
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "cm", "{}", 1)));
      assertThat(Fixtures.rows(server, "SELECT s.ssl, s.client_dn FROM pg_stat_ssl s"
          + " JOIN pg_stat_activity a USING (pid) WHERE a.usename = 'tls_writer'"))
          .isNotEmpty().allSatisfy(row -> assertThat(row).containsExactly("t", "/CN=tls_writer"));
    }
  }

  @Test
  void aServerNotSignedByTheConfiguredCaIsRefused() {
    try (PostgresSink sink = new PostgresSink("a", config(server.jdbcUrl(),
        OTHER.certificatePem(), new AtomicReference<>(CLIENT)).build())) {
      assertThatThrownBy(() -> sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "x", "{}", 1))))
          .isInstanceOfSatisfying(SinkException.class, e -> assertThat(e.retryable()).isTrue());
      assertThat(sink.databaseCheck().status()).isEqualTo(DatabaseCheck.Status.ERROR);
      assertThat(sink.databaseCheck().reason()).isEqualTo("TlsFailed");
      assertThat(sink.databaseCheck().message()).contains("PKIX");
    }
  }

  @Test
  void aHostNameTheServerCertificateDoesNotNameIsRefused() {
    String byName = server.jdbcUrl().replace("127.0.0.1", "localhost");
    try (PostgresSink sink = new PostgresSink("a", config(byName, CA.certificatePem(),
        new AtomicReference<>(CLIENT)).build())) {
      assertThatThrownBy(() -> sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "x", "{}", 1))))
          .isInstanceOf(SinkException.class);
      assertThat(sink.databaseCheck().reason()).isEqualTo("TlsFailed");
      assertThat(sink.databaseCheck().message()).containsIgnoringCase("hostname");
    }
  }

  @Test
  void aRotatedClientCertificateIsTakenByTheSameSink() throws Exception {
    AtomicReference<Issued> client = new AtomicReference<>(OTHER.client("tls_writer"));
    try (PostgresSink sink = new PostgresSink("a", config(server.jdbcUrl(),
        CA.certificatePem(), client).build())) {
      assertThatThrownBy(() -> sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "r", "{}", 1))))
          .isInstanceOf(SinkException.class);
      assertThat(sink.databaseCheck().ready()).isFalse();

      client.set(CLIENT);
      sink.write(List.of(upsert("c1", CONFIG_MAP, "ns", "r", "{}", 1)));
      assertThat(sink.databaseCheck().ready()).isTrue();
    }
  }
}

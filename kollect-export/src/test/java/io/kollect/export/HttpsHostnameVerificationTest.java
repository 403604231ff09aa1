package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.testing.TestCertificateAuthority;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostname verification belongs to each sink's client, not to the JVM: the JDK's HTTP client
 * skips it for every client when the system property {@code
 * jdk.internal.httpclient.disableHostnameVerification} is set (read once, when the client classes
 * load). A JVM started with that property must still refuse a certificate for another host.
 */
class HttpsHostnameVerificationTest {

  static final String PROPERTY = "jdk.internal.httpclient.disableHostnameVerification";

  @Test
  void wrongHostIsRefusedEvenWhenTheJdkWideSwitchDisablesHostnameVerification(@TempDir Path dir)
      throws Exception {
    TestCertificateAuthority ca = TestCertificateAuthority.create("ca");
    try (HttpsReceiver receiver = HttpsReceiver.start(ca.server("wrong.example"), null)) {
      Path caFile = Files.writeString(dir.resolve("ca.crt"), ca.certificatePem());
      String classPath = System.getProperty("surefire.test.class.path",
          System.getProperty("java.class.path"));
      Process probe = new ProcessBuilder(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-D" + PROPERTY + "=true", "-cp", classPath, Probe.class.getName(),
          receiver.uri("127.0.0.1").toString(), caFile.toString())
          .redirectErrorStream(true).start();
      assertThat(probe.waitFor(60, TimeUnit.SECONDS)).as("probe finished").isTrue();
      String out = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(out).contains("property " + PROPERTY + "=true")
          .contains("refused: POST " + receiver.uri("127.0.0.1") + ": server certificate for "
              + "https://127.0.0.1:" + receiver.port() + " does not match the host 127.0.0.1");
      assertThat(receiver.received).isEmpty();
    }
  }

  /** Runs in the child JVM: one write to the URL, trusting the CA file; prints the outcome. */
  static final class Probe {
    public static void main(String[] args) throws Exception {
      System.out.println("property " + PROPERTY + "=" + System.getProperty(PROPERTY));
      String ca = Files.readString(Path.of(args[1]));
      HttpSink sink = new HttpSink("probe", HttpSinkConfig.of(URI.create(args[0]))
          .withTls(TlsConfig.trusting(() -> ca)));
      try {
        sink.write(List.of(TestRecords.record("t", "a", 1)));
        System.out.println("delivered");
      } catch (SinkException e) {
        System.out.println("refused: " + e.getMessage());
      }
    }
  }
}

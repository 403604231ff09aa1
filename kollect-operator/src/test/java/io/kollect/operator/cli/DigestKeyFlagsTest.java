package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Secret digest key flags are checked before anything runs, in one line. */
class DigestKeyFlagsTest {

  @TempDir Path dir;

  @Test
  void aMissingDigestKeyFileIsExit2WithOneLineOnExtractTestAndRun() throws Exception {
    Path profile = Files.writeString(dir.resolve("profile.yaml"), ExtractCommandTest.PROFILE);
    Path input = Files.writeString(dir.resolve("in.yaml"), ExtractCommandTest.DEPLOYMENTS);
    Path missing = dir.resolve("no-such-key");
    String expected = "kollect: --digest-key-file: " + missing
        + " does not exist or is not a readable file\n";

    CliRun extract = CliRun.of("extract", "--profile", profile.toString(), "--input",
        input.toString(), "--digest-key-file", missing.toString());
    assertThat(extract.exitCode()).isEqualTo(2);
    assertThat(extract.err()).isEqualTo(expected);
    assertThat(extract.out()).isEmpty();

    CliRun test = CliRun.of("test", "--profile", profile.toString(), "--cases", dir.toString(),
        "--digest-key-file", missing.toString());
    assertThat(test.exitCode()).isEqualTo(2);
    assertThat(test.err()).isEqualTo(expected);

    CliRun run = CliRun.of("run", "--kubeconfig", dir.resolve("no-kubeconfig").toString(),
        "--digest-key-file", missing.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--digest-key-file: " + missing + " does not exist");
  }

  @Test
  void aShortKeyIsRefusedWithoutQuotingIt() throws Exception {
    Path profile = Files.writeString(dir.resolve("profile.yaml"), ExtractCommandTest.PROFILE);
    Path input = Files.writeString(dir.resolve("in.yaml"), ExtractCommandTest.DEPLOYMENTS);
    Path key = Files.writeString(dir.resolve("key"), "tiny-secret\n");
    CliRun extract = CliRun.of("extract", "--profile", profile.toString(), "--input",
        input.toString(), "--digest-key-file", key.toString());
    assertThat(extract.exitCode()).isEqualTo(2);
    assertThat(extract.err()).contains("at least 16 bytes long, got 11")
        .doesNotContain("tiny-secret");
  }

  @Test
  void aGoodKeyFileIsAccepted() throws Exception {
    Path profile = Files.writeString(dir.resolve("profile.yaml"), ExtractCommandTest.PROFILE);
    Path input = Files.writeString(dir.resolve("in.yaml"), ExtractCommandTest.DEPLOYMENTS);
    Path key = Files.writeString(dir.resolve("key"), "0123456789abcdef0123456789abcdef\n");
    CliRun extract = CliRun.of("extract", "--profile", profile.toString(), "--input",
        input.toString(), "--digest-key-file", key.toString());
    assertThat(extract.exitCode()).isZero();
  }

  @Test
  void bothDigestKeySourcesAtOnceAreRefused() throws Exception {
    Path key = Files.writeString(dir.resolve("key"), "0123456789abcdef0123456789abcdef");
    CliRun run = CliRun.of("run", "--digest-key-secret", "kollect-digest", "--digest-key-file",
        key.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo(
        "kollect: --digest-key-secret, --digest-key-file: give at most one of them\n");
  }
}

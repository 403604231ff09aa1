package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.operator.cli.KollectCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample passes {@code kollect test} offline against its golden file, run through the CLI
 * entry point exactly as users and CI run it; and a golden that disagrees fails with a diff that
 * names the record and the field.
 */
class SampleGoldenTest {

  /** Output and exit code of one in-process {@code kollect} run. */
  record Run(int exitCode, String out, String err) {
    String all() {
      return out + err;
    }
  }

  static Run kollect(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = KollectCommand.execute(
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        args);
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Run kollectTest(Path sampleDir) {
    return kollect("test", "--profile", sampleDir.resolve("profile.yaml").toString(),
        "--cases", sampleDir.toString());
  }

  static Stream<String> samples() {
    return SamplePaths.SAMPLES.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void kollectTestAcceptsTheSamplesGolden(String sample) {
    Run run = kollectTest(SamplePaths.sample(sample));
    assertThat(run.exitCode()).as("kollect test %s:%n%s", sample, run.all()).isZero();
  }

  @Test
  void aChangedGoldenValueFailsWithADiffNamingTheRecordAndField(@TempDir Path tmp)
      throws IOException {
    Path copy = copySample("deployment-inventory", tmp);
    Path golden = copy.resolve("expected.jsonl");
    List<String> lines = Files.readAllLines(golden);
    int line = indexOf(lines, "\"name\":\"checkout-api\"");
    assertThat(lines.get(line)).contains("\"replicas\":3,");
    lines.set(line, lines.get(line).replace("\"replicas\":3,", "\"replicas\":4,"));
    Files.write(golden, lines);

    Run run = kollectTest(copy);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.all()).contains("checkout-api").contains("replicas").contains("4").contains("3");
  }

  @Test
  void aMissingGoldenRecordFailsNamingTheObject(@TempDir Path tmp) throws IOException {
    Path copy = copySample("service-endpoints", tmp);
    Path golden = copy.resolve("expected.jsonl");
    List<String> lines = Files.readAllLines(golden);
    lines.remove(indexOf(lines, "\"name\":\"payments-gateway\""));
    Files.write(golden, lines);

    Run run = kollectTest(copy);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.all()).contains("payments-gateway");
  }

  @Test
  void aScrubbedValueThatLeaksIntoTheGoldenFails(@TempDir Path tmp) throws IOException {
    // A golden that expects the secret in clear text is wrong, and kollect test must say so.
    Path copy = copySample("helmrelease-values", tmp);
    Path golden = copy.resolve("expected.jsonl");
    String text = Files.readString(golden);
    assertThat(text).contains("\"adminPassword\":\"********\"").doesNotContain("S3cr3t-admin-pw!");
    Files.writeString(golden,
        text.replace("\"adminPassword\":\"********\"", "\"adminPassword\":\"S3cr3t-admin-pw!\""));

    Run run = kollectTest(copy);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.all()).contains("adminPassword");
  }

  private static int indexOf(List<String> lines, String fragment) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(fragment)) {
        return i;
      }
    }
    throw new AssertionError("no golden line contains " + fragment);
  }

  /** Copies a sample directory (profile, target, fixtures, golden) into {@code tmp}. */
  static Path copySample(String sample, Path tmp) throws IOException {
    Path src = SamplePaths.sample(sample);
    Path dst = tmp.resolve(sample);
    try (Stream<Path> files = Files.walk(src)) {
      for (Path p : files.toList()) {
        Path target = dst.resolve(src.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    return dst;
  }
}

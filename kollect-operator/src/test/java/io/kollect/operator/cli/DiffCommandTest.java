package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kollect diff} over the sample catalog's manifests, as docs/examples/experiment shows. */
class DiffCommandTest {

  private static final Path ROOT = Path.of("..");
  private static final String BASELINE =
      ROOT.resolve("samples/deployment-inventory/profile.yaml").toString();
  private static final String CANDIDATE =
      ROOT.resolve("docs/examples/experiment/candidate.yaml").toString();
  private static final String INPUT = ROOT.resolve("samples/deployment-inventory/input").toString();

  @TempDir Path tmp;

  @Test
  void aCandidateThatDiffersPrintsTheExamplesOutputAndExits1() throws Exception {
    CliRun run = CliRun.of("diff", "--profile", BASELINE, "--candidate", CANDIDATE, INPUT);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.out()).isEqualTo(
        Files.readString(ROOT.resolve("docs/examples/experiment/expected-diff.txt")));
  }

  @Test
  void theSameProfileTwiceIsNoDifferenceAndExits0() {
    CliRun run = CliRun.of("diff", "--profile", BASELINE, "--candidate", BASELINE, INPUT);

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("changed 0").endsWith("no difference\n");
  }

  @Test
  void badInputIsOneLineAndExits2() throws Exception {
    Path invalid = tmp.resolve("invalid.yaml");
    Files.writeString(invalid, "resources:\n  - {version: v1, kind: Service, paht: x}\n");

    CliRun missing = CliRun.of("diff", "--profile", "absent.yaml", "--candidate", CANDIDATE,
        INPUT);
    CliRun badCandidate = CliRun.of("diff", "--profile", BASELINE, "--candidate",
        invalid.toString(), INPUT);
    CliRun noManifests = CliRun.of("diff", "--profile", BASELINE, "--candidate", CANDIDATE,
        tmp.resolve("nothing").toString());

    for (CliRun r : new CliRun[] {missing, badCandidate, noManifests}) {
      assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
      assertThat(r.err().strip().lines()).hasSize(1);
    }
    assertThat(badCandidate.err()).contains("paht");
  }
}

package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class VersionCommandTest {

  private static final String PROJECT_VERSION = System.getProperty("kollect.project.version");

  @Test
  void versionPrintsTheBuildsVersionCommitAndBuildTime() {
    CliRun run = CliRun.of("version");

    assertThat(run.exitCode()).isZero();
    String[] lines = run.out().split("\n");
    assertThat(lines[0]).isEqualTo("kollect " + PROJECT_VERSION);
    // a build from a git checkout knows its commit; the tests always run from one
    assertThat(lines[1]).matches("commit  [0-9a-f]{12}( \\(with uncommitted changes\\))?");
    assertThat(lines[2]).matches("built   \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    assertThat(lines[3]).matches("java    \\d+.*");
    assertThat(run.out()).doesNotContain("${");
  }

  @Test
  void versionFlagPrintsTheSameAsTheVersionCommand() {
    CliRun flag = CliRun.of("--version");

    assertThat(flag.exitCode()).isZero();
    assertThat(flag.out()).isEqualTo(CliRun.of("version").out());
  }

  @Test
  void valuesTheBuildCouldNotFillReadAsUnknown() {
    Properties p = new Properties();
    p.setProperty("version", "0.1.0");
    p.setProperty("commit", "${git.commit.id.abbrev}");
    p.setProperty("dirty", "${git.dirty}");

    BuildInfo info = BuildInfo.of(p);

    assertThat(info.lines()).startsWith("kollect 0.1.0", "commit  unknown", "built   unknown");
  }
}

package io.kollect.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher a user puts on the PATH: from a checkout, through a link (as the README's Install
 * section says to link it), it finds the packaged jar and runs it with the arguments given.
 */
class LauncherIT {

  @TempDir Path bin;

  @Test
  void aLinkToTheCheckoutsLauncherRunsThePackagedCli() throws Exception {
    Path launcher = Poms.root().resolve("scripts/kollect");
    Path link = Files.createSymbolicLink(bin.resolve("kollect"), launcher);

    Process p = new ProcessBuilder(link.toString(), "version").redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(p.exitValue()).as(out).isZero();
    String version = Poms.text(Poms.read(Poms.root().resolve("pom.xml")), "version").orElseThrow();
    assertThat(out.lines().findFirst()).contains("kollect " + version);
  }
}

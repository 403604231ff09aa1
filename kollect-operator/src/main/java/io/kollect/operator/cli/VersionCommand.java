package io.kollect.operator.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code kollect version}: the version, commit and build time of this build, and the JVM. */
@Command(name = "version", description = "Print the version, commit and build time.")
final class VersionCommand implements Callable<Integer> {

  @ParentCommand
  private KollectCommand parent;

  @Override
  public Integer call() {
    BuildInfo.current().lines().forEach(parent.out()::println);
    return 0;
  }
}

package io.kollect.operator.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code kollect} command line: the operator host and the offline extraction tools. */
@Command(
    name = "kollect",
    mixinStandardHelpOptions = true,
    versionProvider = KollectCommand.Version.class,
    description = "Kubernetes inventory: watch, extract, scrub, export only what changed.",
    subcommands = {RunCommand.class, DemoCommand.class, ExtractCommand.class, TestCommand.class})
public final class KollectCommand {

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns its exit code: 0 ok, 1 failure/mismatch, 2 bad input. */
  public static int execute(String... args) {
    return new CommandLine(new KollectCommand())
        .setExecutionExceptionHandler(new BadInputHandler())
        .execute(args);
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = KollectCommand.class.getPackage().getImplementationVersion();
      return new String[] {"kollect " + (v == null ? "dev" : v)};
    }
  }
}

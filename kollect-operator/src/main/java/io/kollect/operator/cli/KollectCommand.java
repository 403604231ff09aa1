package io.kollect.operator.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code kollect} command line: the operator host and the offline extraction tools. */
@Command(
    name = "kollect",
    mixinStandardHelpOptions = true,
    versionProvider = KollectCommand.Version.class,
    description = "Kubernetes inventory: watch, extract, scrub, export only what changed.",
    subcommands = {RunCommand.class, DemoCommand.class, ExtractCommand.class, TestCommand.class,
        ExperimentCommand.class, DiffCommand.class, VersionCommand.class})
public final class KollectCommand {

  private final PrintStream out;
  private final PrintStream err;

  KollectCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns its exit code: 0 ok, 1 failure/mismatch, 2 bad input. */
  public static int execute(String... args) {
    return execute(System.out, System.err, args);
  }

  /**
   * Runs the command line with its output (records, reports) on {@code out} and messages on
   * {@code err}; for embedding and in-process tests.
   */
  public static int execute(PrintStream out, PrintStream err, String... args) {
    return new CommandLine(new KollectCommand(out, err))
        .setOut(new PrintWriter(out, true, StandardCharsets.UTF_8))
        .setErr(new PrintWriter(err, true, StandardCharsets.UTF_8))
        .setExecutionExceptionHandler(new BadInputHandler())
        .setParameterExceptionHandler(KollectCommand::badParameters)
        .execute(args);
  }

  /** The stream records and reports go to (standard output unless embedded). */
  PrintStream out() {
    return out;
  }

  /** The stream messages and log lines go to (standard error unless embedded). */
  PrintStream err() {
    return err;
  }

  /**
   * An invalid value of a known option is one line naming both; an unknown or missing option is
   * that line and a pointer to the help, never the whole usage (25 lines that bury the one that
   * matters), with picocli's suggestions for a misspelt flag.
   */
  private static int badParameters(CommandLine.ParameterException ex, String[] args) {
    CommandLine cmd = ex.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println("kollect: " + ex.getMessage());
    boolean badValue = ex.getCause() instanceof CommandLine.TypeConversionException
        || ex.getMessage().startsWith("Invalid value");
    if (badValue) {
      return cmd.getCommandSpec().exitCodeOnInvalidInput(); // the line names flag and value
    }
    if (ex instanceof CommandLine.UnmatchedArgumentException unmatched) {
      List<String> suggestions = unmatched.getSuggestions();
      if (!suggestions.isEmpty()) {
        err.println("kollect: did you mean " + String.join(" or ", suggestions) + "?");
      }
    }
    err.println("kollect: see '" + cmd.getCommandSpec().qualifiedName() + " --help'");
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  /** {@code kollect --version} prints what {@code kollect version} does. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return BuildInfo.current().lines().toArray(String[]::new);
    }
  }
}

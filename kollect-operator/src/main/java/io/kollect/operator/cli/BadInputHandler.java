package io.kollect.operator.cli;

import picocli.CommandLine;

/**
 * Turns a {@link BadInputException} (unreadable file, invalid YAML, invalid profile, bad flag value)
 * into one line on stderr and exit code 2; anything else propagates as picocli does by default.
 */
final class BadInputHandler implements CommandLine.IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(
      Exception ex, CommandLine commandLine, CommandLine.ParseResult parseResult) throws Exception {
    if (ex instanceof BadInputException) {
      commandLine.getErr().println("kollect: " + ex.getMessage());
      return 2;
    }
    throw ex;
  }
}

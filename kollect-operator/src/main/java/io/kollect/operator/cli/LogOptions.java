package io.kollect.operator.cli;

import ch.qos.logback.classic.Level;
import io.kollect.operator.LogSetup;
import java.io.PrintStream;
import java.util.Set;
import picocli.CommandLine.Option;

/** The logging flags of {@code kollect run}. */
final class LogOptions {

  @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "info",
      description = "trace, debug, info, warn or error (default: ${DEFAULT-VALUE}).")
  String logLevel;

  @Option(names = "--log-format", paramLabel = "FORMAT",
      description = "json or text (default: json in a cluster, text elsewhere).")
  LogSetup.Format logFormat;

  /** Configures logging onto {@code err}; an unknown level is bad input (exit 2). */
  void configure(PrintStream err) {
    Level level = Level.toLevel(logLevel, null);
    if (level == null || !Set.of("trace", "debug", "info", "warn", "error")
        .contains(logLevel.toLowerCase())) {
      throw new BadInputException("--log-level: '" + logLevel
          + "' is not one of trace, debug, info, warn, error");
    }
    LogSetup.configure(level, logFormat == null ? LogSetup.defaultFormat() : logFormat, err);
  }
}

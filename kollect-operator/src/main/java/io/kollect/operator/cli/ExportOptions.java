package io.kollect.operator.cli;

import io.kollect.operator.ExportSettings;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The export flags of {@code kollect run}: they make its {@link ExportSettings}. */
final class ExportOptions {

  @Option(names = "--stdout",
      description = "Also print every target's records to standard output as JSON lines.")
  boolean stdout;

  @Option(names = "--checkpoint-dir", paramLabel = "DIR",
      description = "Keep export checkpoints in files here (default: ConfigMaps in the leader-election namespace).")
  Path checkpointDir;

  /** The settings, records to {@code out} with {@code --stdout}; a bad value is bad input (exit 2). */
  ExportSettings settings(PrintStream out) {
    try {
      return new ExportSettings(Optional.ofNullable(checkpointDir),
          stdout ? Optional.of(out) : Optional.empty());
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }
}

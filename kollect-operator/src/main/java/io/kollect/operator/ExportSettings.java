package io.kollect.operator;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where export keeps its checkpoints and where records go besides the targets' sinks ({@code
 * --checkpoint-dir}, {@code --stdout}).
 *
 * @param checkpointDir export checkpoints in files here; empty: in ConfigMaps in the operator's
 *     namespace
 * @param stdoutRecords when present, every target's records also go here as JSON lines
 */
public record ExportSettings(Optional<Path> checkpointDir, Optional<PrintStream> stdoutRecords) {

  public ExportSettings {
    Objects.requireNonNull(checkpointDir, "checkpointDir");
    Objects.requireNonNull(stdoutRecords, "stdoutRecords");
    checkpointDir.ifPresent(dir -> {
      if (Files.exists(dir) && !Files.isDirectory(dir)) {
        throw new IllegalArgumentException("--checkpoint-dir: " + dir + " is not a directory");
      }
    });
  }

  /** Checkpoints in ConfigMaps, records to the sinks only. */
  public static ExportSettings defaults() {
    return new ExportSettings(Optional.empty(), Optional.empty());
  }
}

package io.kollect.operator.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kollect extract}. */
@Command(name = "extract", mixinStandardHelpOptions = true, description = "(being built)")
final class ExtractCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new BadInputException("extract: not built yet");
  }
}

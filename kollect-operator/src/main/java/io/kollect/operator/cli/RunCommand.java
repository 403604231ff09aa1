package io.kollect.operator.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kollect run}. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "(being built)")
final class RunCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new BadInputException("run: not built yet");
  }
}

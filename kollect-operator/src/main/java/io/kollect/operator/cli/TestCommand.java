package io.kollect.operator.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kollect test}. */
@Command(name = "test", mixinStandardHelpOptions = true, description = "(being built)")
final class TestCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new BadInputException("test: not built yet");
  }
}

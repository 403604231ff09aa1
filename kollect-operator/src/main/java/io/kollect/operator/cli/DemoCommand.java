package io.kollect.operator.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kollect demo}. */
@Command(name = "demo", mixinStandardHelpOptions = true, description = "(being built)")
final class DemoCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new BadInputException("demo: not built yet");
  }
}

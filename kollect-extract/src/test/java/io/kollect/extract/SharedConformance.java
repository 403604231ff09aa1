package io.kollect.extract;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Third-party test data kept beside the checkout in {@code shared/conformance} (never copied into
 * the repository): found by walking up from the working directory (the module when Maven runs the
 * tests). Missing data fails the test: a conformance test that skips proves nothing.
 */
final class SharedConformance {

  private SharedConformance() {}

  static Path dir(String name) {
    Path start = Path.of("").toAbsolutePath();
    for (Path p = start; p != null; p = p.getParent()) {
      Path candidate = p.resolve("shared").resolve("conformance").resolve(name);
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError("shared/conformance/" + name + " not found in " + start
        + " or any parent; the conformance data must be checked out beside the repository (../shared)");
  }
}

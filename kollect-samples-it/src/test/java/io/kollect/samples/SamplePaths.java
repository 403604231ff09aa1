package io.kollect.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Where the sample catalog and the packaged operator live, seen from this module's tests. */
final class SamplePaths {
  /** Every sample, in catalog order. */
  static final List<String> SAMPLES = List.of(
      "deployment-inventory",
      "service-endpoints",
      "ingress-rules",
      "generic-crd",
      "helmrelease-summary",
      "helmrelease-values",
      "helm-releases");

  private SamplePaths() {}

  /** This module's directory: Maven runs tests there, an IDE may run them from the repo root. */
  static Path moduleDir() {
    Path cwd = Path.of("").toAbsolutePath();
    if (Files.isDirectory(cwd.resolve("samples")) && Files.isDirectory(cwd.resolve("kollect-samples-it"))) {
      return cwd.resolve("kollect-samples-it");
    }
    return cwd;
  }

  /**
   * {@code target/<name>} of this module, emptied (a test's output of an earlier run goes) and
   * created: the work directory of one IT class.
   */
  static Path emptyWorkDir(String name) {
    Path dir = moduleDir().resolve("target").resolve(name);
    try {
      if (Files.exists(dir)) {
        try (Stream<Path> walk = Files.walk(dir)) {
          for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path repoRoot() {
    return moduleDir().getParent();
  }

  static Path samplesDir() {
    return repoRoot().resolve("samples");
  }

  static Path sample(String name) {
    return samplesDir().resolve(name);
  }

  /** The sample's files under {@code sub} ({@code crds}, {@code input}) ending in .yaml, sorted. */
  static List<Path> yamlFiles(String sample, String sub) {
    Path dir = sample(sample).resolve(sub);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}

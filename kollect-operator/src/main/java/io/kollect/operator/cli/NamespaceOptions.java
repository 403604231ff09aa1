package io.kollect.operator.cli;

import io.kollect.operator.NamespaceScope;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;

/** The namespace flags of {@code kollect run}: they make its {@link NamespaceScope}. */
final class NamespaceOptions {

  @Option(names = "--namespaces", paramLabel = "NS", split = ",",
      description = "Only read objects and Kollect resources in these namespaces (default: all).")
  List<String> namespaces = List.of();

  @Option(names = "--exclude-namespaces", paramLabel = "NS", split = ",",
      description = "Never read objects or Kollect resources in these namespaces.")
  List<String> excludeNamespaces = List.of();

  NamespaceScope scope() {
    return new NamespaceScope(Set.copyOf(namespaces), Set.copyOf(excludeNamespaces));
  }
}

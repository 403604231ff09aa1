package io.kollect.operator;

import java.util.Set;
import java.util.function.Predicate;

/**
 * Which namespaces the operator reads, objects and Kollect resources alike: the {@code kollect
 * run} flags {@code --namespaces} and {@code --exclude-namespaces}.
 *
 * @param include only these namespaces (all when empty)
 * @param exclude never these namespaces
 */
public record NamespaceScope(Set<String> include, Set<String> exclude) {

  public NamespaceScope {
    include = SettingRules.namespaces(include, "--namespaces");
    exclude = SettingRules.namespaces(exclude, "--exclude-namespaces");
  }

  /** Every namespace. */
  public static NamespaceScope all() {
    return new NamespaceScope(Set.of(), Set.of());
  }

  /** Whether objects (and Kollect resources) in a namespace are handled at all. */
  public Predicate<String> filter() {
    Set<String> in = include;
    Set<String> out = exclude;
    return ns -> ns == null || (!out.contains(ns) && (in.isEmpty() || in.contains(ns)));
  }
}

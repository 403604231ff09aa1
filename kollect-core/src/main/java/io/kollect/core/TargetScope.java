package io.kollect.core;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;

/**
 * Which objects a target covers. All given criteria must hold.
 *
 * @param namespaces namespaces to cover; empty with no selector means all namespaces
 * @param namespaceSelector namespaces whose labels match; {@code null} for none
 * @param labelSelector objects whose labels match; {@code null} for all
 * @param names object names; empty for all
 */
public record TargetScope(
    List<String> namespaces,
    LabelSelector namespaceSelector,
    LabelSelector labelSelector,
    List<String> names) {

  public TargetScope {
    namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
    names = names == null ? List.of() : List.copyOf(names);
  }

  /** Every object of the profile's types in every namespace. */
  public static TargetScope everything() {
    return new TargetScope(List.of(), null, null, List.of());
  }

  /** Every object in the given namespaces. */
  public static TargetScope namespaces(String... namespaces) {
    return new TargetScope(List.of(namespaces), null, null, List.of());
  }
}

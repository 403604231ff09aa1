package io.kollect.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * How a target reports suspended sinks: still {@code Ready} (a pause is not a failure, and
 * {@code Degraded} stays about failures), with reason {@code Suspended} naming them.
 */
final class SinkSuspension {

  private SinkSuspension() {}

  /** The sentence naming the target's suspended sinks, or {@code null} when none is. */
  static String describe(Set<String> sinks, Predicate<String> suspended) {
    List<String> names = new ArrayList<>();
    for (String s : sinks) {
      if (suspended.test(s)) {
        names.add(s);
      }
    }
    if (names.isEmpty()) {
      return null;
    }
    return (names.size() == 1 ? "sink " : "sinks ") + String.join(", ", names)
        + (names.size() == 1 ? " is" : " are") + " suspended: nothing is sent to "
        + (names.size() == 1 ? "it" : "them") + " until resumed, then only what changed";
  }
}

package io.kollect.operator;

import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The value rules several settings records share, each stated once so that a flag's message reads
 * the same wherever the rule applies. Every violation is one line naming the flag.
 */
public final class SettingRules {

  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private SettingRules() {
  }

  /**
   * A positive duration.
   *
   * @throws IllegalArgumentException {@code <flag>: must be a positive duration, got <value>}
   */
  public static Duration positive(Duration value, String flag) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(flag + ": must be a positive duration, got " + value);
    }
    return value;
  }

  /**
   * Namespace names (DNS labels), copied.
   *
   * @throws IllegalArgumentException naming the flag and the first name that is not one
   */
  public static Set<String> namespaces(Set<String> values, String flag) {
    Set<String> copy = Set.copyOf(values);
    for (String ns : copy) {
      if (!NAMESPACE.matcher(ns).matches()) {
        throw new IllegalArgumentException(flag + ": '" + ns
            + "' is not a namespace name (lower-case letters, digits and '-')");
      }
    }
    return copy;
  }
}
